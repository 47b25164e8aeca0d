import { z } from 'zod';
import { executeScopes } from '../core/access/scopes.js';
import { executionResultFields, inputTextSchema, modelOverrideSchema, useByokSchema, variablesSchema, versionSelectorFields } from './execution-schemas.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const executeSkill = defineKeyedOperation({
  name: 'execute_skill',
  title: 'Execute a custom skill',
  description:
    "Applies one of the caller's custom skills (its instructions are the system prompt) to an input text. Send `input` (or the legacy alias `context`; `input` wins when both are sent). Costs credits unless a BYOK key is active.",
  method: 'POST',
  path: '/skills/{id}/execute',
  tag: 'Skills',
  effect: 'execute',
  runKind: 'skill',
  successStatus: 200,
  scopes: executeScopes('skill'),
  idempotencyKey: true,
  streams: 'deltas',
  params: idParams,
  body: z
    .strictObject({
      // Not empty, as a persona's input: an empty `input` would win over a `context` and send the model nothing to work on.
      input: inputTextSchema.min(1, 'must not be empty').optional().describe('The text the skill works on (preferred).'),
      context: inputTextSchema.min(1, 'must not be empty').optional().describe('Legacy alias of `input`; ignored when `input` is sent.'),
      model: modelOverrideSchema,
      variables: variablesSchema.optional(),
      use_byok: useByokSchema,
      ...versionSelectorFields,
    })
    .refine((body) => body.input !== undefined || body.context !== undefined, { message: 'send `input` (or its legacy alias `context`)' })
    // The refinement as JSON Schema, so the document refuses a call with neither, as the server does.
    .meta({ anyOf: [{ required: ['input'] }, { required: ['context'] }] }),
  output: z.object({ ...executionResultFields, skill_name: z.string().describe('Name of the skill that ran.') }).describe('The skill execution result.'),
  run: ({ id, ...input }, { core, caller, signal, events, queuedRun }) => core.executions.executeSkill(caller, id, input, { signal, queuedRun, ...events }),
});
