/**
 * Storage contract: credits. Balances never go below what open reservations hold, whichever
 * connection reserves, and a charge lands together with its usage record or not at all.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { AccruedCharging, CreditRepository, Store, UsageRecord } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { accruedCharging, createAccount, INSTANCE_ID, MINUTE_MS, T0, usageRecord } from './fixtures.js';

function reserve(credits: CreditRepository, accountId: string, tokens: number, options: { minimumAvailableTokens?: number; expiresAt?: number } = {}) {
  const reservationId = newId();
  return credits
    .reserve({
      accountId,
      tokens,
      minimumAvailableTokens: options.minimumAvailableTokens ?? 0,
      at: T0,
      expiresAt: options.expiresAt ?? T0 + MINUTE_MS,
      reservationId,
      instanceId: INSTANCE_ID,
    })
    .then((outcome) => ({ ...outcome, reservationId }));
}

function settle(store: Store, reservationId: string, chargeTokens: number, usage?: UsageRecord) {
  return store.credits.settle({ reservationId, chargeTokens, reference: 'usage:test', at: T0, entryId: newId(), usage });
}

describeEachEngine('credits', (engine, definition) => {
  it('a reservation never overdraws under concurrency', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => reserve(store.credits, account.id, 100)));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(10);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 1_000 });
  });

  it.runIf(definition.shared)('reservations through two connections to one database never overdraw together', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const { account } = await createAccount(store, 1_000);
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => reserve((index % 2 === 0 ? store : other).credits, account.id, 70)));
    const reserved = outcomes.filter((outcome) => outcome.ok).length * 70;
    expect(reserved).toBeLessThanOrEqual(1_000);
    expect(reserved, 'every reservation that fits is granted').toBeGreaterThan(1_000 - 70);
    expect(await other.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: reserved });
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: reserved });
  });

  it('refuses a reservation when the available balance is below the minimum, however small the reservation', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 500);
    const refused = await reserve(store.credits, account.id, 10, { minimumAvailableTokens: 1_000 });
    expect(refused).toMatchObject({ ok: false, balance: { balanceTokens: 500, reservedTokens: 0 } });
    expect((await reserve(store.credits, account.id, 10, { minimumAvailableTokens: 500 })).ok).toBe(true);
  });

  it('an account without a balance row has an empty balance and cannot reserve', async () => {
    const { store } = engine();
    expect(await store.credits.balance(newId())).toEqual({ balanceTokens: 0, reservedTokens: 0 });
    expect((await reserve(store.credits, newId(), 1)).ok).toBe(false);
  });

  it('settle charges, closes the reservation and writes its usage row together', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const reservation = await reserve(store.credits, account.id, 400);
    const usage = usageRecord(account.id, { chargedTokens: 250 });
    expect(await settle(store, reservation.reservationId, 250, usage)).toEqual({ ok: true, balance: { balanceTokens: 750, reservedTokens: 0 } });
    expect(await store.usage.listByAccount(account.id)).toEqual([usage]);
    const ledger = await store.credits.ledger(account.id);
    expect(ledger.map((entry) => [entry.kind, entry.deltaTokens, entry.balanceAfterTokens, entry.reference])).toEqual([
      ['grant', 1_000, 1_000, 'account created'],
      ['usage', -250, 750, 'usage:test'],
    ]);
  });

  it('markFailed marks a succeeded usage row failed, keeps its charge, and leaves other rows as they are', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const answered = usageRecord(account.id, { chargedTokens: 250 });
    const billingFailed = usageRecord(account.id, { status: 'billing_failed', chargedTokens: 0 });
    await store.usage.insert(answered);
    await store.usage.insert(billingFailed);
    await store.usage.markFailed(answered.id);
    await store.usage.markFailed(billingFailed.id);
    await store.usage.markFailed(newId());
    const rows = await store.usage.listByAccount(account.id);
    expect(rows.find((row) => row.id === answered.id)).toEqual({ ...answered, status: 'failed' });
    expect(rows.find((row) => row.id === billingFailed.id)).toEqual(billingFailed);
  });

  it('a refused settle writes neither the charge nor the usage row, and releases the reservation', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const first = await reserve(store.credits, account.id, 500);
    await reserve(store.credits, account.id, 500);
    // The other open reservation still holds 500, so a charge of 800 would overdraw.
    const outcome = await settle(store, first.reservationId, 800, usageRecord(account.id));
    expect(outcome).toEqual({ ok: false, reason: 'insufficient_balance', balance: { balanceTokens: 1_000, reservedTokens: 500 } });
    expect(await store.usage.listByAccount(account.id)).toEqual([]);
    expect((await store.credits.ledger(account.id)).map((entry) => entry.kind)).toEqual(['grant']);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 500 });
  });

  it('settles a reservation once: a second settle of it is an unknown reservation and charges nothing', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const reservation = await reserve(store.credits, account.id, 100);
    expect((await settle(store, reservation.reservationId, 100)).ok).toBe(true);
    expect(await settle(store, reservation.reservationId, 100, usageRecord(account.id))).toMatchObject({ ok: false, reason: 'unknown_reservation' });
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 900, reservedTokens: 0 });
    expect(await store.usage.listByAccount(account.id)).toEqual([]);
  });

  it('a zero charge closes the reservation and writes the usage row but no ledger entry', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const reservation = await reserve(store.credits, account.id, 100);
    const usage = usageRecord(account.id, { byok: true, chargedTokens: 0 });
    expect(await settle(store, reservation.reservationId, 0, usage)).toEqual({ ok: true, balance: { balanceTokens: 1_000, reservedTokens: 0 } });
    expect(await store.usage.listByAccount(account.id)).toEqual([usage]);
    expect((await store.credits.ledger(account.id)).map((entry) => entry.kind)).toEqual(['grant']);
  });

  it('release gives the reserved tokens back; releasing again or an unknown id changes nothing', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const kept = await reserve(store.credits, account.id, 300);
    const released = await reserve(store.credits, account.id, 200);
    await store.credits.release(released.reservationId, accruedCharging(T0 + 2 * MINUTE_MS));
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 300 });
    await store.credits.release(released.reservationId, accruedCharging(T0 + 2 * MINUTE_MS));
    await store.credits.release(newId(), accruedCharging(T0 + 2 * MINUTE_MS));
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 300 });
    expect((await settle(store, kept.reservationId, 300)).ok).toBe(true);
  });

  it('releaseExpired releases only the reservations past their expiry, and counts them', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    await reserve(store.credits, account.id, 100, { expiresAt: T0 + MINUTE_MS });
    await reserve(store.credits, account.id, 200, { expiresAt: T0 + 2 * MINUTE_MS });
    const live = await reserve(store.credits, account.id, 400, { expiresAt: T0 + 10 * MINUTE_MS });
    expect(await store.credits.releaseExpired(accruedCharging(T0 + 5 * MINUTE_MS))).toBe(2);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 400 });
    expect(await store.credits.releaseExpired(accruedCharging(T0 + 5 * MINUTE_MS))).toBe(0);
    expect((await settle(store, live.reservationId, 400)).ok, 'a live reservation can still be settled').toBe(true);
  });

  it('extend grows an open reservation only while the available balance covers it, and never a closed one', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const run = await reserve(store.credits, account.id, 300);
    await reserve(store.credits, account.id, 200);
    expect(await store.credits.extend({ reservationId: run.reservationId, tokens: 400, at: T0 })).toEqual({
      ok: true,
      balance: { balanceTokens: 1_000, reservedTokens: 900 },
    });
    expect(await store.credits.extend({ reservationId: run.reservationId, tokens: 101, at: T0 })).toMatchObject({ ok: false });
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 900 });
    await store.credits.release(run.reservationId, accruedCharging(T0 + 2 * MINUTE_MS));
    expect(await store.credits.balance(account.id), 'the grown reservation goes back whole').toEqual({ balanceTokens: 1_000, reservedTokens: 200 });
    expect((await store.credits.extend({ reservationId: run.reservationId, tokens: 1, at: T0 })).ok).toBe(false);
    expect((await store.credits.extend({ reservationId: newId(), tokens: 1, at: T0 })).ok).toBe(false);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 200 });
  });

  it('extensions through concurrent calls never overdraw', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const run = await reserve(store.credits, account.id, 100);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.credits.extend({ reservationId: run.reservationId, tokens: 100, at: T0 })));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(9);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 1_000, reservedTokens: 1_000 });
  });

  it("what was accrued under a reservation is charged once by its settlement, with the settlement's own record and charge", async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const run = await reserve(store.credits, account.id, 500);
    const calls = [usageRecord(account.id, { chargedTokens: 120, nodeId: 'a' }), usageRecord(account.id, { chargedTokens: 80, nodeId: 'b' })];
    for (const usage of calls) expect(await store.credits.accrue({ reservationId: run.reservationId, usage })).toBe(true);
    expect(await store.credits.balance(account.id), 'accruing charges nothing yet').toEqual({ balanceTokens: 1_000, reservedTokens: 500 });
    const runRecord = usageRecord(account.id, { chargedTokens: 200 });
    expect(await settle(store, run.reservationId, 0, runRecord)).toEqual({ ok: true, balance: { balanceTokens: 800, reservedTokens: 0 } });
    expect(await store.usage.listByAccount(account.id)).toEqual([...calls, runRecord]);
    const ledger = await store.credits.ledger(account.id);
    expect(ledger.map((entry) => [entry.kind, entry.deltaTokens, entry.balanceAfterTokens])).toEqual([
      ['grant', 1_000, 1_000],
      ['usage', -200, 800],
    ]);
    expect(await store.credits.accrue({ reservationId: run.reservationId, usage: usageRecord(account.id) }), 'nothing accrues under a closed reservation').toBe(
      false,
    );
    expect(await store.usage.listByAccount(account.id)).toHaveLength(3);
    await store.credits.release(run.reservationId, accruedCharging(T0 + 2 * MINUTE_MS));
    expect((await store.credits.balance(account.id)).balanceTokens, 'closing again charges nothing twice').toBe(800);
  });

  it('a reservation released or expired with accrued calls charges them and gives back the rest (a run cut off by a crash)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    const released = await reserve(store.credits, account.id, 300);
    const expired = await reserve(store.credits, account.id, 400, { expiresAt: T0 + MINUTE_MS });
    await store.credits.accrue({ reservationId: released.reservationId, usage: usageRecord(account.id, { chargedTokens: 50 }) });
    await store.credits.accrue({ reservationId: expired.reservationId, usage: usageRecord(account.id, { chargedTokens: 70 }) });
    await store.credits.accrue({ reservationId: expired.reservationId, usage: usageRecord(account.id, { chargedTokens: 30 }) });
    await store.credits.release(released.reservationId, accruedCharging(T0 + 2 * MINUTE_MS));
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 950, reservedTokens: 400 });
    expect(await store.credits.releaseExpired(accruedCharging(T0 + 2 * MINUTE_MS))).toBe(1);
    expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 850, reservedTokens: 0 });
    const ledger = await store.credits.ledger(account.id);
    const charges = ledger.filter((entry) => entry.kind === 'usage');
    // Each under an entry id of its own and the time it was written, in the order written
    // (regression: under its reservation's older id and its calls' time, so out of order).
    expect(charges.map((entry) => [entry.deltaTokens, entry.balanceAfterTokens, entry.createdAt])).toEqual([
      [-50, 950, T0 + 2 * MINUTE_MS],
      [-100, 850, T0 + 2 * MINUTE_MS],
    ]);
    expect(charges.map((entry) => entry.id)).not.toContain(released.reservationId);
    expect(charges.every((entry) => entry.reference === 'usage:accrued')).toBe(true);
  });

  it('an accrued charge that takes the balance across the threshold writes credits.low, as a settlement does (regression: none after a crash)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 1_000);
    await store.credits.setLowBalanceThreshold({ accountId: account.id, thresholdTokens: 900, at: T0 });
    const events: Array<{ balanceTokens: number; thresholdTokens: number }> = [];
    const lowBalanceEvent: NonNullable<AccruedCharging['lowBalanceEvent']> = (crossing) => {
      events.push({ balanceTokens: crossing.balanceTokens, thresholdTokens: crossing.thresholdTokens });
      return { id: newId(), type: 'credits.low', accountId: crossing.accountId, payload: '{}', createdAt: crossing.at };
    };
    const first = await reserve(store.credits, account.id, 300);
    await store.credits.accrue({ reservationId: first.reservationId, usage: usageRecord(account.id, { chargedTokens: 150 }) });
    await store.credits.release(first.reservationId, accruedCharging(T0 + MINUTE_MS, lowBalanceEvent));
    expect(events).toEqual([{ balanceTokens: 850, thresholdTokens: 900 }]);
    // Already below: the next accrued charge stays quiet.
    const second = await reserve(store.credits, account.id, 300, { expiresAt: T0 + MINUTE_MS });
    await store.credits.accrue({ reservationId: second.reservationId, usage: usageRecord(account.id, { chargedTokens: 50 }) });
    await store.credits.releaseExpired(accruedCharging(T0 + 2 * MINUTE_MS, lowBalanceEvent));
    expect(events).toHaveLength(1);
  });

  it('grant adds to the balance and writes a ledger entry under the given id', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 0);
    expect(await store.credits.ledger(account.id), 'no entry for an account created with nothing').toEqual([]);
    const entryId = newId();
    expect(await store.credits.grant({ accountId: account.id, tokens: 5_000, reference: 'operator grant', at: T0, entryId })).toEqual({
      balanceTokens: 5_000,
      reservedTokens: 0,
    });
    expect(await store.credits.ledger(account.id)).toEqual([
      { id: entryId, accountId: account.id, kind: 'grant', deltaTokens: 5_000, balanceAfterTokens: 5_000, reference: 'operator grant', createdAt: T0 },
    ]);
  });

  it('lists entries in the order they were written when an entry made earlier is written later (regression: its balance listed under the older id)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store, 0);
    const madeFirst = newId();
    const madeSecond = newId();
    // The entry whose id was made second commits first, as when two processes race on one account.
    await store.credits.grant({ accountId: account.id, tokens: 100, reference: 'second', at: T0, entryId: madeSecond });
    await store.credits.grant({ accountId: account.id, tokens: 10, reference: 'first', at: T0, entryId: madeFirst });
    const ledger = await store.credits.ledger(account.id);
    expect(ledger.map((entry) => [entry.reference, entry.balanceAfterTokens])).toEqual([
      ['second', 100],
      ['first', 110],
    ]);
    expect(ledger[0]?.id).toBe(madeSecond);
    expect(ledger[1]?.id, "written above the account's highest entry").not.toBe(madeFirst);
    expect((await store.credits.ledgerPage({ accountId: account.id, page: { limit: 1, cursor: ledger[1]?.id } })).map((entry) => entry.reference)).toEqual([
      'second',
    ]);
  });

  for (const path of ['release', 'releaseExpired', 'retire'] as const) {
    it(`writes an accrued charge (${path}) above the account's highest entry (regression: under the id its process made, below an entry committed before)`, async () => {
      const { store } = engine();
      const { account } = await createAccount(store, 0);
      const madeFirst = newId();
      const madeSecond = newId();
      await store.credits.grant({ accountId: account.id, tokens: 1_000, reference: 'grant', at: T0, entryId: madeSecond });
      const { reservationId } = await reserve(store.credits, account.id, 100);
      await store.credits.accrue({ reservationId, usage: usageRecord(account.id, { chargedTokens: 30 }) });
      // The process closing the reservation made its id before the grant's (or its clock is behind).
      const charging = { at: T0 + 2 * MINUTE_MS, newEntryId: () => madeFirst, lowBalanceEvent: undefined };
      if (path === 'release') await store.credits.release(reservationId, charging);
      else if (path === 'releaseExpired') await store.credits.releaseExpired(charging);
      else await store.instances.retire(INSTANCE_ID, charging);
      const ledger = await store.credits.ledger(account.id);
      expect(ledger.map((entry) => [entry.reference, entry.balanceAfterTokens])).toEqual([
        ['grant', 1_000],
        ['usage:accrued', 970],
      ]);
    });
  }

  it.runIf(definition.shared)('keeps each balance after the one listed before it, with charges racing through two connections', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const { account } = await createAccount(store, 10_000);
    const reservations = await Promise.all(Array.from({ length: 24 }, () => reserve(store.credits, account.id, 100)));
    await Promise.all(reservations.map((reservation, index) => settle(index % 2 === 0 ? store : other, reservation.reservationId, 10 + index)));
    const ledger = await store.credits.ledger(account.id);
    expect(ledger).toHaveLength(25);
    let balance = 0;
    for (const entry of ledger) {
      balance += entry.deltaTokens;
      expect(entry.balanceAfterTokens, `entry ${entry.reference} follows the one listed before it`).toBe(balance);
    }
  });

  it('usage records written alone are listed for their account only, oldest first', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: other } = await createAccount(store);
    const first = usageRecord(account.id, { status: 'failed', chargedTokens: 0 });
    const second = usageRecord(account.id, { status: 'billing_failed' });
    await store.usage.insert(first);
    await store.usage.insert(second);
    await store.usage.insert(usageRecord(other.id));
    expect(await store.usage.listByAccount(account.id)).toEqual([first, second]);
  });
});
