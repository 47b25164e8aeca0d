/**
 * The delivery worker connects to the address the SSRF guard checked, never to what a second DNS
 * lookup would answer: a host name that only the guard's resolver knows (the system resolver
 * cannot resolve `.test` names) is still delivered to, at the checked address. And it signs
 * with the current secret even when the previous one can no longer be read.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newId } from '../../../src/core/ids.js';
import { createSilentLogger } from '../../../src/logger.js';
import { createWebhookWorker } from '../../../src/core/webhooks/delivery-worker.js';
import { encryptWebhookSecret, newWebhookSecret } from '../../../src/core/webhooks/secrets.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';
import { startWebhookReceiver, verifyReceived, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const SECRET_KEY = Buffer.alloc(32, 7);

let harness: CoreHarness;
let receiver: WebhookReceiver;
beforeEach(async () => {
  harness = await createCoreHarness();
  harness.clock.set(Date.now());
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await harness.close();
  await receiver.close();
});

/** One endpoint at the receiver (`target`, by default the plain http one) under `host` with a `credits.low` event queued for it; returns what the test checks. */
async function queuedDelivery(host: string, previousEncryptedSecret: (endpointId: string) => string | null = () => null, target = receiver) {
  const { accountId } = await harness.createAccount();
  const endpointId = newId();
  const secret = newWebhookSecret();
  const { port, protocol } = new URL(target.url);
  const previous = previousEncryptedSecret(endpointId);
  await harness.store.webhooks.insertEndpointIfBelowLimit({
    endpoint: {
      id: endpointId,
      accountId,
      url: `${protocol}//${host}:${port}/in`,
      description: null,
      events: ['credits.low'],
      enabled: true,
      encryptedSecret: encryptWebhookSecret(secret, SECRET_KEY, endpointId),
      previousEncryptedSecret: previous,
      previousSecretExpiresAt: previous === null ? null : harness.clock.now() + 3_600_000,
      createdAt: harness.clock.now(),
      updatedAt: harness.clock.now(),
    },
    maxPerAccount: 10,
  });
  const eventId = newId();
  await harness.store.webhooks.enqueue({
    id: eventId,
    accountId,
    type: 'credits.low',
    payload: '{"type":"credits.low","timestamp":"x","data":{}}',
    createdAt: harness.clock.now(),
  });
  return { accountId, endpointId, eventId, secret, port };
}

function worker(allowHosts: string[], resolved: string[] = []) {
  return createWebhookWorker({
    store: harness.store.webhooks,
    clock: harness.clock,
    logger: createSilentLogger(),
    secretKey: SECRET_KEY,
    allowHosts,
    timeoutMs: 2_000,
    concurrency: 4,
    resolve: async (hostname) => {
      resolved.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    },
  });
}

it('delivers to the checked address of a name the system resolver does not know (the lookup is pinned)', async () => {
  const { accountId, endpointId, eventId, secret, port } = await queuedDelivery('hooks.porch.test');
  const resolved: string[] = [];
  await worker(['hooks.porch.test'], resolved).drain();
  expect(resolved).toEqual(['hooks.porch.test']);
  const request = await receiver.nextRequest();
  expect(request.path).toBe('/in');
  expect(request.headers.host).toBe(`hooks.porch.test:${port}`);
  expect(request.headers['webhook-id']).toBe(eventId);
  verifyReceived(request, secret);
  const delivery = await harness.store.webhooks.findDelivery({ accountId, id: endpointId, eventId });
  expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 204 });
});

it('signs with the current secret when the previous one was sealed under another PORCH_SECRET_KEY (regression: every delivery failed for the grace period)', async () => {
  const earlierKey = Buffer.alloc(32, 9);
  const { accountId, endpointId, eventId, secret } = await queuedDelivery('127.0.0.1', (id) => encryptWebhookSecret(newWebhookSecret(), earlierKey, id));
  await worker(['127.0.0.1']).drain();
  const request = await receiver.nextRequest();
  verifyReceived(request, secret);
  expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(1);
  expect(await harness.store.webhooks.findDelivery({ accountId, id: endpointId, eventId })).toMatchObject({ status: 'succeeded' });
});

it('an https receiver whose certificate is not trusted is logged as tls, apart from connection failures (regression: both were connection)', async () => {
  const untrusted = await startWebhookReceiver({ tls: 'self-signed' });
  try {
    const { accountId, endpointId, eventId } = await queuedDelivery('127.0.0.1', () => null, untrusted);
    await worker(['127.0.0.1']).drain();
    expect(untrusted.received).toEqual([]);
    const delivery = await harness.store.webhooks.findDelivery({ accountId, id: endpointId, eventId });
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'tls' });
  } finally {
    await untrusted.close();
  }
});
