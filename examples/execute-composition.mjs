// Executes a composition with variables and a model override.
//   PORCH_API_KEY=mdi_... MODEL=openai/gpt-4o-mini node examples/execute-composition.mjs [composition-id '{"variable":"value",...}']
// Without arguments it executes the demo catalog's "Release notes" composition, found by name
// (the newest composition is whatever was created or imported last), with that composition's
// variables. To execute another, give its id and its variables: for examples/bundle.yaml's
// "Ticket reply", node examples/execute-composition.mjs <id> '{"customer_name":"Ada","ticket":"I was charged twice."}'
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const DEMO_COMPOSITION = 'Release notes';
const DEMO_VARIABLES = { product: 'Porch', version: '1.2', changes: '- Faster lists\n- MCP prompts' };

const [compositionId, variablesJson] = process.argv.slice(2);
const id = compositionId ?? (await client.listCompositions()).items.find((composition) => composition.name === DEMO_COMPOSITION)?.id;
if (!id) throw new Error(`No composition named "${DEMO_COMPOSITION}" (the demo catalog's): give a composition id and its variables as JSON.`);
const variables = variablesJson ? JSON.parse(variablesJson) : compositionId ? {} : DEMO_VARIABLES;

const result = await client.executeComposition({ id, variables, model: process.env.MODEL ?? 'echo/echo' });
console.log(`model: ${result.model_used}, tokens: ${result.token_usage.total_tokens}, ${result.duration_ms} ms`);
console.log(result.content);
