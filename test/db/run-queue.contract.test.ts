/**
 * Storage contract for the queue of asynchronous runs: a run is claimed once, oldest first,
 * within its account's bound on running runs (exact across connections), ended only by the
 * process holding it, cancelled at once while queued, and recovered from a crashed process.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { QueuedRunRecord, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { createAccount, INSTANCE_ID, MINUTE_MS, T0 } from './fixtures.js';

const OTHER_INSTANCE = 'instance-b';

function queuedRun(accountId: string, overrides: Partial<QueuedRunRecord> = {}): QueuedRunRecord {
  return {
    id: newId(),
    accountId,
    keyId: newId(),
    keyKind: 'api_key',
    kind: 'composition',
    resourceId: newId(),
    version: 2,
    createdAt: T0,
    inputs: { variables: { topic: 'queues' }, label: 'production' },
    ...overrides,
  };
}

async function enqueueMany(store: Store, accountId: string, count: number): Promise<QueuedRunRecord[]> {
  const runs: QueuedRunRecord[] = [];
  for (let index = 0; index < count; index++) {
    const run = queuedRun(accountId);
    await store.runs.enqueue(run);
    runs.push(run);
  }
  return runs;
}

const claim = (store: Store, maxRunningPerAccount = 10, instanceId = INSTANCE_ID) => store.runs.claim({ instanceId, now: T0 + 1_000, maxRunningPerAccount });

describeEachEngine('run queue', (engine, definition) => {
  it('a queued run is claimed once, oldest first, as running under the claiming process with its attempt counted', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const [first, second] = await enqueueMany(store, account.id, 2);
    const queued = await store.runs.findOwned({ accountId: account.id, id: first?.id ?? '' });
    expect(queued).toMatchObject({ status: 'queued', attempts: 0, claimedBy: null, payload: { inputs: first?.inputs, result: null } });

    const claimed = await claim(store);
    expect(claimed).toMatchObject({ id: first?.id, status: 'running', claimedBy: INSTANCE_ID, attempts: 1, startedAt: T0 + 1_000, version: 2 });
    expect(claimed?.payload?.inputs).toEqual(first?.inputs);
    expect((await claim(store))?.id).toBe(second?.id);
    expect(await claim(store), 'nothing is left to claim').toBeNull();
  });

  it('a queued run keeps the trace context of the request that queued it, for the process that claims it (regression: its spans began new traces)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const traceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=abc,other=1' };
    const traced = queuedRun(account.id, { traceContext });
    await store.runs.enqueue(traced);
    const untraced = queuedRun(account.id);
    await store.runs.enqueue(untraced);
    expect((await claim(store))?.traceContext).toEqual(traceContext);
    expect((await claim(store))?.traceContext, 'a run queued outside any trace has none').toBeNull();
    const recorded = (await store.runs.list({ accountId: account.id, page: {} })).find((run) => run.id === traced.id);
    expect(recorded?.traceContext).toEqual(traceContext);
  });

  it("skips an account at its bound of running runs and takes another account's run", async () => {
    const { store } = engine();
    const { account: busy } = await createAccount(store);
    const { account: other } = await createAccount(store);
    await enqueueMany(store, busy.id, 3);
    const [waiting] = await enqueueMany(store, other.id, 1);
    expect((await claim(store, 2))?.accountId).toBe(busy.id);
    expect((await claim(store, 2))?.accountId).toBe(busy.id);
    expect((await claim(store, 2))?.id, "the busy account's third run waits").toBe(waiting?.id);
    expect(await claim(store, 2)).toBeNull();
  });

  it.runIf(definition.shared)('claims through two connections never take a run twice nor pass an account’s bound', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const { account: first } = await createAccount(store);
    const { account: second } = await createAccount(store);
    await enqueueMany(store, first.id, 10);
    await enqueueMany(store, second.id, 10);
    const claims = await Promise.all(Array.from({ length: 24 }, (_, index) => (index % 2 === 0 ? claim(store, 3) : claim(other, 3, OTHER_INSTANCE))));
    const claimed = claims.filter((run) => run !== null);
    expect(new Set(claimed.map((run) => run.id)).size, 'no run is claimed twice').toBe(claimed.length);
    expect(claimed.filter((run) => run.accountId === first.id)).toHaveLength(3);
    expect(claimed.filter((run) => run.accountId === second.id)).toHaveLength(3);
    const running = await store.runs.list({ accountId: first.id, page: {}, status: 'running' });
    expect(running).toHaveLength(3);
  });

  it('only the process holding a run ends it, keeping its inputs beside the result', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const [run] = await enqueueMany(store, account.id, 1);
    await claim(store);
    const completion = {
      id: run?.id ?? '',
      status: 'completed' as const,
      model: 'echo/echo',
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
      chargedTokens: 7,
      durationMs: 12,
      finishedAt: T0 + 2_000,
      result: { content: 'done' },
    };
    expect(await store.runs.complete({ ...completion, instanceId: OTHER_INSTANCE }), 'another process cannot end it').toBe(false);
    expect(await store.runs.complete({ ...completion, instanceId: INSTANCE_ID })).toBe(true);
    expect(await store.runs.complete({ ...completion, instanceId: INSTANCE_ID }), 'an ended run is not ended again').toBe(false);
    expect(await store.runs.findOwned({ accountId: account.id, id: run?.id ?? '' })).toMatchObject({
      status: 'completed',
      claimedBy: null,
      totalTokens: 7,
      chargedTokens: 7,
      finishedAt: T0 + 2_000,
      payload: { inputs: run?.inputs, result: { content: 'done' } },
    });
  });

  it('keeps the cost of attempts so far on a running run, only for the process holding it', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const [run] = await enqueueMany(store, account.id, 1);
    const id = run?.id ?? '';
    const cost = { id, inputTokens: 5, outputTokens: 2, totalTokens: 7, chargedTokens: 7 };
    expect(await store.runs.noteAttemptCost({ ...cost, instanceId: INSTANCE_ID }), 'a queued run is held by nobody').toBe(false);
    await claim(store);
    expect(await store.runs.noteAttemptCost({ ...cost, instanceId: OTHER_INSTANCE })).toBe(false);
    expect(await store.runs.noteAttemptCost({ ...cost, instanceId: INSTANCE_ID })).toBe(true);
    expect(await store.runs.findOwned({ accountId: account.id, id })).toMatchObject({
      status: 'running',
      inputTokens: 5,
      outputTokens: 2,
      totalTokens: 7,
      chargedTokens: 7,
    });
  });

  it('cancels a queued run at once, asks a running one to stop, and refuses an ended one', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: stranger } = await createAccount(store);
    const [running, queued] = await enqueueMany(store, account.id, 2);
    await claim(store, 1);
    const now = T0 + 5_000;

    const cancelled = await store.runs.cancel({ accountId: account.id, id: queued?.id ?? '', now });
    expect(cancelled).toMatchObject({ outcome: 'cancelled', run: { status: 'cancelled', finishedAt: now, cancelRequestedAt: now } });
    expect(await claim(store), 'a cancelled run is never claimed').toBeNull();
    expect(await store.runs.cancel({ accountId: account.id, id: queued?.id ?? '', now })).toMatchObject({ outcome: 'finished' });

    expect(await store.runs.cancelRequested([running?.id ?? ''])).toEqual([]);
    expect(await store.runs.cancel({ accountId: account.id, id: running?.id ?? '', now })).toMatchObject({
      outcome: 'requested',
      run: { status: 'running', cancelRequestedAt: now },
    });
    expect(await store.runs.cancelRequested([running?.id ?? '', queued?.id ?? ''])).toEqual([running?.id]);
    expect(await store.runs.cancel({ accountId: stranger.id, id: running?.id ?? '', now }), "another account's run is missing").toEqual({
      outcome: 'missing',
    });
  });

  it("requeues a crashed process's runs once, then hands them back to be failed", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await store.instances.renew({ id: INSTANCE_ID, now: T0, leaseExpiresAt: T0 + MINUTE_MS });
    const [run] = await enqueueMany(store, account.id, 1);
    await claim(store);
    const beforeExpiry = { now: T0 + MINUTE_MS - 1, maxAttempts: 2 };
    expect(await store.runs.recoverOrphans(beforeExpiry), "a live process's runs are left alone").toEqual({ requeued: 0, stranded: [] });

    const afterExpiry = { now: T0 + MINUTE_MS, maxAttempts: 2 };
    expect(await store.runs.recoverOrphans(afterExpiry)).toEqual({ requeued: 1, stranded: [] });
    expect(await store.runs.findOwned({ accountId: account.id, id: run?.id ?? '' })).toMatchObject({ status: 'queued', claimedBy: null, attempts: 1 });

    expect(await claim(store)).toMatchObject({ id: run?.id, attempts: 2 });
    const { requeued, stranded } = await store.runs.recoverOrphans(afterExpiry);
    expect(requeued).toBe(0);
    expect(stranded.map((orphan) => [orphan.id, orphan.status, orphan.attempts])).toEqual([[run?.id, 'running', 2]]);
  });

  it("hands back a crashed process's run cancelled meanwhile instead of requeueing it (regression: it ran again and was charged)", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await store.instances.renew({ id: INSTANCE_ID, now: T0, leaseExpiresAt: T0 + MINUTE_MS });
    const [run] = await enqueueMany(store, account.id, 1);
    await claim(store);
    expect(await store.runs.cancel({ accountId: account.id, id: run?.id ?? '', now: T0 + 1 })).toMatchObject({ outcome: 'requested' });
    const { requeued, stranded } = await store.runs.recoverOrphans({ now: T0 + MINUTE_MS, maxAttempts: 2 });
    expect(requeued).toBe(0);
    expect(stranded.map((orphan) => [orphan.id, orphan.status, orphan.cancelRequestedAt])).toEqual([[run?.id, 'running', T0 + 1]]);
  });

  it('gives a run back to the queue only while its instance holds it and nobody asked to cancel it', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    await store.instances.renew({ id: INSTANCE_ID, now: T0, leaseExpiresAt: T0 + MINUTE_MS });
    const [run, other] = await enqueueMany(store, account.id, 2);
    const id = run?.id ?? '';
    await claim(store);
    expect(await store.runs.requeue({ id, instanceId: 'another-instance' }), "another instance's run").toBe(false);
    expect(await store.runs.requeue({ id, instanceId: INSTANCE_ID })).toBe(true);
    expect(await store.runs.findOwned({ accountId: account.id, id })).toMatchObject({ status: 'queued', claimedBy: null, startedAt: null, attempts: 1 });
    expect(await store.runs.requeue({ id, instanceId: INSTANCE_ID }), 'a queued run').toBe(false);
    // Claimed again first, ahead of the run queued after it, with its attempts counted.
    expect(await claim(store)).toMatchObject({ id, attempts: 2 });
    expect(await store.runs.cancel({ accountId: account.id, id, now: T0 + 1 })).toMatchObject({ outcome: 'requested' });
    expect(await store.runs.requeue({ id, instanceId: INSTANCE_ID }), 'a run whose cancellation was asked').toBe(false);
    expect(await store.runs.findOwned({ accountId: account.id, id })).toMatchObject({ status: 'running', claimedBy: INSTANCE_ID });
    expect(await store.runs.findOwned({ accountId: account.id, id: other?.id ?? '' })).toMatchObject({ status: 'queued' });
  });

  it("keeps a queued run's inputs when payloads are pruned", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const [run] = await enqueueMany(store, account.id, 1);
    expect(await store.runs.prunePayloads({ before: T0 + 1 })).toBe(0);
    expect((await store.runs.findOwned({ accountId: account.id, id: run?.id ?? '' }))?.payload?.inputs).toEqual(run?.inputs);
  });
});
