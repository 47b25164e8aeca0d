// Runs a workflow with variables and prints its per-node trace.
//   PORCH_API_KEY=mdi_... node examples/run-workflow.mjs [workflow-id] ['{"product":"Porch",...}']
// Without a workflow id it runs the newest workflow.
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const [workflowId, variablesJson] = process.argv.slice(2);
const id = workflowId ?? (await client.listWorkflows()).items[0]?.id;
if (!id) throw new Error('No workflow to run: import a bundle first (porch import).');
const variables = variablesJson ? JSON.parse(variablesJson) : { product: 'Porch', version: '1.0', changes: '- First release' };

const run = await client.executeWorkflow({ id, variables, include_trace: true });
console.log(`run ${run.run_id}: ${run.status} in ${run.duration_ms} ms, ${run.token_usage.total_tokens} tokens`);
for (const node of run.node_results) {
  const detail = node.error ? `${node.error.code}: ${node.error.message}` : `${node.token_usage?.total_tokens ?? 0} tokens`;
  console.log(`  ${node.node_id.padEnd(12)} ${node.kind.padEnd(12)} ${node.status.padEnd(9)} ${detail}`);
}
console.log('outputs:', JSON.stringify(run.outputs, null, 2));
if (run.status !== 'completed') process.exitCode = 1;
