import { ANY_EXECUTE_SCOPES } from '../core/access/scopes.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { runDetailSchema, usageScopes } from './self-service-schemas.js';

/** A run that has not ended is asked for again after this long (`Retry-After` on its answer). */
const RUN_POLL_AFTER_SECONDS = 1;

export const getRun = defineKeyedOperation({
  name: 'get_run',
  title: 'Get a run',
  description:
    "Reads one of the account's runs with its status, inputs and result (a workflow's with every node's trace, a failed run's with its error). Poll it for an asynchronous run until its status is completed, failed or cancelled. Inputs and result are null once retention (retention.run_days) pruned them. read:usage reads every run; an execute scope reads the runs of its own kind.",
  method: 'GET',
  path: '/runs/{id}',
  tag: 'Runs',
  effect: 'read',
  successStatus: 200,
  // read:usage reads every run; an execute scope reads the runs of its kind (a key follows the runs it may start).
  scopes: [...usageScopes, ...ANY_EXECUTE_SCOPES],
  params: idParams,
  output: runDetailSchema,
  pollsAfter: 'While the run is queued or running: the seconds after which to read it again.',
  run: async ({ id }, { core, caller, pollAfter }) => {
    const run = await core.runs.get(caller, id);
    if (run.status === 'queued' || run.status === 'running') pollAfter?.(RUN_POLL_AFTER_SECONDS);
    return run;
  },
});
