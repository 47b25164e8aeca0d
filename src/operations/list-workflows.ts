import { z } from 'zod';
import { readScopes } from '../core/access/scopes.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery, timestampSchema } from './schemas.js';

export const listWorkflows = defineKeyedOperation({
  method: 'GET',
  effect: 'read',
  successStatus: 200,
  query: pageQuery,
  name: 'list_workflows',
  title: 'List workflows',
  description: "Lists the caller's workflows (multi-step DAGs of model calls), newest first. Use an id with execute_workflow.",
  path: '/workflows',
  tag: 'Workflows',
  scopes: readScopes('workflow'),
  output: listOf(
    z.object({
      id: z.uuid().describe('Workflow id.'),
      name: z.string().describe('Workflow name.'),
      description: z.string().describe('What the workflow does.'),
      category: z.string().describe('Category.'),
      usage_count: z.number().int().min(0).describe('How many times it has been run.'),
      created_at: timestampSchema,
    }),
    'workflows',
  ),
  run: (input, { core, caller }) => core.catalog.listWorkflows(caller.account.id, input),
  streamItems: (input, { core, caller }) => core.catalog.workflowPages(caller.account.id, input.cursor),
});
