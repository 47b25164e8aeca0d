// Streams a persona's answer as the model writes it, then prints what the call cost.
//   PORCH_API_KEY=mdi_... node examples/stream-persona.mjs "text to rewrite" [persona-id]
// Without a persona id it uses the demo catalog's "Plain-English editor", found by name (the
// newest persona is whatever was created or imported last).
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const input = process.argv[2] ?? 'Our synergistic platform leverages best-of-breed paradigms to empower stakeholders.';
const id = process.argv[3] ?? (await client.listPersonas()).items.find((persona) => persona.name === 'Plain-English editor')?.id;
if (!id) throw new Error('No persona named "Plain-English editor" (the demo catalog\'s): give a persona id.');

let deltas = 0;
for await (const event of client.stream.executePersona({ id, input })) {
  if (event.event === 'delta') {
    deltas += 1;
    process.stdout.write(event.text);
  } else if (event.event === 'done') {
    const { model_used, token_usage } = event.data;
    console.log(`\n-- ${deltas} deltas from ${model_used}, ${token_usage.total_tokens} tokens, ${event.creditsRemaining} credits left`);
  }
}
