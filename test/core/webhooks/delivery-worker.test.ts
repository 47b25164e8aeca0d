/**
 * The delivery worker connects to the address the SSRF guard checked, never to what a second DNS
 * lookup would answer: a host name that only the guard's resolver knows (the system resolver
 * cannot resolve `.test` names) is still delivered to, at the checked address.
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

it('delivers to the checked address of a name the system resolver does not know (the lookup is pinned)', async () => {
  const { accountId } = await harness.createAccount();
  const endpointId = newId();
  const secret = newWebhookSecret();
  const port = new URL(receiver.url).port;
  await harness.store.webhooks.insertEndpointIfBelowLimit({
    endpoint: {
      id: endpointId,
      accountId,
      url: `http://hooks.porch.test:${port}/in`,
      description: null,
      events: ['credits.low'],
      enabled: true,
      encryptedSecret: encryptWebhookSecret(secret, SECRET_KEY, endpointId),
      previousEncryptedSecret: null,
      previousSecretExpiresAt: null,
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
  const resolved: string[] = [];
  const worker = createWebhookWorker({
    store: harness.store.webhooks,
    clock: harness.clock,
    logger: createSilentLogger(),
    secretKey: SECRET_KEY,
    allowHosts: ['hooks.porch.test'],
    timeoutMs: 2_000,
    concurrency: 4,
    resolve: async (hostname) => {
      resolved.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    },
  });
  await worker.drain();
  expect(resolved).toEqual(['hooks.porch.test']);
  const request = await receiver.nextRequest();
  expect(request.path).toBe('/in');
  expect(request.headers.host).toBe(`hooks.porch.test:${port}`);
  expect(request.headers['webhook-id']).toBe(eventId);
  verifyReceived(request, secret);
  const delivery = await harness.store.webhooks.findDelivery({ accountId, id: endpointId, eventId });
  expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 204 });
});
