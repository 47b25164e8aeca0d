import { z } from 'zod';
import { readScopes } from '../core/access/scopes.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery, timestampSchema } from './schemas.js';

export const listCompositions = defineKeyedOperation({
  method: 'GET',
  effect: 'read',
  successStatus: 200,
  query: pageQuery,
  name: 'list_compositions',
  title: 'List prompt compositions',
  description: "Lists the caller's prompt compositions (templates with {{variables}}), newest first. Use an id with execute_composition.",
  path: '/compositions',
  tag: 'Compositions',
  scopes: readScopes('composition'),
  output: listOf(
    z.object({
      id: z.uuid().describe('Composition id.'),
      name: z.string().describe('Composition name.'),
      description: z.string().describe('What the composition produces.'),
      tags: z.array(z.string()).describe('Tags.'),
      times_used: z.number().int().min(0).describe('How many times it has been executed successfully.'),
      created_at: timestampSchema,
    }),
    'compositions',
  ),
  run: (input, { core, caller }) => core.catalog.listCompositions(caller.account.id, input),
  streamItems: (input, { core, caller }) => core.catalog.compositionPages(caller.account.id, input.cursor),
});
