/**
 * Writes the store could not take because it was out of reach, made again until they land
 * (core/deferred-writes.ts). Regression: a few seconds of PostgreSQL outage left an
 * Idempotency-Key answering "still running" for a day and a queued run `running` for good, until
 * the process restarted. The outage is the store's own error for it, thrown by the first attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { StoreUnavailableError } from '../../src/db/store.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

let harness: Harness;
let key: string;
let path: string;
beforeAll(async () => {
  harness = await createHarness();
  const account = await harness.expertWithKey();
  key = account.key;
  path = `/compositions/${(await harness.core.bundles.importBundle(account.accountId, DEMO_BUNDLE)).ids['composition:release-notes']}/execute`;
});
afterAll(() => harness.close());

/** Makes the next call of `object[method]` fail as an unreachable database does. */
function outageOnce<Target extends object>(object: Target, method: keyof Target & string): void {
  const original = object[method] as (...args: unknown[]) => Promise<unknown>;
  (object as Record<string, unknown>)[method] = async () => {
    (object as Record<string, unknown>)[method] = original;
    throw new StoreUnavailableError('The PostgreSQL database cannot be reached.');
  };
}

async function landed(): Promise<void> {
  await expect.poll(() => harness.core.deferredWrites.pending, { timeout: 10_000 }).toBe(0);
}

/** The next call fails as an unreachable database does, the one after as a store refusing the write does. */
function outageThenRefusal<Target extends object>(object: Target, method: keyof Target & string): void {
  const original = object[method] as (...args: unknown[]) => Promise<unknown>;
  let calls = 0;
  (object as Record<string, unknown>)[method] = async () => {
    calls += 1;
    if (calls === 2) (object as Record<string, unknown>)[method] = original;
    throw calls === 1 ? new StoreUnavailableError('The PostgreSQL database cannot be reached.') : new Error('invalid input for type jsonb');
  };
}

describe('a write the store could not take for a moment', () => {
  it('stores an Idempotency-Key’s answer later: the caller has it at once, and a retry replays it', async () => {
    outageOnce(harness.store.idempotency, 'complete');
    const headers = { 'idempotency-key': 'outage-complete' };
    const first = await harness.api<{ content: string }>('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers });
    expect(first.status, describeResponse(first)).toBe(200);
    await landed();
    const runs = async () => (await harness.api<{ count: number }>('GET', '/runs', { key })).body.data.count;
    const before = await runs();
    const retry = await harness.api<{ content: string }>('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers });
    expect(retry.status, describeResponse(retry)).toBe(200);
    expect(retry.body.data).toEqual(first.body.data);
    expect(await runs(), 'a replay runs nothing').toBe(before);
  });

  it('releases a failed request’s Idempotency-Key later, so a retry runs again instead of "still running"', async () => {
    outageOnce(harness.store.idempotency, 'abandon');
    const headers = { 'idempotency-key': 'outage-abandon' };
    const body = { variables: { product: 'Porch' } };
    const first = await harness.api('POST', path, { key, body, headers });
    expect(first.status, describeResponse(first)).toBe(400);
    await landed();
    const retry = await harness.api('POST', path, { key, body, headers });
    expect(retry.status, describeResponse(retry)).toBe(400);
    expect(retry.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('tells a retry made before a 503’s key release landed that the first request may have ended (regression: "still running")', async () => {
    // The first attempt meets the outage before it runs, and its key's release waits for the store.
    outageOnce(harness.store.credits, 'reserve');
    const idempotency = harness.store.idempotency;
    const abandon = idempotency.abandon.bind(idempotency);
    let storeBack = false;
    idempotency.abandon = async (request) => {
      if (!storeBack) throw new StoreUnavailableError('The PostgreSQL database cannot be reached.');
      return abandon(request);
    };
    try {
      const headers = { 'idempotency-key': 'outage-release-pending' };
      const first = await harness.api('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers });
      expect(first.status, describeResponse(first)).toBe(503);
      const early = await harness.api('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers });
      expect(early.status, describeResponse(early)).toBe(409);
      expect(early.body.error.message).toMatch(/ended while the database was out of reach .* within 30 s of the database's return\)\. Retry in a few seconds/);
      storeBack = true;
      await landed();
      const retry = await harness.api('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers });
      expect(retry.status, describeResponse(retry)).toBe(200);
    } finally {
      idempotency.abandon = abandon;
    }
  });

  it('records a queued run’s ending later, rather than leave it running', async () => {
    outageOnce(harness.store.runs, 'complete');
    const queued = await harness.api<{ run_id: string }>('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers: { prefer: 'respond-async' } });
    expect(queued.status, describeResponse(queued)).toBe(202);
    await expect
      .poll(async () => (await harness.api<{ status: string }>('GET', `/runs/${queued.body.data.run_id}`, { key })).body.data.status, { timeout: 10_000 })
      .toBe('completed');
  });

  it('records a queued run as failed when its retried ending is refused, rather than drop it (regression: running for good)', async () => {
    outageThenRefusal(harness.store.runs, 'complete');
    const queued = await harness.api<{ run_id: string }>('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers: { prefer: 'respond-async' } });
    expect(queued.status, describeResponse(queued)).toBe(202);
    const read = async () =>
      (await harness.api<{ status: string; result: { error?: { code: string } } }>('GET', `/runs/${queued.body.data.run_id}`, { key })).body.data;
    await expect.poll(async () => (await read()).status, { timeout: 10_000 }).toBe('failed');
    expect((await read()).result.error?.code).toBe('INTERNAL_ERROR');
  });
});

describe('a queued run that meets the store out of reach', () => {
  const queue = () => harness.api<{ run_id: string }>('POST', path, { key, body: { variables: RELEASE_VARIABLES }, headers: { prefer: 'respond-async' } });
  const read = async (id: string) =>
    (await harness.api<{ status: string; attempts: number; result: { error?: { code: string } } }>('GET', `/runs/${id}`, { key })).body.data;

  it('goes back to the queue when nothing was charged yet, and runs once the store is back (regression: failed for good with INTERNAL_ERROR)', async () => {
    outageOnce(harness.store.credits, 'reserve');
    const queued = await queue();
    expect(queued.status, describeResponse(queued)).toBe(202);
    await expect.poll(async () => (await read(queued.body.data.run_id)).status, { timeout: 10_000 }).toBe('completed');
    expect((await read(queued.body.data.run_id)).attempts, 'the attempt the outage stopped is counted').toBe(2);
  });

  it('is tracked by the queue on the attempt after it went back (review: the ending of the first attempt forgot the second one)', async () => {
    const credits = harness.store.credits;
    const reserve = credits.reserve.bind(credits);
    let calls = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let secondStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      secondStarted = resolve;
    });
    credits.reserve = async (request) => {
      calls += 1;
      if (calls === 1) throw new StoreUnavailableError('The PostgreSQL database cannot be reached.');
      secondStarted();
      await held;
      return reserve(request);
    };
    try {
      const queued = await queue();
      await started;
      // Tracked, the attempt is what a cancellation aborts and a shutdown waits for.
      expect(harness.core.runQueue.activeCount, 'the second attempt is in the queue').toBe(1);
      release();
      await expect.poll(async () => (await read(queued.body.data.run_id)).status, { timeout: 10_000 }).toBe('completed');
    } finally {
      credits.reserve = reserve;
      release();
    }
  });

  it('ends cancelled when its owner cancels it while it waits to go back to the queue (review: it ended failed)', async () => {
    outageOnce(harness.store.credits, 'reserve');
    outageOnce(harness.store.runs, 'requeue');
    const queued = await queue();
    await expect.poll(() => harness.core.deferredWrites.pending, { timeout: 5_000 }).toBe(1);
    const cancel = await harness.api('POST', `/runs/${queued.body.data.run_id}/cancel`, { key });
    expect(cancel.status, describeResponse(cancel)).toBe(200);
    await landed();
    expect((await read(queued.body.data.run_id)).status).toBe('cancelled');
  });

  it('fails with SERVICE_UNAVAILABLE, not as a fault of Porch, when the outage came after the model answered (regression: INTERNAL_ERROR)', async () => {
    outageOnce(harness.store.credits, 'settle');
    const queued = await queue();
    expect(queued.status, describeResponse(queued)).toBe(202);
    await expect.poll(async () => (await read(queued.body.data.run_id)).status, { timeout: 10_000 }).toBe('failed');
    expect((await read(queued.body.data.run_id)).result.error?.code).toBe('SERVICE_UNAVAILABLE');
  });
});
