import { ANY_EXECUTE_SCOPES } from '../core/access/scopes.js';
import { runDetailView } from '../core/runs/runs.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { runDetailSchema } from './self-service-schemas.js';

export const cancelRun = defineKeyedOperation({
  name: 'cancel_run',
  title: 'Cancel a run',
  description:
    "Cancels one of the account's asynchronous runs. A queued run is cancelled at once and never executes. A running run is aborted: its model call is cut off and the usage it already had is charged; the answer shows it cancelled when this process ran it (or completed, when its last answer had already arrived: that answer is kept and charged), or still running with cancel_requested until the process running it stops it (within about a second). A run that already ended answers 409 CONFLICT.",
  method: 'POST',
  path: '/runs/{id}/cancel',
  tag: 'Runs',
  effect: 'write',
  idempotent: true,
  successStatus: 200,
  // A key that may start runs of a kind may cancel them; the run's own kind is checked once it is read.
  scopes: ANY_EXECUTE_SCOPES,
  params: idParams,
  output: runDetailSchema,
  run: async ({ id }, { core, caller }) => runDetailView(await core.runQueue.cancel(caller, id), core.settings.errorCodes ?? 'a'),
});
