import { z } from 'zod';
import { executeScopes } from '../core/access/scopes.js';
import { ERROR_CODES } from '../core/errors.js';
import { guardrailFindingsSchema, useByokSchema, variablesSchema, versionRanSchema, versionSelectorFields } from './execution-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { tokenUsageSchema } from '../core/ai/token-usage.js';
import { idParams, timestampSchema } from './schemas.js';

const nodeResultSchema = z
  .object({
    node_id: z.string().describe('Node id from the workflow definition.'),
    kind: z.enum(['model', 'template', 'skill', 'composition', 'persona', 'sanitise', 'judge']).describe('Node kind.'),
    status: z.enum(['completed', 'failed', 'skipped']).describe('What happened to the node.'),
    output: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullable()
      .describe('The node output (text, or an object for sanitise and judge nodes).'),
    model: z.string().nullable().describe('The model that answered, when the node called one.'),
    token_usage: tokenUsageSchema.nullable(),
    duration_ms: z.number().int().min(0).describe('Node wall time in milliseconds.'),
    error: z
      .object({ code: z.enum(ERROR_CODES), message: z.string() })
      .nullable()
      .describe('Why the node failed, when it did.'),
    started_at: timestampSchema.nullable(),
    finished_at: timestampSchema.nullable(),
    guardrail_findings: guardrailFindingsSchema.describe(
      "What the organisation's guardrails found on this node's model calls (policy report or redact), without the matched text; absent when nothing was found. A node the policy blocks fails with CONTENT_BLOCKED instead.",
    ),
    resource: z
      .object({
        id: z.string().describe('Id of the skill, composition or persona.'),
        version: z.number().int().min(1).describe('The version that ran: the one labelled `production`, else the newest.'),
      })
      .optional()
      .describe('The stored resource a skill, composition or persona node ran, once it was found; absent for other kinds.'),
  })
  .describe('One node of the run trace.');

export const executeWorkflow = defineKeyedOperation({
  name: 'execute_workflow',
  title: 'Run a workflow',
  description:
    'Runs one of the caller\'s workflows (a DAG of model calls, templates, skills, compositions, personas, sanitise and judge steps) with the given variables. A failed node fails the run (status "failed", HTTP 200, the error in its trace), a node blocked by the organisation\'s guardrail included (CONTENT_BLOCKED in its trace). Set include_trace for per-node results. Each model-calling node costs credits unless a BYOK key is active.',
  method: 'POST',
  path: '/workflows/{id}/execute',
  tag: 'Workflows',
  effect: 'execute',
  runKind: 'workflow',
  successStatus: 200,
  scopes: executeScopes('workflow'),
  idempotencyKey: true,
  streams: 'nodes',
  params: idParams,
  body: z.strictObject({
    variables: variablesSchema.optional().describe('Values for the workflow variables, by name.'),
    inputs: variablesSchema.optional().describe('Alias of `variables` (used by one reference example); `variables` wins when both are sent.'),
    include_trace: z.boolean().default(false).describe('Include per-node results in node_results (default false: an empty list).'),
    use_byok: useByokSchema,
    ...versionSelectorFields,
  }),
  output: z
    .object({
      run_id: z.uuid().describe('Id of this run.'),
      version: versionRanSchema,
      status: z.enum(['completed', 'failed']).describe('completed, or failed when a node failed.'),
      outputs: z.record(z.string(), z.unknown()).describe('Output name -> node output, for completed nodes.'),
      node_results: z.array(nodeResultSchema).describe('Per-node trace when include_trace was true; otherwise empty.'),
      duration_ms: z.number().int().min(0).describe('Wall time of the run in milliseconds.'),
      token_usage: tokenUsageSchema,
    })
    .describe('The workflow execution result.'),
  run: ({ id, variables, inputs, ...input }, { core, caller, signal, events, queuedRun }) =>
    core.executions.executeWorkflow(caller, id, { ...input, variables: variables ?? inputs }, { signal, queuedRun, ...events }),
});
