/**
 * Schemas of the judge: what the model must reply (sent to it as a JSON Schema, so structured
 * output enforces it where the provider supports that), what callers send and what they get back.
 * The output schemas become the OpenAPI description and the MCP tool's output schema.
 */
import { z } from 'zod';

/** Callers' prompts are bounded so one judge call cannot run up an unbounded model bill. */
export const JUDGE_MAX_PROMPT_CHARS = 100_000;
/** Criteria are a few sentences of requirements; this leaves ample room. */
export const JUDGE_MAX_CRITERIA_CHARS = 10_000;

export const JUDGE_VERDICTS = ['pass', 'needs_revision', 'fail'] as const;
export type JudgeVerdict = (typeof JUDGE_VERDICTS)[number];

/**
 * The model's reply. `reasoning` must say something: the refinement is not expressible as JSON
 * Schema (so the wire schema stays within what strict structured output accepts) but parsing
 * enforces it. Unknown keys are dropped when parsing and forbidden in the wire schema.
 */
export const judgeReplySchema = z.object({
  reasoning: z
    .string()
    .refine((value) => value.trim().length > 0, 'must not be blank')
    .describe('Two to five sentences: the main strengths and the most important gaps of the prompt, citing the rubric dimensions and any criteria.'),
  score: z.number().min(0).max(100).describe('Overall quality of the prompt from 0 to 100, using the calibrated anchors of the rubric.'),
  suggestions: z.array(z.string()).describe('Up to five concrete edits that would raise the score, most important first; empty when none are needed.'),
});

export type JudgeReply = z.infer<typeof judgeReplySchema>;

function wireSchema(): Record<string, unknown> {
  // `$schema` names the draft for validators; providers' structured-output endpoints do not
  // need it, and a minimal schema is the most portable across OpenAI-compatible servers.
  const { $schema: _draft, ...schema } = z.toJSONSchema(judgeReplySchema);
  return schema;
}

/** The reply's JSON Schema as sent in `response_format` (strict: all keys required, no others). */
export const JUDGE_REPLY_JSON_SCHEMA: Readonly<Record<string, unknown>> = wireSchema();

export const judgeInputSchema = z.object({
  prompt: z
    .string()
    .min(1)
    .max(JUDGE_MAX_PROMPT_CHARS)
    .refine((value) => value.trim().length > 0, 'The prompt must not be blank.')
    .describe(`The prompt to evaluate, exactly as it would be sent to a model. At most ${JUDGE_MAX_PROMPT_CHARS} characters.`),
  criteria: z
    .string()
    .max(JUDGE_MAX_CRITERIA_CHARS)
    .optional()
    .describe('Optional requirements the prompt must meet (e.g. "must produce valid JSON for our CRM import"); weighed on top of the general rubric.'),
});

export type JudgeInput = z.infer<typeof judgeInputSchema>;

export const judgeResultSchema = z
  .object({
    verdict: z
      .enum(JUDGE_VERDICTS)
      .describe(
        'Derived from the score: pass at or above the pass threshold (default 70), needs_revision at or above the needs-revision threshold (default 40), fail below it.',
      ),
    score: z.number().min(0).max(100).describe('Quality of the prompt from 0 (unusable) to 100 (excellent).'),
    reasoning: z.string().describe('Why the prompt got this score: its strengths and its most important gaps.'),
    suggestions: z.array(z.string()).describe('Concrete edits that would improve the prompt, most important first.'),
  })
  .describe('The judge’s evaluation of a prompt.');

export type JudgeResult = z.infer<typeof judgeResultSchema>;
