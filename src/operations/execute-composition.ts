import { z } from 'zod';
import { executeScopes } from '../core/access/scopes.js';
import { executionResultFields, modelOverrideSchema, useByokSchema, variablesSchema, versionSelectorFields } from './execution-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const executeComposition = defineKeyedOperation({
  name: 'execute_composition',
  title: 'Execute a prompt composition',
  description:
    "Renders one of the caller's compositions with the given variables and sends it to a model. Missing required variables are rejected (400) before any credits are spent. Costs credits (1 credit = 1,000 tokens) unless a BYOK key is active. A retry with the same idempotency key is replayed, never charged twice.",
  method: 'POST',
  path: '/compositions/{id}/execute',
  tag: 'Compositions',
  effect: 'execute',
  runKind: 'composition',
  successStatus: 200,
  scopes: executeScopes('composition'),
  idempotencyKey: true,
  streams: 'deltas',
  params: idParams,
  body: z.strictObject({
    variables: variablesSchema.optional(),
    model: modelOverrideSchema,
    use_byok: useByokSchema,
    ...versionSelectorFields,
  }),
  output: z.object(executionResultFields).describe('The composition execution result.'),
  run: ({ id, ...input }, { core, caller, signal, events, queuedRun }) =>
    core.executions.executeComposition(caller, id, input, { signal, queuedRun, ...events }),
});
