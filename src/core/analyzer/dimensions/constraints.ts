/**
 * Constraints: does the prompt set limits, rules and a bar for success?
 *
 * Heuristics (capped at 100):
 * - Rule sentences: a sentence or list item with a rule word (must, never, always, avoid, only,
 *   include, do not, at most, max, without, ensure, stick to, tone, ...). 1 → 35, 2 → 50, 3 → 60, 4 → 65, 5+ → 70:
 *   each further rule adds less, since ten rules are not ten times as clear as one.
 * - +10 for each kind of constraint present:
 *   - a length limit ("under 150 words", "at most 3 sentences", "no longer than a page");
 *   - a tone or register ("formal", "friendly", "plain English", "no jargon", "tone:");
 *   - a rule for missing or uncertain information ("if you are unsure, say so", "do not guess");
 *   - a rules section ("Rules:", "Constraints:", "Do:", "Don't:", "Requirements:");
 *   - success criteria ("a good answer ...", "must include ...", "acceptance criteria").
 */
import type { TextSignals } from '../text-signals.js';
import { clampScore } from './score-math.js';

export interface ConstraintFindings {
  readonly ruleSentenceCount: number;
  readonly lengthLimit: boolean;
  readonly tone: boolean;
  readonly uncertaintyRule: boolean;
  readonly rulesSection: boolean;
  readonly successCriteria: boolean;
}

export interface ConstraintResult {
  readonly score: number;
  readonly findings: ConstraintFindings;
}

/** Points by number of rule sentences; the index is the count, the last entry applies beyond. */
const RULE_COUNT_POINTS: readonly number[] = [0, 35, 50, 60, 65, 70];
const KIND_POINTS = 10;

const RULE_WORDS =
  /\b(?:must|mustn't|never|always|avoid|only|include|max|min|tone|(?:word|length|character) limit|do not|don't|dont|does not|should not|shouldn't|cannot|can't|no more than|at most|at least|not exceed|limit(?:ed)? to|without|exclude|excluding|except|ensure|make sure|required|require|strictly|keep (?:it|the|your|each|all|answers?|responses?)|stick to|focus (?:only )?on|refrain|under no circumstances|forbidden|prohibited|not allowed|restrict(?:ed)? to|maximum|minimum|no longer than|within|instead of|rather than|exactly)\b/;

/**
 * A length limit: "under 200 words", "max 3-5 bullets", "150 words or less", "one-sentence
 * summary". Written so that no run of text can be read in two ways, which took quadratic time on
 * the key-free analyzer: a number is at most 16 characters (`\d[\d,]{0,15}`; unbounded, every
 * digit of 100,000 characters of "0," started a scan to the end, 14 s), and the whitespace of a
 * range ("3 - 5") belongs to one quantifier each (`\s*(?:-?\s*\d+\s*)?` could split a run of
 * spaces between two: 8 s on "max 1" and 100,000 spaces).
 */
export const LENGTH_LIMIT =
  /\b(?:(?:under|at most|no more than|maximum(?: of)?|max|up to|fewer than|less than|not exceed|no longer than|within|at least|minimum(?: of)?|exactly|between)\s+(?:\d[\d,]{0,15}|one|two|three|four|five|six|seven|eight|nine|ten|a single|a)(?:\s*-\s*\d+|\s+\d+)?\s*(?:words?|sentences?|paragraphs?|characters?|chars|lines?|tokens?|bullets?|bullet points?|items?|pages?|minutes?|slides?|tweets?)|\d[\d,]{0,15}\s*(?:words?|sentences?|characters?|chars|lines?)\s+(?:or (?:less|fewer)|max(?:imum)?|long|or under)|(?:one|a single|\d+)[ -](?:sentence|paragraph|line|page|word)s? (?:only|max(?:imum)?|long|summary|answer|response|reply))\b/;

export const TONE =
  /\b(?:tone|voice|register|formal|informal|casual|friendly|neutral|playful|empathetic|sympathetic|plain (?:english|language)|jargon|humou?rous|funny|witty|persuasive|warm|polite|respectful|academic|conversational|upbeat|enthusiastic|authoritative|impartial|diplomatic|blunt|concise|succinct|terse)\b/;

const UNCERTAINTY_RULE =
  /\b(?:if (?:you are|you're) (?:not sure|unsure|uncertain|not certain|unable)|if (?:unsure|uncertain|unknown|in doubt|not sure)|if you (?:do not|don't|cannot|can't) (?:know|find|tell|determine)|if (?:the|a|an|any|some|there)\b[^.\n]{0,60}\b(?:is|are) (?:missing|unclear|not (?:given|provided|stated|mentioned|present|available)|absent|ambiguous|unknown)|if (?:there is|there are) no\b|do not (?:guess|make up|invent|fabricate|speculate|assume)|don't (?:guess|make up|invent|fabricate|speculate|assume)|never (?:guess|make up|invent|fabricate|speculate)|say (?:so|that you (?:do not|don't) know|you (?:do not|don't) know)|answer (?:"|“)?(?:unknown|n\/a|none|i don't know))/;

/**
 * A "Rules:" or "Constraints" label at a line start. A line start is the start of the text or a
 * line break followed by horizontal whitespace only (`[^\S\n]`: every `\s` but `\n`), so each
 * whitespace run is scanned from its last line break alone. With `\s*` there, every line break of a
 * run rescanned the rest of it, which took quadratic time (tens of seconds on 100,000 newlines);
 * the lines that match are the same, because a run holding a line break still reaches the label
 * from its last one.
 */
const RULES_SECTION =
  /(?:^|\n)[^\S\n]*(?:#{1,6}\s*)?(?:rules|constraints|requirements|guidelines|restrictions|limitations|limits|do(?:'s|s)?|do not|don'?ts?|must[- ]haves?|non-negotiables|boundaries|acceptance criteria|success criteria|criteria)\s*(?::|\n|$)/;

const SUCCESS_CRITERIA =
  /\b(?:success (?:criteria|looks like|means)|acceptance criteria|definition of done|a (?:good|great|successful|strong) (?:answer|response|result|output|reply)\b|(?:should|must) (?:include|cover|mention|contain|address|answer|explain)|the (?:answer|response|output|result|reply) (?:should|must|will)|make sure (?:it|the|each|every|you)|check that|each \w+ (?:must|should))/;

export function scoreConstraints(signals: TextSignals): ConstraintResult {
  const { lower } = signals;
  let ruleSentenceCount = 0;
  for (const sentence of signals.sentences) {
    if (RULE_WORDS.test(sentence.lower)) ruleSentenceCount += 1;
  }
  const findings: ConstraintFindings = {
    ruleSentenceCount,
    lengthLimit: LENGTH_LIMIT.test(lower),
    tone: TONE.test(lower),
    uncertaintyRule: UNCERTAINTY_RULE.test(lower),
    rulesSection: RULES_SECTION.test(lower),
    successCriteria: SUCCESS_CRITERIA.test(lower),
  };

  const lastIndex = RULE_COUNT_POINTS.length - 1;
  let score = RULE_COUNT_POINTS[Math.min(ruleSentenceCount, lastIndex)] ?? 0;
  for (const present of [findings.lengthLimit, findings.tone, findings.uncertaintyRule, findings.rulesSection, findings.successCriteria]) {
    if (present) score += KIND_POINTS;
  }
  return { score: clampScore(score), findings };
}
