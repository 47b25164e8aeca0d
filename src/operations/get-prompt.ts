import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { promptKindsOf, promptNameSchema, promptScopes, promptTag, renderedPromptSchema } from './prompt-schemas.js';

export const getPrompt = defineKeyedOperation({
  name: 'get_prompt',
  title: 'Render a prompt',
  description: 'Renders one of the prompts list_prompts gives into chat messages, with the given arguments. Calls no model and costs no credits.',
  method: 'POST',
  path: '/prompts/{name}/render',
  tag: promptTag,
  effect: 'read',
  successStatus: 200,
  exposure: ['mcp-prompt'],
  scopes: promptScopes,
  params: z.object({ name: promptNameSchema }),
  body: z.object({ arguments: z.record(z.string(), z.string()).default({}).describe('Argument values by name.') }),
  output: renderedPromptSchema,
  run: ({ name, arguments: args }, { core, caller }) => core.prompts.render(caller.account.id, promptKindsOf(caller), name, args),
});
