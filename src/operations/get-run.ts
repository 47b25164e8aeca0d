import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { runDetailSchema, usageScopes } from './self-service-schemas.js';

export const getRun = defineKeyedOperation({
  name: 'get_run',
  title: 'Get a run',
  description:
    "Reads one of the account's runs with its inputs and its result (a workflow's with every node's trace, a failed run's with its error). Inputs and result are null once retention (retention.run_days) pruned them.",
  method: 'GET',
  path: '/runs/{id}',
  tag: 'Runs',
  effect: 'read',
  successStatus: 200,
  scopes: usageScopes,
  params: idParams,
  output: runDetailSchema,
  run: ({ id }, { core, caller }) => core.runs.get(caller.account.id, id),
});
