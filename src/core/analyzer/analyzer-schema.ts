/**
 * The analyzer's input and output as zod schemas. They become the `analyze_prompt` MCP tool's
 * schemas and the OpenAPI description, so every field says what it means and its units.
 */
import { z } from 'zod';
import { MAX_SUGGESTIONS } from './rubric.js';

/**
 * The longest prompt the analyzer accepts. Analysis is linear in the length (test/core/analyzer/
 * linear-time.test.ts keeps it so; bench/analyzer-bench.ts measures it, figures in
 * bench/RESULTS-NOTES.md), so the cap bounds the cost of one public, key-less call.
 */
export const ANALYZER_MAX_PROMPT_CHARS = 100_000;

/** The longest goal accepted; a goal is a sentence or two about what the prompt is for. */
export const ANALYZER_MAX_GOAL_CHARS = 2_000;

function dimensionScore(description: string) {
  return z.number().int().min(0).max(100).describe(`${description} Integer from 0 (absent) to 100.`);
}

export const analyzePromptInputSchema = z.object({
  prompt: z
    .string()
    // A prompt refused for its length is not also refused as blank: one problem, said once
    // (regression: an empty prompt read "must not be empty; prompt: The prompt must not be blank.").
    .min(1, { abort: true })
    .max(ANALYZER_MAX_PROMPT_CHARS, { abort: true })
    .refine((value) => value.trim().length > 0, 'The prompt must not be blank.')
    // The refinement as JSON Schema (a non-blank character somewhere), so the tool's input schema
    // refuses a blank prompt as the server does.
    .meta({ pattern: '\\S' })
    .describe(`The prompt to analyse, as you would send it to a model. At most ${ANALYZER_MAX_PROMPT_CHARS} characters.`),
  goal: z
    .string()
    .max(ANALYZER_MAX_GOAL_CHARS)
    .optional()
    .describe('Optional: what the prompt should achieve (e.g. "extract invoice fields as JSON"). Makes the suggestions specific to that goal.'),
});

export const promptAnalysisSchema = z
  .object({
    scores: z
      .object({
        clarity: dimensionScore('Readable, unambiguous sentences: no vague words or hedges, no contradictions or shouting, structure for long prompts.'),
        role: dimensionScore('An explicit persona for the model ("You are a senior ..."), with profession, seniority and field.'),
        task: dimensionScore('A direct instruction with a concrete verb and object, and a specific deliverable (what, how many, about what).'),
        context: dimensionScore('Background the model cannot guess: audience, purpose, situation, and the material to work from.'),
        format: dimensionScore('The shape of the output: a named format (JSON, table, bullets), its length or count, its keys or sections, an example.'),
        constraints: dimensionScore('Rules and limits: must/never/avoid rules, length limit, tone, what to do when information is missing, success criteria.'),
      })
      .describe('Score of each dimension of the rubric.'),
    overall: z
      .number()
      .int()
      .min(0)
      .max(100)
      .describe('Weighted overall score, integer 0-100: task 25%, context 20%, clarity 20%, format 15%, role 10%, constraints 10%.'),
    suggestions: z
      .array(z.string())
      .max(MAX_SUGGESTIONS)
      .describe(
        `Concrete edits that would most improve the prompt, most important first (at most ${MAX_SUGGESTIONS}). Empty when every dimension already scores high.`,
      ),
    refine_url: z
      .url()
      .describe(
        'Link to continue refining this prompt in Porch: {site_url}/refine?prompt=...&goal=... (goal only when given; prompts over 2,000 characters, or over 6,000 bytes once percent-encoded, are cut at that length in the link, which then adds shortened_from=<the whole prompt’s length in characters>, and the page says its scores are of the part carried; goals are cut at 500 characters or 1,500 bytes).',
      ),
  })
  .describe('Deterministic analysis of a prompt by Porch’s rubric (no AI model involved).');

export type AnalyzePromptInput = z.infer<typeof analyzePromptInputSchema>;
export type PromptAnalysis = z.infer<typeof promptAnalysisSchema>;
