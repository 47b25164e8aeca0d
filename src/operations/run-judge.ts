import { z } from 'zod';
import { expertScopes } from '../core/access/scopes.js';
import { JUDGE_MAX_CRITERIA_CHARS, JUDGE_MAX_PROMPT_CHARS, judgeResultSchema } from '../core/judge/index.js';
import { guardrailFindingsSchema, modelOverrideSchema, useByokSchema } from './execution-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { nonBlankContent } from '../core/validation.js';

export const runJudge = defineKeyedOperation({
  name: 'run_judge',
  title: 'Judge a prompt',
  description:
    'Scores a prompt (or an output) from 0 to 100 against optional criteria with an AI grader and returns a verdict (by default pass >= 70, needs_revision 40-69, fail < 40; the server may configure other thresholds), reasoning and suggestions. Costs credits unless a BYOK key is active. With the echo model (the default when no AI provider is configured), Porch grades with its deterministic rubric at no cost and says so.',
  method: 'POST',
  path: '/judge/run',
  tag: 'Judge',
  effect: 'execute',
  successStatus: 200,
  scopes: expertScopes('judge'),
  idempotencyKey: true,
  body: z.strictObject({
    prompt: nonBlankContent(JUDGE_MAX_PROMPT_CHARS).describe('The prompt or output to judge.'),
    criteria: z.string().max(JUDGE_MAX_CRITERIA_CHARS).optional().describe('What a good answer must do; judged in addition to the general rubric.'),
    model: modelOverrideSchema,
    use_byok: useByokSchema,
  }),
  output: judgeResultSchema.extend({
    guardrail_findings: guardrailFindingsSchema.describe(
      "What the organisation's guardrails found on the judge's model calls (policy report or redact), without the matched text; absent when nothing was found, the guardrails are off or no model was called.",
    ),
  }),
  run: (input, { core, caller, signal }) => core.executions.judge(caller, input, signal),
});
