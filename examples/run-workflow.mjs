// Runs a workflow with variables and prints its per-node trace.
//   PORCH_API_KEY=mdi_... node examples/run-workflow.mjs [workflow-id '{"variable":"value",...}']
// Without arguments it runs the demo catalog's "Release announcement" workflow, found by name
// (the newest workflow is whatever was created or imported last), with that workflow's variables.
// To run another, give its id and its variables: for examples/bundle.yaml's "Ticket triage",
//   node examples/run-workflow.mjs <id> '{"ticket":"I was charged twice.","customer_name":"Ada"}'
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const DEMO_WORKFLOW = 'Release announcement';
const DEMO_VARIABLES = { product: 'Porch', version: '1.0', changes: '- First release' };

const [workflowId, variablesJson] = process.argv.slice(2);
const id = workflowId ?? (await client.listWorkflows()).items.find((workflow) => workflow.name === DEMO_WORKFLOW)?.id;
if (!id) throw new Error(`No workflow named "${DEMO_WORKFLOW}" (the demo catalog's): give a workflow id and its variables as JSON.`);
const variables = variablesJson ? JSON.parse(variablesJson) : workflowId ? {} : DEMO_VARIABLES;

const run = await client.executeWorkflow({ id, variables, include_trace: true });
console.log(`run ${run.run_id}: ${run.status} in ${run.duration_ms} ms, ${run.token_usage.total_tokens} tokens`);
for (const node of run.node_results) {
  const detail = node.error ? `${node.error.code}: ${node.error.message}` : `${node.token_usage?.total_tokens ?? 0} tokens`;
  console.log(`  ${node.node_id.padEnd(12)} ${node.kind.padEnd(12)} ${node.status.padEnd(9)} ${detail}`);
}
console.log('outputs:', JSON.stringify(run.outputs, null, 2));
if (run.status !== 'completed') process.exitCode = 1;
