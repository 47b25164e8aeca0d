/**
 * How a process shares its delivery slots (docs/webhooks.md, "Retries and the delivery log"): an
 * endpoint whose last attempt failed has one attempt in flight at a time until one succeeds, and
 * the failing endpoints of all accounts together hold at most half of the slots, so a healthy
 * endpoint's delivery starts at once however many receivers hang. Ticks run one at a time, so
 * overlapping ones keep the shares too, and a failing endpoint is remembered past its retries'
 * longest wait, within a bounded memory. Real receivers on 127.0.0.1; what a tick claims is
 * checked, so no test waits on more timeouts than it needs.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { newId } from '../../../src/core/ids.js';
import { createFailingEndpointMemory, createWebhookWorker, MAX_REMEMBERED_FAILING, RETRY_SCHEDULE_MS } from '../../../src/core/webhooks/delivery-worker.js';
import { encryptWebhookSecret, newWebhookSecret } from '../../../src/core/webhooks/secrets.js';
import type { WebhookEventType } from '../../../src/db/store.js';
import { createSilentLogger } from '../../../src/logger.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const SECRET_KEY = Buffer.alloc(32, 7);

let harness: CoreHarness;
let receivers: WebhookReceiver[];
beforeEach(async () => {
  harness = await createCoreHarness();
  harness.clock.set(Date.now());
  receivers = [];
});
afterEach(async () => {
  vi.useRealTimers();
  await harness.close();
  for (const receiver of receivers) await receiver.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

/** An endpoint of the account at `url`, subscribed to `events`; returns its id. */
async function addEndpoint(accountId: string, url: string, events: WebhookEventType[] = ['credits.low']): Promise<string> {
  const endpointId = newId();
  const now = harness.clock.now();
  await harness.store.webhooks.insertEndpointIfBelowLimit({
    endpoint: {
      id: endpointId,
      accountId,
      url,
      description: null,
      events,
      enabled: true,
      encryptedSecret: encryptWebhookSecret(newWebhookSecret(), SECRET_KEY, endpointId),
      previousEncryptedSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    },
    maxPerAccount: 10,
  });
  return endpointId;
}

/** Queues an event of `type` for the account's endpoints subscribed to it, due now; returns its id. */
async function queue(accountId: string, type: WebhookEventType = 'credits.low'): Promise<string> {
  const eventId = newId();
  await harness.store.webhooks.enqueue({ id: eventId, accountId, type, payload: JSON.stringify({ type }), createdAt: harness.clock.now() });
  return eventId;
}

/** An account with one endpoint at `url`; `queue()` queues an event for it, due now. */
async function accountWithEndpoint(url: string) {
  const { accountId } = await harness.createAccount();
  const endpointId = await addEndpoint(accountId, url);
  return { accountId, endpointId, queue: () => queue(accountId) };
}

function worker(concurrency: number, timeoutMs: number) {
  return createWebhookWorker({
    store: harness.store.webhooks,
    clock: harness.clock,
    logger: createSilentLogger(),
    secretKey: SECRET_KEY,
    allowHosts: ['127.0.0.1'],
    timeoutMs,
    concurrency,
  });
}

it('an endpoint whose last attempt failed gets one attempt at a time until one succeeds, then its full share again', async () => {
  const hooks = await receiver();
  hooks.respondWith({ kind: 'status', status: 500 });
  const { accountId, endpointId, queue } = await accountWithEndpoint(`${hooks.url}/in`);
  const eventIds = [await queue(), await queue(), await queue()];
  const deliveries = worker(16, 2_000);
  expect(await deliveries.tick(), 'an endpoint not known to fail takes up to four slots').toBe(3);
  await deliveries.drain();
  expect(hooks.received).toHaveLength(3);

  hooks.respondWith({ kind: 'status', status: 204 });
  harness.clock.advance(RETRY_SCHEDULE_MS[1] ?? 0);
  expect(await deliveries.tick(), 'three retries are due, but a failing endpoint gets one attempt at a time').toBe(1);
  await deliveries.drain();
  expect(hooks.received).toHaveLength(6);
  for (const eventId of eventIds)
    expect(await harness.store.webhooks.findDelivery({ accountId, id: endpointId, eventId })).toMatchObject({ status: 'succeeded' });
});

it("failing endpoints of more accounts than a quarter of the slots hold at most half of them, so another account's healthy endpoint is delivered at once (regression: hanging endpoints delayed every other account)", async () => {
  const stuck = await receiver();
  stuck.respondWith({ kind: 'hang' });
  const healthy = await receiver();
  // Four slots: a quarter is one per account, half is two for the failing endpoints together.
  const deliveries = worker(4, 300);
  const hanging = [];
  for (let index = 0; index < 4; index++) hanging.push(await accountWithEndpoint(`${stuck.url}/account-${index}`));
  for (const account of hanging) await account.queue();
  // A first round: every attempt times out, and this process now knows the four endpoints fail.
  await deliveries.drain();
  expect(stuck.received).toHaveLength(4);

  for (const account of hanging) await account.queue();
  harness.clock.advance(1);
  const other = await accountWithEndpoint(`${healthy.url}/in`);
  const eventId = await other.queue();
  expect(await deliveries.tick(), 'two attempts to failing endpoints and the healthy one').toBe(3);
  const request = await healthy.nextRequest();
  expect(request.headers['webhook-id']).toBe(eventId);
  await deliveries.drain();
  expect(stuck.received).toHaveLength(8);
  expect(await harness.store.webhooks.findDelivery({ accountId: other.accountId, id: other.endpointId, eventId })).toMatchObject({ status: 'succeeded' });
});

it("an account's failing endpoints hold at most half of its share, so its endpoint that answers is delivered at once", async () => {
  const stuck = await receiver();
  stuck.respondWith({ kind: 'hang' });
  const healthy = await receiver();
  // Sixteen slots: the account may hold four, two of them for its failing endpoints.
  const deliveries = worker(16, 300);
  const { accountId } = await harness.createAccount();
  for (let index = 0; index < 4; index++) await addEndpoint(accountId, `${stuck.url}/endpoint-${index}`, ['run.completed']);
  const answering = await addEndpoint(accountId, `${healthy.url}/in`, ['credits.low']);
  await queue(accountId, 'run.completed');
  // A first round: the four attempts time out, and this process now knows the four endpoints fail.
  await deliveries.drain();
  expect(stuck.received).toHaveLength(4);

  await queue(accountId, 'run.completed');
  harness.clock.advance(1);
  const eventId = await queue(accountId, 'credits.low');
  expect(await deliveries.tick(), 'two attempts to failing endpoints and the answering one').toBe(3);
  expect((await healthy.nextRequest()).headers['webhook-id']).toBe(eventId);
  await deliveries.drain();
  expect(await harness.store.webhooks.findDelivery({ accountId, id: answering, eventId })).toMatchObject({ status: 'succeeded' });
});

it('polls and ticks that overlap run one at a time, so together they keep the shares (regression: three overlapping ticks started 8 attempts to one endpoint whose share is 4)', async () => {
  const stuck = await receiver();
  stuck.respondWith({ kind: 'hang' });
  const { queue } = await accountWithEndpoint(`${stuck.url}/in`);
  for (let index = 0; index < 8; index++) await queue();
  const deliveries = worker(16, 300);
  // Only the poll's interval is faked: the attempts' timeouts and sockets stay real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  deliveries.start(1_000);
  // Three polls fall due before the first one's claim has come back, and two ticks are called meanwhile.
  vi.advanceTimersByTime(3_000);
  expect(await Promise.all([deliveries.tick(), deliveries.tick()]), "the first poll took the endpoint's share").toEqual([0, 0]);
  expect(deliveries.inFlight(), 'an endpoint not known to fail takes up to four slots').toBe(4);
  await deliveries.stop();
  expect(stuck.received).toHaveLength(4);
});

it('an endpoint that keeps failing is still known when its 10-hour retries fall due, so it gets one slot for its last attempts (regression: forgotten just then, it got four)', async () => {
  const hooks = await receiver();
  hooks.respondWith({ kind: 'status', status: 500 });
  const { queue } = await accountWithEndpoint(`${hooks.url}/in`);
  for (let index = 0; index < 4; index++) await queue();
  const deliveries = worker(16, 2_000);
  await deliveries.drain();
  // Attempts 2 to 6 of each delivery, each round due after its wait of the schedule: all fail.
  for (const waitMs of RETRY_SCHEDULE_MS.slice(1, 6)) {
    harness.clock.advance(waitMs);
    await deliveries.drain();
  }
  expect(hooks.received).toHaveLength(24);

  harness.clock.advance(RETRY_SCHEDULE_MS[6] ?? 0);
  expect(await deliveries.tick(), 'four seventh attempts are due, but a failing endpoint gets one attempt at a time').toBe(1);
  await deliveries.drain();
  expect(hooks.received).toHaveLength(28);
});

it('remembers at most the endpoints that failed most recently, letting go of the one that failed longest ago first', () => {
  const memory = createFailingEndpointMemory();
  const now = harness.clock.now();
  for (let index = 0; index < MAX_REMEMBERED_FAILING; index++) memory.recordFailure(`endpoint-${index}`, 'account', now);
  // Failing again makes endpoint-0 the most recent: endpoint-1 is now the one that failed longest ago.
  memory.recordFailure('endpoint-0', 'account', now);
  memory.recordFailure('endpoint-new', 'account', now);
  const failing = memory.failingAt(now);
  expect(failing.size).toBe(MAX_REMEMBERED_FAILING);
  expect([failing.has('endpoint-0'), failing.has('endpoint-1'), failing.has('endpoint-new')]).toEqual([true, false, true]);
});
