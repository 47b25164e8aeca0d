/**
 * `analyze_prompt`: the one operation that needs no key and calls no model (spec §1, §5). The
 * analyzer is deterministic and local, so a call costs no credits and reads no account. It is an
 * MCP tool and the console's refine page; the spec gives it no REST route.
 */
import { analyzePrompt as analyze, analyzePromptInputSchema, promptAnalysisSchema } from '../core/analyzer/index.js';
import { definePublicOperation } from './operation.js';

export const analyzePrompt = definePublicOperation({
  name: 'analyze_prompt',
  title: 'Analyze a prompt',
  description:
    'Scores a prompt 0-100 for clarity, role, task, context, format and constraints, with an overall score, concrete ' +
    'suggestions to improve it and a link to keep refining it in Porch. Deterministic (no AI model, no credits) and ' +
    'needs no API key. Use it before sending a prompt to a model, or to compare two versions of a prompt.',
  method: 'POST',
  path: '/analyze-prompt',
  tag: 'Analyzer',
  effect: 'read',
  successStatus: 200,
  exposure: ['mcp-tool', 'console'],
  body: analyzePromptInputSchema,
  output: promptAnalysisSchema,
  run: async (input, { core }) => analyze(input, { siteUrl: core.settings.siteUrl }),
});
