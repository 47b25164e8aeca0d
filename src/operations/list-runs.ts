import { z } from 'zod';
import { RUN_KINDS, RUN_STATUSES } from '../db/store.js';
import { defineKeyedOperation } from './operation.js';
import { idInput, listOf, pageQuery } from './schemas.js';
import { runSchema, usageScopes } from './self-service-schemas.js';

export const listRuns = defineKeyedOperation({
  name: 'list_runs',
  title: 'List runs',
  description:
    "Lists the account's executions of workflows, compositions, skills and personas, newest recorded first (a run executed in its request is recorded when it ends, a queued run when it is queued, so new runs always arrive at the top): status, model, tokens, credits, duration, version. Filter by kind, resource_id or status; page with limit and cursor. GET /runs/{id} adds the inputs and the result or trace.",
  method: 'GET',
  path: '/runs',
  tag: 'Runs',
  effect: 'read',
  successStatus: 200,
  scopes: usageScopes,
  query: pageQuery.extend({
    kind: z.enum(RUN_KINDS).optional().describe('Only runs of this kind.'),
    resource_id: idInput().optional().describe('Only runs of this workflow, composition, skill or persona.'),
    status: z.enum(RUN_STATUSES).optional().describe('Only runs with this status (queued, running, completed, failed, cancelled).'),
  }),
  output: listOf(runSchema, 'runs'),
  run: (input, { core, caller }) => core.runs.list(caller.account.id, input),
  streamItems: (input, { core, caller }) => core.runs.pages(caller.account.id, input, input.cursor),
});
