// Context-card CRUD: create, read, update, list and delete a card.
//   PORCH_API_KEY=mdi_... node examples/context-cards.mjs
import { createPorchClient, PorchApiError } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const card = await client.createContextCard({ title: 'Tone of voice', content: 'Warm and direct.', category: 'style', tags: ['voice'] });
console.log(`created ${card.id}: ${card.title}`);

const read = await client.getContextCard({ id: card.id });
console.log(`read: ${read.content}`);

const updated = await client.updateContextCard({ id: card.id, content: 'Warm, direct and brief.' });
console.log(`updated: ${updated.content} (at ${updated.updated_at})`);

const { count } = await client.listContextCards();
console.log(`the account has ${count} cards`);

await client.deleteContextCard({ id: card.id });
try {
  await client.getContextCard({ id: card.id });
} catch (error) {
  if (!(error instanceof PorchApiError) || error.status !== 404) throw error;
  console.log(`deleted: reading it again answers ${error.status} ${error.code}`);
}
