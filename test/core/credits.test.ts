import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESERVATION_TTL_MS } from '../../src/core/credits/credits.js';
import { DEFAULT_LEASE_MS } from '../../src/core/instance.js';
import type { UsageRecord } from '../../src/db/store.js';
import type { PorchError } from '../../src/core/errors.js';
import { usageRecord } from '../db/fixtures.js';
import { createCoreHarness, type CoreHarness } from '../helpers/core-harness.js';

let harness: CoreHarness;
let accountId: string;
beforeEach(async () => {
  harness = await createCoreHarness();
  ({ accountId } = await harness.createAccount({ credits: 10 }));
});
afterEach(() => harness.close());

describe('credits ledger', () => {
  it('reserves, settles the actual usage and records it in the ledger', async () => {
    const credits = harness.core.credits;
    const reservation = await credits.reserve(accountId, 3_000);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 10_000, reservedTokens: 3_000 });
    expect(await credits.remainingCredits(accountId)).toBe(7);
    await credits.settle(reservation, 1_234, 'usage:test');
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 8_766, reservedTokens: 0 });
    const ledger = await harness.store.credits.ledger(accountId);
    expect(ledger.map((entry) => [entry.kind, entry.deltaTokens, entry.balanceAfterTokens])).toEqual([
      ['grant', 10_000, 10_000],
      ['usage', -1_234, 8_766],
    ]);
  });

  it('refuses a reservation the available balance cannot cover, stating available and required credits', async () => {
    await harness.core.credits.reserve(accountId, 9_500);
    const error = (await harness.core.credits.reserve(accountId, 1_000).catch((err: unknown) => err)) as PorchError;
    expect(error.code).toBe('INSUFFICIENT_CREDITS');
    expect(error.message).toBe('Insufficient credits: 0.5 available, 1 required to start this execution.');
  });

  it('requires the minimum balance even for a tiny estimate', async () => {
    const poor = await harness.createAccount({ credits: 0.5 });
    await expect(harness.core.credits.reserve(poor.accountId, 10)).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });
  });

  it('never drives the balance below zero under concurrent reservations', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 50 }, () => harness.core.credits.reserve(accountId, 1_000)));
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(10);
    for (const attempt of attempts) if (attempt.status === 'fulfilled') await harness.core.credits.settle(attempt.value, 1_000, 'usage');
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 0, reservedTokens: 0 });
  });

  it('answers BILLING_FAILED and charges nothing when usage outgrew what the balance can cover', async () => {
    const reservation = await harness.core.credits.reserve(accountId, 2_000);
    const other = await harness.core.credits.reserve(accountId, 7_000);
    await expect(harness.core.credits.settle(reservation, 4_000, 'usage')).rejects.toMatchObject({ code: 'BILLING_FAILED' });
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 10_000, reservedTokens: 7_000 });
    await harness.core.credits.release(other);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 10_000, reservedTokens: 0 });
  });

  it('writes a usage record with the charge it pays for, and none when the charge is refused', async () => {
    const usage = (id: string): UsageRecord =>
      usageRecord(accountId, { id, inputTokens: 1_000, outputTokens: 234, totalTokens: 1_234, chargedTokens: 1_234, createdAt: harness.clock.now() });
    const paid = await harness.core.credits.reserve(accountId, 2_000);
    await harness.core.credits.settle(paid, 1_234, 'usage', usage('paid'));
    const refused = await harness.core.credits.reserve(accountId, 2_000);
    await harness.core.credits.reserve(accountId, 6_000);
    await expect(harness.core.credits.settle(refused, 4_000, 'usage', usage('refused'))).rejects.toMatchObject({ code: 'BILLING_FAILED' });
    const records = await harness.store.usage.listByAccount(accountId);
    expect(records.map((record) => [record.id, record.chargedTokens, record.byok])).toEqual([['paid', 1_234, false]]);
  });

  it('releases reservations left open by a crash once they expire', async () => {
    await harness.core.credits.reserve(accountId, 4_000);
    expect(await harness.core.credits.releaseExpired()).toBe(0);
    harness.clock.advance(RESERVATION_TTL_MS + 1);
    expect(await harness.core.credits.releaseExpired()).toBe(1);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 10_000, reservedTokens: 0 });
  });

  it('grants only positive amounts of whole tokens', async () => {
    await expect(harness.core.credits.grant(accountId, -5)).rejects.toThrow(/must be a number of at least 0/);
    await expect(harness.core.credits.grant(accountId, 0)).rejects.toThrow(/must be more than 0/);
    await expect(harness.core.credits.grant(accountId, 0.0004)).rejects.toThrow(/at most three decimals/);
    await expect(harness.core.credits.grant(accountId, Number.NaN)).rejects.toThrow(/must be a number/);
    expect((await harness.core.credits.grant(accountId, 2.5)).balanceTokens).toBe(12_500);
  });
});

describe('a run budget (one reservation for a workflow run)', () => {
  it('covers calls made in parallel with what they need together, not each with what all of them claim (regression: parallel nodes were refused)', async () => {
    const { accountId: poorer } = await harness.createAccount({ credits: 4 });
    const budget = harness.core.credits.openRun(poorer);
    await Promise.all([budget.hold(1_032), budget.hold(1_032)]);
    expect(await harness.store.credits.balance(poorer)).toEqual({ balanceTokens: 4_000, reservedTokens: 2_064 });
    await budget.release();

    const run = harness.core.credits.openRun(accountId);
    await Promise.all([run.hold(1_032), run.hold(1_032), run.hold(1_032), run.hold(1_032)]);
    // Grown by doubling, never past what the four calls could take: 1,032 + 1,032 + 2,064.
    expect((await harness.store.credits.balance(accountId)).reservedTokens).toBe(4_128);
    await run.release();
  });

  it('refuses, of calls made in parallel, only one the balance cannot cover by itself', async () => {
    const { accountId: poorer } = await harness.createAccount({ credits: 2.5 });
    const budget = harness.core.credits.openRun(poorer);
    const outcomes = await Promise.allSettled([budget.hold(1_000), budget.hold(1_000), budget.hold(1_000)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const refusal = (outcomes[2] as PromiseRejectedResult).reason as PorchError;
    expect(refusal.message).toBe('Insufficient credits: 0.5 available, 1 required to start this execution.');
    await budget.release();
  });
});

describe('maintenance sweep', () => {
  it('returns reservations a crash left open and drops expired idempotency records', async () => {
    await harness.core.credits.reserve(accountId, 3_000);
    await harness.core.idempotency.begin(accountId, 'key-1', 'execute_persona', { input: 'x' });
    // Registered just now, this process does not yet take expired leases for dead processes'.
    expect(await harness.core.maintenance.sweep()).toEqual({
      retiredInstances: 0,
      releaseDeferredMs: DEFAULT_LEASE_MS / 3,
      requeuedRuns: 0,
      failedRuns: 0,
      releasedReservations: 0,
      expiredIdempotencyRecords: 0,
      prunedRunPayloads: 0,
      prunedDeletedVersions: 0,
      prunedWebhookPayloads: 0,
      prunedSignIns: 0,
      prunedOAuthObjects: 0,
    });
    harness.clock.advance(24 * 60 * 60 * 1000 + 1);
    // The sweeping process renews its own lease first, so what it holds is released by age, never by retiring itself.
    expect(await harness.core.maintenance.sweep()).toEqual({
      retiredInstances: 0,
      releaseDeferredMs: 0,
      requeuedRuns: 0,
      failedRuns: 0,
      releasedReservations: 1,
      expiredIdempotencyRecords: 1,
      prunedRunPayloads: 0,
      prunedDeletedVersions: 0,
      prunedWebhookPayloads: 0,
      prunedSignIns: 0,
      prunedOAuthObjects: 0,
    });
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 10_000, reservedTokens: 0 });
  });
});
