import { z } from 'zod';
import { readScopes } from '../core/access/scopes.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery, timestampSchema } from './schemas.js';

export const listSkills = defineKeyedOperation({
  method: 'GET',
  effect: 'read',
  successStatus: 200,
  query: pageQuery,
  name: 'list_skills',
  title: 'List custom skills',
  description: "Lists the caller's custom skills (reusable instructions applied to an input), newest first. Use an id with execute_skill.",
  path: '/skills',
  tag: 'Skills',
  scopes: readScopes('skill'),
  output: listOf(
    z.object({
      id: z.uuid().describe('Skill id.'),
      name: z.string().describe('Skill name.'),
      description: z.string().describe('What the skill does.'),
      category: z.string().describe('Category.'),
      created_at: timestampSchema,
    }),
    'skills',
  ),
  run: (input, { core, caller }) => core.catalog.listSkills(caller.account.id, input),
  streamItems: (input, { core, caller }) => core.catalog.skillPages(caller.account.id, input.cursor),
});
