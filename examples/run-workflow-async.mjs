// Queues a workflow as an asynchronous run, waits for it (as long as it takes, polling as the
// server's Retry-After says) and prints how it ended. Use this for workflows that outlive a
// proxy's timeout.
//   PORCH_API_KEY=mdi_... node examples/run-workflow-async.mjs [workflow-id '{"variable":"value",...}']
// Without arguments it queues the demo catalog's "Release announcement" workflow, found by name
// (the newest workflow is whatever was created or imported last), with that workflow's variables.
// To queue another, give its id and its variables.
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const DEMO_WORKFLOW = 'Release announcement';
const DEMO_VARIABLES = { product: 'Porch', version: '1.0', changes: '- First release' };

const [workflowId, variablesJson] = process.argv.slice(2);
const id = workflowId ?? (await client.listWorkflows()).items.find((workflow) => workflow.name === DEMO_WORKFLOW)?.id;
if (!id) throw new Error(`No workflow named "${DEMO_WORKFLOW}" (the demo catalog's): give a workflow id and its variables as JSON.`);
const variables = variablesJson ? JSON.parse(variablesJson) : workflowId ? {} : DEMO_VARIABLES;

const queued = await client.executeAsync('executeWorkflow', { id, variables });
console.log(`queued run ${queued.run_id}`);
const run = await client.waitForRun(queued.run_id, { timeoutMs: 10 * 60_000 });
console.log(`run ${run.id}: ${run.status} after ${run.attempts} attempt(s), ${run.token_usage.total_tokens} tokens, ${run.credits_charged} credits`);
if (run.status === 'completed') console.log('outputs:', JSON.stringify(run.result.outputs, null, 2));
else {
  console.error('error:', JSON.stringify(run.result?.error ?? run.result));
  process.exitCode = 1;
}
