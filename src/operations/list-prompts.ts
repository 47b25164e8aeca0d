import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { promptKindsOf, promptListingSchema, promptScopes, promptTag } from './prompt-schemas.js';

export const listPrompts = defineKeyedOperation({
  name: 'list_prompts',
  title: 'List prompts',
  description: "Lists the caller's compositions and personas as prompts with their arguments: the MCP prompts capability.",
  method: 'GET',
  path: '/prompts',
  tag: promptTag,
  effect: 'read',
  successStatus: 200,
  exposure: ['mcp-prompt'],
  scopes: promptScopes,
  output: z.object({ prompts: z.array(promptListingSchema).describe('Compositions first, then personas, newest first.') }),
  run: async (_input, { core, caller }) => ({ prompts: await core.prompts.list(caller.account.id, promptKindsOf(caller)) }),
});
