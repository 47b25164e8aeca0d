// Executes a composition with variables and a model override.
//   PORCH_API_KEY=mdi_... MODEL=openai/gpt-4o-mini node examples/execute-composition.mjs [composition-id]
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const id = process.argv[2] ?? (await client.listCompositions()).items[0]?.id;
if (!id) throw new Error('No composition to execute: import a bundle first (porch import).');

const result = await client.executeComposition({
  id,
  variables: { product: 'Porch', version: '1.2', changes: '- Faster lists\n- MCP prompts' },
  model: process.env.MODEL ?? 'echo/echo',
});
console.log(`model: ${result.model_used}, tokens: ${result.token_usage.total_tokens}, ${result.duration_ms} ms`);
console.log(result.content);
