// Receives Porch webhooks and verifies each one before trusting it.
// Registers this receiver as an endpoint (the operator must allow-list its host in
// webhooks.allow_hosts, since it listens on loopback over http), runs the demo catalog's
// "Release notes" composition (found by name, with its variables), and checks the run.completed
// delivery's signature with verifyWebhook.
//   PORCH_API_KEY=mdi_... (with the manage:webhooks and execute:composition scopes) node examples/receive-webhook.mjs
import { createServer } from 'node:http';
import { createPorchClient, PorchWebhookError, verifyWebhook } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

let secret = '';
let resolveEvent;
const received = new Promise((resolve) => {
  resolveEvent = resolve;
});

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    // Verify the raw bytes before parsing them: a re-serialised body would not match the signature.
    const body = Buffer.concat(chunks);
    try {
      const event = verifyWebhook(body, request.headers, secret);
      response.writeHead(204).end();
      resolveEvent({ event, id: request.headers['webhook-id'], body: body.toString('utf8'), headers: request.headers });
    } catch (err) {
      // A delivery that does not verify is refused; Porch retries it, an attacker gets nothing.
      response.writeHead(err instanceof PorchWebhookError ? 400 : 500).end();
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/porch-webhooks`;

const created = await client.createWebhook({ url, events: ['run.completed', 'run.failed'], description: 'examples/receive-webhook.mjs' });
secret = created.secret;
try {
  // Found by name: the newest composition is whatever was created or imported last, with other variables.
  const composition = (await client.listCompositions()).items.find((candidate) => candidate.name === 'Release notes');
  if (!composition) throw new Error('No composition named "Release notes" (the demo catalog\'s) to execute.');
  await client.executeComposition({ id: composition.id, variables: { product: 'Porch', version: '1.2', changes: '- Webhooks' } });

  const timeout = setTimeout(() => {
    console.error('No delivery within 30 s: is 127.0.0.1 in webhooks.allow_hosts?');
    process.exit(1);
  }, 30_000);
  const { event, id, body, headers } = await received;
  clearTimeout(timeout);
  console.log(`verified ${event.type} (webhook-id ${id}) for run ${event.data.id}: ${event.data.status}`);

  // The same delivery with one byte changed does not verify.
  try {
    verifyWebhook(body.replace('completed', 'c0mpleted'), headers, secret);
    console.log('tampered body: accepted (this must not happen)');
  } catch (err) {
    console.log(`tampered body: rejected (${err instanceof PorchWebhookError ? 'PorchWebhookError' : err})`);
  }
} finally {
  await client.deleteWebhook({ id: created.endpoint.id });
  server.close();
}
