/**
 * `analyze_prompt`: the one tool that exists only over MCP and needs no key (spec §1, §5). The
 * analyzer is deterministic and local, so a public call costs no credits and reads no account.
 */
import type { z } from 'zod';
import { analyzePrompt, analyzePromptInputSchema, promptAnalysisSchema } from '../core/analyzer/index.js';
import { PorchError } from '../core/errors.js';
import { toolDataResult, toolErrorResult } from './to-tool-result.js';
import { toObjectJsonSchema, type McpTool } from './tools.js';

export const ANALYZE_PROMPT_TOOL_NAME = 'analyze_prompt';

/** Field paths read as tool arguments (`goal`), as the operations' MCP validation messages do. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('').replace(/^\./, '') || 'arguments'}: ${issue.message}`)
    .join('; ');
}

export const analyzePromptTool: McpTool = {
  definition: {
    name: ANALYZE_PROMPT_TOOL_NAME,
    title: 'Analyze a prompt',
    description:
      'Scores a prompt 0-100 for clarity, role, task, context, format and constraints, with an overall score, concrete ' +
      'suggestions to improve it and a link to keep refining it in Porch. Deterministic (no AI model, no credits) and ' +
      'needs no API key. Use it before sending a prompt to a model, or to compare two versions of a prompt.',
    inputSchema: toObjectJsonSchema(analyzePromptInputSchema, 'input', 'The input of analyze_prompt'),
    outputSchema: toObjectJsonSchema(promptAnalysisSchema, 'output', 'The output of analyze_prompt'),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  operation: null,
  isListed: () => true,
  async call(args, ctx) {
    const parsed = analyzePromptInputSchema.safeParse(args);
    if (!parsed.success) {
      return toolErrorResult(new PorchError('VALIDATION_ERROR', `Invalid request: ${describeIssues(parsed.error)}.`), ctx.errorCodes);
    }
    const analysis = analyzePrompt(parsed.data, { siteUrl: ctx.core.settings.siteUrl });
    return toolDataResult(analysis);
  },
};
