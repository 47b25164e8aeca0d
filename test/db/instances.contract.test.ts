/**
 * Storage contract: process leases. What a Porch process holds (credit reservations, execution
 * slots, unfinished idempotency claims) is released when it retires or its lease runs out, and
 * the per-key in-flight limit counts only the slots of live processes, across connections.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { IdempotencyClaimRequest, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { accruedCharging, createAccount, DAY_MS, MINUTE_MS, T0, usageRecord } from './fixtures.js';

const LEASE_MS = 30_000;

function startInstance(store: Store, id: string, now = T0) {
  return store.instances.renew({ id, now, leaseExpiresAt: now + LEASE_MS });
}

async function reserveFor(store: Store, accountId: string, instanceId: string, tokens: number) {
  const reservationId = newId();
  const outcome = await store.credits.reserve({ accountId, tokens, minimumAvailableTokens: 0, at: T0, expiresAt: T0 + DAY_MS, reservationId, instanceId });
  expect(outcome.ok).toBe(true);
  return reservationId;
}

function claim(instanceId: string, now: number, overrides: Partial<IdempotencyClaimRequest> = {}): IdempotencyClaimRequest {
  return {
    accountId: 'account-a',
    idempotencyKey: 'retry-me',
    operation: 'execute_composition',
    requestHash: 'hash',
    now,
    expiresAt: T0 + DAY_MS,
    instanceId,
    charging: accruedCharging(now),
    mayReleaseLapsed: true,
    ...overrides,
  };
}

function slot(instanceId: string, keyId = 'key-1', now = T0) {
  return { slotId: newId(), keyId, instanceId, maxInFlight: 3, now };
}

describeEachEngine('process leases', (engine, definition) => {
  it('retiring a process gives its reservations back and frees its slots and unfinished claims, and nothing of another process', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 10_000);
    await startInstance(store, 'gone');
    await startInstance(store, 'staying');
    await reserveFor(store, account.id, 'gone', 3_000);
    await reserveFor(store, account.id, 'gone', 1_000);
    const kept = await reserveFor(store, account.id, 'staying', 500);
    expect(await store.executionSlots.acquire(slot('gone'))).toBe(true);
    expect(await store.executionSlots.acquire(slot('staying'))).toBe(true);
    expect(await store.idempotency.claim(claim('gone', T0))).toEqual({ kind: 'claimed' });
    await store.idempotency.claim(claim('gone', T0, { idempotencyKey: 'finished' }));
    await store.idempotency.complete({ accountId: 'account-a', idempotencyKey: 'finished', instanceId: 'gone', status: 200, body: { data: 1 } });

    await store.instances.retire('gone', accruedCharging(T0));

    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 10_000, reservedTokens: 500 });
    expect(await store.executionSlots.count({ keyId: 'key-1', now: T0 })).toBe(1);
    expect(await store.idempotency.claim(claim('staying', T0 + 1))).toEqual({ kind: 'claimed' });
    expect(await store.idempotency.claim(claim('staying', T0 + 1, { idempotencyKey: 'finished' }))).toEqual({ kind: 'replay', status: 200, body: { data: 1 } });
    // The surviving process's reservation still settles normally.
    expect((await store.credits.settle({ reservationId: kept, chargeTokens: 400, reference: null, at: T0, entryId: newId() })).ok).toBe(true);
  });

  it('retiring a process charges what its reservations accrued (a run cut off with it) and gives back the rest', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 10_000);
    await startInstance(store, 'gone');
    const run = await reserveFor(store, account.id, 'gone', 3_000);
    await reserveFor(store, account.id, 'gone', 1_000);
    for (const chargedTokens of [400, 250]) {
      expect(await store.credits.accrue({ reservationId: run, usage: usageRecord(account.id, { chargedTokens }) })).toBe(true);
    }
    await store.instances.retire('gone', accruedCharging(T0));
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 9_350, reservedTokens: 0 });
    const charges = (await store.credits.ledger(account.id)).filter((entry) => entry.kind === 'usage');
    expect(charges.map((entry) => [entry.deltaTokens, entry.balanceAfterTokens, entry.createdAt, entry.reference])).toEqual([
      [-650, 9_350, T0, 'usage:accrued'],
    ]);
    expect(charges[0]?.id, 'an entry id of its own, ordered as written').not.toBe(run);
    expect(await store.usage.listByAccount(account.id), 'the calls keep their records').toHaveLength(2);
  });

  it('retireExpired retires exactly the processes whose lease ran out', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 10_000);
    await startInstance(store, 'crashed', T0);
    await startInstance(store, 'alive', T0 + LEASE_MS);
    await reserveFor(store, account.id, 'crashed', 2_000);
    await reserveFor(store, account.id, 'alive', 1_000);
    expect(await store.instances.retireExpired(accruedCharging(T0 + LEASE_MS - 1))).toBe(0);
    expect(await store.instances.retireExpired(accruedCharging(T0 + LEASE_MS))).toBe(1);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 10_000, reservedTokens: 1_000 });
    expect(await store.instances.retireExpired(accruedCharging(T0 + LEASE_MS))).toBe(0);
  });

  it('a renewed lease keeps a process alive past its first expiry', async () => {
    const { store } = engine();
    await startInstance(store, 'renewing', T0);
    await startInstance(store, 'renewing', T0 + LEASE_MS / 2);
    expect(await store.instances.retireExpired(accruedCharging(T0 + LEASE_MS))).toBe(0);
  });

  it('a retry finds the claim of a live process in progress, and claims the key once that process is gone, releasing its reservation', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 10_000);
    await startInstance(store, 'first');
    await startInstance(store, 'second', T0 + 2 * LEASE_MS);
    expect(await store.idempotency.claim(claim('first', T0))).toEqual({ kind: 'claimed' });
    await reserveFor(store, account.id, 'first', 4_000);

    expect(await store.idempotency.claim(claim('second', T0 + 1_000))).toEqual({ kind: 'in_progress' });
    // Killed: 'first' never renews, and its lease runs out. A caller not yet settled (just started,
    // or just back from an outage) cannot tell that from a live process yet to renew: it waits.
    expect(await store.idempotency.claim(claim('second', T0 + LEASE_MS + 1, { mayReleaseLapsed: false }))).toEqual({ kind: 'in_progress' });
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 10_000, reservedTokens: 4_000 });
    expect(await store.idempotency.claim(claim('second', T0 + LEASE_MS + 1))).toEqual({ kind: 'claimed' });
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 10_000, reservedTokens: 0 });
    // The retry holds the key now: a third attempt waits for it.
    expect(await store.idempotency.claim(claim('second', T0 + LEASE_MS + 2))).toEqual({ kind: 'in_progress' });
  });

  it('a key holds at most maxInFlight slots; releasing one frees it', async () => {
    const { store } = engine();
    await startInstance(store, 'p');
    const taken = [slot('p'), slot('p'), slot('p')];
    for (const request of taken) expect(await store.executionSlots.acquire(request)).toBe(true);
    expect(await store.executionSlots.acquire(slot('p'))).toBe(false);
    expect(await store.executionSlots.acquire(slot('p', 'key-2'))).toBe(true);
    await store.executionSlots.release(taken[0]?.slotId ?? '');
    expect(await store.executionSlots.acquire(slot('p'))).toBe(true);
    expect(await store.executionSlots.count({ keyId: 'key-1', now: T0 })).toBe(3);
  });

  it('slots of a process whose lease ran out do not count', async () => {
    const { store } = engine();
    await startInstance(store, 'crashed', T0);
    await startInstance(store, 'alive', T0 + MINUTE_MS);
    for (let index = 0; index < 3; index++) expect(await store.executionSlots.acquire(slot('crashed'))).toBe(true);
    const later = T0 + LEASE_MS + 1;
    expect(await store.executionSlots.count({ keyId: 'key-1', now: later })).toBe(0);
    expect(await store.executionSlots.acquire(slot('alive', 'key-1', later))).toBe(true);
  });

  it.runIf(definition.shared)('concurrent acquisitions through two connections never exceed the limit', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    await startInstance(store, 'a');
    await startInstance(other, 'b');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => (index % 2 ? other : store).executionSlots.acquire(slot(index % 2 ? 'b' : 'a'))),
    );
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(await store.executionSlots.count({ keyId: 'key-1', now: T0 })).toBe(3);
  });
});
