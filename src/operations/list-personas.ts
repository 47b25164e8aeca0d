import { z } from 'zod';
import { readScopes } from '../core/access/scopes.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery, timestampSchema } from './schemas.js';

export const listPersonas = defineKeyedOperation({
  method: 'GET',
  effect: 'read',
  successStatus: 200,
  query: pageQuery,
  name: 'list_personas',
  title: 'List personas',
  description:
    'Lists the caller\'s personas (context cards of category "persona" whose content is a system prompt), newest first. Use an id with execute_persona.',
  path: '/personas',
  tag: 'Personas',
  scopes: readScopes('persona'),
  output: listOf(
    z.object({
      id: z.uuid().describe('Persona id (the id of its context card).'),
      name: z.string().describe('Persona name.'),
      description: z.string().describe('Who the persona is.'),
      emoji: z.string().describe('Emoji shown beside the name ("" when none).'),
      content_preview: z.string().describe("The first 160 characters of the persona's system prompt."),
      created_at: timestampSchema,
    }),
    'personas',
  ),
  run: (input, { core, caller }) => core.catalog.listPersonas(caller.account.id, input),
  streamItems: (input, { core, caller }) => core.catalog.personaPages(caller.account.id, input.cursor),
});
