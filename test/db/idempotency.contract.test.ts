/**
 * Storage contract: idempotency claims. One request holds a key at a time; what it stored is
 * replayed; another request under the same key is a conflict; an abandoned or expired claim frees it.
 */
import { beforeEach, expect, it } from 'vitest';
import type { IdempotencyClaimRequest } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { accruedCharging, DAY_MS, INSTANCE_ID, T0 } from './fixtures.js';

function claimRequest(overrides: Partial<IdempotencyClaimRequest> = {}): IdempotencyClaimRequest {
  return {
    accountId: 'account-a',
    idempotencyKey: 'key-1',
    operation: 'execute_workflow',
    requestHash: 'hash-1',
    now: T0,
    expiresAt: T0 + DAY_MS,
    instanceId: INSTANCE_ID,
    charging: accruedCharging(T0),
    mayReleaseLapsed: true,
    ...overrides,
  };
}

describeEachEngine('idempotency', (engine, definition) => {
  // The claims below are held by a live process, as a running request's are.
  beforeEach(() => engine().store.instances.renew({ id: INSTANCE_ID, now: T0, leaseExpiresAt: T0 + 2 * DAY_MS }));

  it('a claim is exclusive: of two claims of one key, one is claimed and the other in progress', async () => {
    const { store } = engine();
    const claims = await Promise.all([store.idempotency.claim(claimRequest()), store.idempotency.claim(claimRequest())]);
    expect(claims.map((claim) => claim.kind).sort()).toEqual(['claimed', 'in_progress']);
  });

  it.runIf(definition.shared)('a claim is exclusive across two connections', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const claims = await Promise.all([store.idempotency.claim(claimRequest()), other.idempotency.claim(claimRequest())]);
    expect(claims.map((claim) => claim.kind).sort()).toEqual(['claimed', 'in_progress']);
  });

  it('after complete, the same request replays the stored response', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest());
    await store.idempotency.complete({
      accountId: 'account-a',
      idempotencyKey: 'key-1',
      instanceId: INSTANCE_ID,
      status: 201,
      body: { data: { id: 'x', nested: [1, 'two'] } },
    });
    expect(await store.idempotency.claim(claimRequest({ now: T0 + 1 }))).toEqual({
      kind: 'replay',
      status: 201,
      body: { data: { id: 'x', nested: [1, 'two'] } },
    });
  });

  it('another request body or operation under a held key is a conflict, naming what the key was used for', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest());
    const usedFor = { kind: 'conflict', operation: 'execute_workflow', requestHash: 'hash-1' };
    expect(await store.idempotency.claim(claimRequest({ requestHash: 'hash-2' }))).toEqual(usedFor);
    expect(await store.idempotency.claim(claimRequest({ operation: 'execute_persona' }))).toEqual(usedFor);
  });

  it('abandon frees the key for the next claim', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest());
    await store.idempotency.abandon({ accountId: 'account-a', idempotencyKey: 'key-1', instanceId: INSTANCE_ID });
    expect(await store.idempotency.claim(claimRequest({ requestHash: 'hash-2' }))).toEqual({ kind: 'claimed' });
  });

  it('complete and abandon end only a claim that is still the writing process’s (regression: a late write undid a takeover)', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest());
    // Another process took the key over (this one's lease ran out): a late write of the first one changes nothing.
    await store.idempotency.claim(claimRequest({ now: T0 + DAY_MS + 1, expiresAt: T0 + 2 * DAY_MS, instanceId: 'other-instance' }));
    await store.idempotency.abandon({ accountId: 'account-a', idempotencyKey: 'key-1', instanceId: INSTANCE_ID });
    await store.idempotency.complete({ accountId: 'account-a', idempotencyKey: 'key-1', instanceId: 'other-instance', status: 200, body: { fresh: true } });
    await store.idempotency.complete({ accountId: 'account-a', idempotencyKey: 'key-1', instanceId: INSTANCE_ID, status: 200, body: { stale: true } });
    expect(await store.idempotency.claim(claimRequest({ now: T0 + DAY_MS + 3, expiresAt: T0 + 2 * DAY_MS, instanceId: 'third' }))).toEqual({
      kind: 'replay',
      status: 200,
      body: { fresh: true },
    });
  });

  it('keys are scoped per account', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest());
    expect(await store.idempotency.claim(claimRequest({ accountId: 'account-b' }))).toEqual({ kind: 'claimed' });
  });

  it('an expired claim is claimed afresh, and deleteExpired removes only expired records', async () => {
    const { store } = engine();
    await store.idempotency.claim(claimRequest({ expiresAt: T0 + 10 }));
    await store.idempotency.claim(claimRequest({ idempotencyKey: 'key-2', expiresAt: T0 + DAY_MS }));
    expect(await store.idempotency.claim(claimRequest({ requestHash: 'hash-2', now: T0 + 10, expiresAt: T0 + 20 }))).toEqual({ kind: 'claimed' });
    expect(await store.idempotency.deleteExpired(T0 + 30)).toBe(1);
    expect(await store.idempotency.claim(claimRequest({ idempotencyKey: 'key-2', now: T0 + 30 }))).toEqual({ kind: 'in_progress' });
  });
});
