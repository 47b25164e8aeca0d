/**
 * Storage contract for what self-service reads and changes: runs (owner only, newest first,
 * filtered, payloads pruned by age), usage aggregates (summed in the database, per grouping),
 * the ledger newest first in pages, rotation with a grace period, and when a key was last used.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { USAGE_GROUPINGS, type RunRecord, type UsageRecord } from '../../src/db/store.js';
import { expectedAggregate } from '../helpers/usage-sums.js';
import { describeEachEngine } from './engines.js';
import { apiKeyRecord, createAccount, DAY_MS, MINUTE_MS, T0, usageRecord } from './fixtures.js';

function runRecord(accountId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: newId(),
    accountId,
    keyId: newId(),
    kind: 'composition',
    resourceId: newId(),
    version: null,
    status: 'completed',
    model: 'echo/echo',
    inputTokens: 10,
    outputTokens: 20,
    totalTokens: 30,
    chargedTokens: 30,
    durationMs: 7,
    createdAt: T0,
    payload: { inputs: { variables: { b: 1, a: [true, null] } }, result: { content: 'hi', nested: { z: 1, a: 2 } } },
    keyKind: 'api_key',
    attempts: 0,
    claimedBy: null,
    startedAt: T0 - 7,
    finishedAt: T0,
    cancelRequestedAt: null,
    traceContext: null,
    ...overrides,
  };
}

describeEachEngine('self-service storage', (engine) => {
  it('a run is found by its owner only, payload and all, exactly as written', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const run = runRecord(account.id, { kind: 'workflow', model: null, status: 'failed', version: null });
    await store.runs.insert(run);
    expect(await store.runs.findOwned({ accountId: account.id, id: run.id })).toEqual(run);
    expect(await store.runs.findOwned({ accountId: other.id, id: run.id })).toBeNull();
    expect(await store.runs.list({ accountId: other.id, page: {} })).toEqual([]);
  });

  it('lists runs newest first without payloads, filtered by kind, resource and status, in pages', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const resourceId = newId();
    const runs = [
      runRecord(account.id, { kind: 'composition', resourceId }),
      runRecord(account.id, { kind: 'skill' }),
      runRecord(account.id, { kind: 'composition', resourceId, status: 'failed' }),
      runRecord(account.id, { kind: 'persona', payload: null }),
    ];
    for (const run of runs) await store.runs.insert(run);
    const listed = await store.runs.list({ accountId: account.id, page: {} });
    expect(listed.map((run) => run.id)).toEqual(runs.map((run) => run.id).reverse());
    expect(listed.map((run) => run.hasPayload)).toEqual([false, true, true, true]);
    expect(listed[0]).not.toHaveProperty('payload');
    const { payload: _payload, ...summary } = runs[1] as RunRecord;
    expect(listed[2]).toEqual({ ...summary, hasPayload: true });

    const byResource = await store.runs.list({ accountId: account.id, page: {}, resourceId });
    expect(byResource.map((run) => run.id)).toEqual([runs[2]?.id, runs[0]?.id]);
    expect((await store.runs.list({ accountId: account.id, page: {}, kind: 'skill' })).map((run) => run.id)).toEqual([runs[1]?.id]);
    expect((await store.runs.list({ accountId: account.id, page: {}, status: 'failed' })).map((run) => run.id)).toEqual([runs[2]?.id]);

    const first = await store.runs.list({ accountId: account.id, page: { limit: 2 } });
    const second = await store.runs.list({ accountId: account.id, page: { limit: 2, cursor: first.at(-1)?.id ?? '' } });
    expect([...first, ...second].map((run) => run.id)).toEqual(listed.map((run) => run.id));
  });

  it('prunes the payloads of runs created before the cutoff only, keeping their rows, and counts them', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const old = runRecord(account.id, { createdAt: T0 - 31 * DAY_MS });
    const recent = runRecord(account.id, { createdAt: T0 - DAY_MS });
    await store.runs.insert(old);
    await store.runs.insert(recent);
    expect(await store.runs.prunePayloads({ before: T0 - 30 * DAY_MS })).toBe(1);
    expect(await store.runs.findOwned({ accountId: account.id, id: old.id })).toEqual({ ...old, payload: null });
    expect(await store.runs.findOwned({ accountId: account.id, id: recent.id })).toEqual(recent);
    expect(await store.runs.prunePayloads({ before: T0 - 30 * DAY_MS }), 'a pruned run is not counted again').toBe(0);
  });

  it('aggregates usage in the database for every grouping, equal to the sums of the rows in the range', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const key = newId();
    const partner = newId();
    const workflow = newId();
    const runId = newId();
    const rows: UsageRecord[] = [
      usageRecord(account.id, { apiKeyId: key, resourceId: newId(), createdAt: T0 }),
      usageRecord(account.id, {
        apiKeyId: key,
        model: 'fake/large',
        inputTokens: 100,
        outputTokens: 5,
        totalTokens: 105,
        chargedTokens: 0,
        byok: true,
        createdAt: T0 + 1,
      }),
      usageRecord(account.id, { partnerKeyId: partner, operation: 'run_judge', status: 'failed', chargedTokens: 0, createdAt: T0 + DAY_MS }),
      // A workflow run: two node calls and the run's own row, which repeats their sums.
      usageRecord(account.id, { apiKeyId: key, operation: 'execute_workflow', resourceId: workflow, runId, nodeId: 'a', createdAt: T0 + 2 * DAY_MS }),
      usageRecord(account.id, {
        apiKeyId: key,
        operation: 'execute_workflow',
        resourceId: workflow,
        runId,
        nodeId: 'b',
        status: 'failed',
        createdAt: T0 + 2 * DAY_MS,
      }),
      usageRecord(account.id, {
        apiKeyId: key,
        operation: 'execute_workflow',
        resourceId: workflow,
        runId,
        model: null,
        inputTokens: 20,
        outputTokens: 40,
        totalTokens: 60,
        chargedTokens: 60,
        status: 'failed',
        createdAt: T0 + 2 * DAY_MS,
      }),
      // Outside the range, on either side.
      usageRecord(account.id, { apiKeyId: key, createdAt: T0 - 1 }),
      usageRecord(account.id, { apiKeyId: key, createdAt: T0 + 3 * DAY_MS }),
    ];
    for (const row of rows) await store.usage.insert(row);
    await store.usage.insert(usageRecord(other.id, { apiKeyId: newId(), createdAt: T0 }));
    const [from, to] = [T0, T0 + 3 * DAY_MS];
    for (const groupBy of USAGE_GROUPINGS) {
      expect(await store.usage.aggregate({ accountId: account.id, from, to, groupBy }), groupBy).toEqual(expectedAggregate(rows, groupBy, from, to));
    }
    // A split is a second grouping within each group: the overview's chart reads a day's usage by model in one query.
    for (const groupBy of USAGE_GROUPINGS) {
      for (const splitBy of USAGE_GROUPINGS) {
        expect(await store.usage.aggregate({ accountId: account.id, from, to, groupBy, splitBy }), `${groupBy} split by ${splitBy}`).toEqual(
          expectedAggregate(rows, groupBy, from, to, splitBy),
        );
      }
    }
    const byDay = await store.usage.aggregate({ accountId: account.id, from, to, groupBy: 'day' });
    expect(byDay.map((row) => row.group)).toEqual(['2026-01-15', '2026-01-16', '2026-01-17']);
    expect(byDay[2]).toMatchObject({ requests: 1, errors: 1, modelCalls: 2, totalTokens: 60, chargedTokens: 60 });
    expect(await store.usage.aggregate({ accountId: account.id, from: T0 + 10 * DAY_MS, to: T0 + 11 * DAY_MS, groupBy: 'model' })).toEqual([]);
  });

  it('pages the ledger newest first, with each entry’s balance after it', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    for (let index = 1; index <= 4; index += 1) {
      await store.credits.grant({ accountId: account.id, tokens: index * 100, reference: `grant-${index}`, at: T0 + index, entryId: newId() });
    }
    const all = await store.credits.ledgerPage({ accountId: account.id, page: {} });
    expect(all.map((entry) => entry.balanceAfterTokens)).toEqual([2_000, 1_600, 1_300, 1_100, 1_000]);
    expect(all.map((entry) => entry.id)).toEqual((await store.credits.ledger(account.id)).map((entry) => entry.id).reverse());
    const first = await store.credits.ledgerPage({ accountId: account.id, page: { limit: 2 } });
    const rest = await store.credits.ledgerPage({ accountId: account.id, page: { limit: 10, cursor: first.at(-1)?.id ?? '' } });
    expect([...first, ...rest]).toEqual(all);
    const { account: other } = await createAccount(store, 5);
    expect((await store.credits.ledgerPage({ accountId: other.id, page: {} })).map((entry) => entry.deltaTokens)).toEqual([5]);
  });

  it('replace with a grace period keeps the old key usable until then instead of revoking it', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const old = apiKeyRecord(account.id);
    await store.apiKeys.insertIfBelowLimit({ key: old, maxActive: 5, now: T0 });
    const replacement = apiKeyRecord(account.id, { createdAt: T0 + 1 });
    const graceUntil = T0 + 60 * MINUTE_MS;
    expect(await store.apiKeys.replace({ oldId: old.id, replacement, at: T0 + 1, graceUntil, maxWorking: 6 })).toBe('replaced');
    expect(await store.apiKeys.findById(old.id)).toEqual({ ...old, expiresAt: graceUntil, replacedBy: replacement.id });
    expect(await store.apiKeys.findUsableByHash({ hash: old.hash, now: graceUntil - 1 })).not.toBeNull();
    expect(await store.apiKeys.findUsableByHash({ hash: old.hash, now: graceUntil })).toBeNull();
    expect(await store.apiKeys.findById(replacement.id)).toEqual(replacement);

    const soon = apiKeyRecord(account.id, { expiresAt: T0 + MINUTE_MS });
    await store.apiKeys.insertIfBelowLimit({ key: soon, maxActive: 5, now: T0 });
    expect(await store.apiKeys.replace({ oldId: soon.id, replacement: apiKeyRecord(account.id), at: T0, graceUntil, maxWorking: 6 })).toBe('replaced');
    expect((await store.apiKeys.findById(soon.id))?.expiresAt, 'a sooner expiry is kept').toBe(T0 + MINUTE_MS);

    const lapsed = apiKeyRecord(account.id);
    expect(
      await store.apiKeys.replace({ oldId: old.id, replacement: lapsed, at: graceUntil, graceUntil: graceUntil + MINUTE_MS, maxWorking: 6 }),
      'an expired key is not rotated',
    ).toBe('inactive');
    expect(await store.apiKeys.findById(lapsed.id)).toBeNull();
  });

  it('replace with a grace period refuses when the working keys, those in a grace period included, already number maxWorking', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const first = apiKeyRecord(account.id);
    const second = apiKeyRecord(account.id);
    for (const key of [first, second]) await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: T0 });
    const graceUntil = T0 + 60 * MINUTE_MS;
    const third = apiKeyRecord(account.id);
    expect(await store.apiKeys.replace({ oldId: first.id, replacement: third, at: T0, graceUntil, maxWorking: 3 })).toBe('replaced');
    const fourth = apiKeyRecord(account.id);
    expect(await store.apiKeys.replace({ oldId: third.id, replacement: fourth, at: T0, graceUntil, maxWorking: 3 }), 'three keys work already').toBe('full');
    expect(await store.apiKeys.findById(fourth.id), 'nothing is inserted').toBeNull();
    expect((await store.apiKeys.findById(third.id))?.expiresAt, 'nor the old key retired').toBeNull();
    expect(await store.apiKeys.replace({ oldId: third.id, replacement: fourth, at: T0, maxWorking: 3 }), 'revoking at once adds no key').toBe('replaced');
    expect(
      await store.apiKeys.replace({
        oldId: second.id,
        replacement: apiKeyRecord(account.id),
        at: graceUntil,
        graceUntil: graceUntil + MINUTE_MS,
        maxWorking: 3,
      }),
      'once the grace period ended',
    ).toBe('replaced');
  });

  it('lastCounted answers the start of the last minute each key was counted in, and nothing for keys never counted', async () => {
    const { store } = engine();
    const limits = { requestsPerMinute: 10, requestsPerDay: 100 };
    const nowSeconds = T0 / 1000;
    await store.rateLimits.consume({ keyId: 'key-a', ...limits, nowSeconds: nowSeconds + 5 });
    await store.rateLimits.consume({ keyId: 'key-a', ...limits, nowSeconds: nowSeconds + 125 });
    await store.rateLimits.consume({ keyId: 'key-b', ...limits, nowSeconds: nowSeconds + 61 });
    const lastCounted = await store.rateLimits.lastCounted(['key-a', 'key-b', 'key-c']);
    expect(Object.fromEntries(lastCounted)).toEqual({ 'key-a': nowSeconds + 120, 'key-b': nowSeconds + 60 });
    expect((await store.rateLimits.lastCounted([])).size).toBe(0);
  });
});
