import { z } from 'zod';
import { executeScopes } from '../core/access/scopes.js';
import { executionResultFields, inputTextSchema, modelOverrideSchema, useByokSchema, versionSelectorFields } from './execution-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const executePersona = defineKeyedOperation({
  name: 'execute_persona',
  title: 'Talk to a persona',
  description:
    "Sends a message to one of the caller's personas: the persona's content is the system prompt, `input` the user message (with `context` appended after a blank line). Costs credits unless a BYOK key is active.",
  method: 'POST',
  path: '/personas/{id}/execute',
  tag: 'Personas',
  effect: 'execute',
  runKind: 'persona',
  successStatus: 200,
  scopes: executeScopes('persona'),
  idempotencyKey: true,
  streams: 'deltas',
  params: idParams,
  body: z.strictObject({
    input: inputTextSchema.min(1, 'must not be empty').describe('The user message.'),
    context: inputTextSchema.optional().describe('Extra context, appended to the user message after a blank line.'),
    model: modelOverrideSchema,
    temperature: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional().describe('Sampling temperature, 0 to 1.'),
    use_byok: useByokSchema,
    ...versionSelectorFields,
  }),
  output: z
    .object({ ...executionResultFields, persona_name: z.string().describe('Name of the persona that answered.') })
    .describe('The persona execution result.'),
  run: ({ id, ...input }, { core, caller, signal, events, queuedRun }) => core.executions.executePersona(caller, id, input, { signal, queuedRun, ...events }),
});
