/**
 * Real prompts of rising quality, as people write them. The analyzer and judge tests assert
 * orderings over them, so each one differs from the next by whole elements, not by tweaks.
 */

/** A single word: no task verb, no context, nothing else. */
export const ONE_WORD_PROMPT = 'Poem';

/** A one-liner with a verb, a vague object and hedges. */
export const VAGUE_PROMPT = 'Write something about dogs, maybe a bit funny or whatever.';

/** A clear task with a deliverable and a length limit, but no role, audience or format. */
export const DECENT_PROMPT =
  'Write a product description for our new noise-cancelling headphones. Mention battery life and comfort, and keep it under 100 words.';

/** Role, task, context with delimited facts, an exact JSON format and rules. */
export const STRONG_PROMPT = `You are a senior e-commerce copywriter who specialises in consumer audio products.

## Task
Write a product description for the Aria X2 noise-cancelling headphones.

## Context
The audience is commuters aged 25-40 who care about comfort on long journeys. The goal is to increase conversions on our product page, so the copy must lead with the benefit, not the spec sheet.
Product facts:
"""
Battery: 38 hours with ANC on. Weight: 240 g. Fast charge: 10 minutes gives 5 hours. Colours: black, sand.
"""

## Format
Return a JSON object with the keys "headline" (at most 8 words), "body" (at most 90 words) and "bullets" (exactly 3 short strings).

## Rules
- Use a warm, confident tone; no jargon.
- Only use the facts above; never invent specifications.
- If a fact needed for a claim is missing, leave the claim out.
- Do not mention competitors.`;

/** Ordered weakest to strongest. */
export const PROMPTS_BY_QUALITY = [
  ['one-word', ONE_WORD_PROMPT],
  ['vague one-liner', VAGUE_PROMPT],
  ['decent task', DECENT_PROMPT],
  ['strong, fully specified', STRONG_PROMPT],
] as const;
