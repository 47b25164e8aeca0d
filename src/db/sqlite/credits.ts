import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { PorchDatabase } from '../open-database.js';
import { creditBalances, creditLedger, creditReservations, usageRecords } from '../schema.js';
import type { CreditBalance, CreditStore, SettleOutcome, UsageRepository } from '../store.js';
import { newId } from '../../core/ids.js';

const EMPTY_BALANCE: CreditBalance = { balanceTokens: 0, reservedTokens: 0 };

/**
 * The ledger. Every check-and-update runs in one IMMEDIATE transaction, so concurrent executions
 * (and two processes on one file) can never overdraw: a reservation is only granted while
 * `balance - reserved` covers it, and a settlement never takes the balance below what other open
 * reservations hold.
 */
export function createCreditStore(db: PorchDatabase): CreditStore {
  const readBalance = db
    .select({ balanceTokens: creditBalances.balanceTokens, reservedTokens: creditBalances.reservedTokens })
    .from(creditBalances)
    .where(eq(creditBalances.accountId, sql.placeholder('accountId')))
    .prepare();
  const balanceOf = (accountId: string): CreditBalance => readBalance.get({ accountId }) ?? EMPTY_BALANCE;

  const writeBalance = (accountId: string, balance: CreditBalance, at: number) => {
    db.insert(creditBalances)
      .values({ accountId, ...balance, updatedAt: at })
      .onConflictDoUpdate({ target: creditBalances.accountId, set: { ...balance, updatedAt: at } })
      .run();
  };

  const releaseInside = (reservationId: string): CreditBalance | null => {
    const reservation = db.select().from(creditReservations).where(eq(creditReservations.id, reservationId)).get();
    if (!reservation) return null;
    db.delete(creditReservations).where(eq(creditReservations.id, reservationId)).run();
    const current = balanceOf(reservation.accountId);
    const next = { ...current, reservedTokens: Math.max(0, current.reservedTokens - reservation.tokens) };
    db.update(creditBalances).set(next).where(eq(creditBalances.accountId, reservation.accountId)).run();
    return next;
  };

  return {
    async balance(accountId) {
      return balanceOf(accountId);
    },

    async grant(accountId, tokens, reference, at) {
      return db.transaction(
        () => {
          const current = balanceOf(accountId);
          const next = { ...current, balanceTokens: current.balanceTokens + tokens };
          writeBalance(accountId, next, at);
          db.insert(creditLedger)
            .values({ id: newId(), accountId, kind: 'grant', deltaTokens: tokens, balanceAfterTokens: next.balanceTokens, reference, createdAt: at })
            .run();
          return next;
        },
        { behavior: 'immediate' },
      );
    },

    async reserve(accountId, tokens, minimumAvailableTokens, at, expiresAt) {
      return db.transaction(
        () => {
          const current = balanceOf(accountId);
          const available = current.balanceTokens - current.reservedTokens;
          if (available < Math.max(tokens, minimumAvailableTokens)) return { ok: false as const, balance: current };
          const reservationId = newId();
          db.insert(creditReservations).values({ id: reservationId, accountId, tokens, createdAt: at, expiresAt }).run();
          const next = { ...current, reservedTokens: current.reservedTokens + tokens };
          writeBalance(accountId, next, at);
          return { ok: true as const, reservationId, balance: next };
        },
        { behavior: 'immediate' },
      );
    },

    async settle(reservationId, chargeTokens, reference, at): Promise<SettleOutcome> {
      return db.transaction(
        () => {
          const reservation = db.select().from(creditReservations).where(eq(creditReservations.id, reservationId)).get();
          if (!reservation) return { ok: false as const, reason: 'unknown_reservation' as const, balance: EMPTY_BALANCE };
          const released = releaseInside(reservationId) ?? EMPTY_BALANCE;
          if (released.balanceTokens - chargeTokens < released.reservedTokens) {
            return { ok: false as const, reason: 'insufficient_balance' as const, balance: released };
          }
          if (chargeTokens === 0) return { ok: true as const, balance: released };
          const next = { ...released, balanceTokens: released.balanceTokens - chargeTokens };
          writeBalance(reservation.accountId, next, at);
          db.insert(creditLedger)
            .values({
              id: newId(),
              accountId: reservation.accountId,
              kind: 'usage',
              deltaTokens: -chargeTokens,
              balanceAfterTokens: next.balanceTokens,
              reference,
              createdAt: at,
            })
            .run();
          return { ok: true as const, balance: next };
        },
        { behavior: 'immediate' },
      );
    },

    async release(reservationId) {
      db.transaction(() => void releaseInside(reservationId), { behavior: 'immediate' });
    },

    async releaseExpired(at) {
      return db.transaction(
        () => {
          const expired = db.select({ id: creditReservations.id }).from(creditReservations).where(lt(creditReservations.expiresAt, at)).all();
          for (const { id } of expired) releaseInside(id);
          return expired.length;
        },
        { behavior: 'immediate' },
      );
    },

    async ledger(accountId) {
      return db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId)).orderBy(asc(creditLedger.id)).all();
    },
  };
}

export function createUsageRepository(db: PorchDatabase): UsageRepository {
  return {
    async insert(record) {
      db.insert(usageRecords).values(record).run();
    },
    async listByAccount(accountId) {
      return db.select().from(usageRecords).where(and(eq(usageRecords.accountId, accountId))).orderBy(asc(usageRecords.id)).all();
    },
  };
}
