import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { immediateTransaction } from './immediate-transaction.js';
import { onFirstUse } from './on-first-use.js';
import { creditBalances, creditLedger, creditReservations, usageRecords } from './schema.js';
import { prepareWebhookEnqueue } from './webhooks.js';
import type { CreditBalance, CreditRepository, CreditReservationRequest, CreditSettlement, SettleOutcome, UsageRecord, UsageRepository } from '../store.js';
import { toAggregateRow, usageAggregateQuery, type RawAggregateRow } from '../usage-aggregates.js';

const EMPTY_BALANCE: CreditBalance = { balanceTokens: 0, reservedTokens: 0 };

/**
 * The ledger. Every check-and-update runs in one IMMEDIATE transaction, so concurrent executions
 * (and two processes on one file) can never overdraw: a reservation is only granted while
 * `balance - reserved` covers it, and a settlement never takes the balance below what other open
 * reservations hold.
 */
export function createCreditRepository(db: PorchDatabase): CreditRepository {
  const readBalance = onFirstUse(() =>
    db
      .select({ balanceTokens: creditBalances.balanceTokens, reservedTokens: creditBalances.reservedTokens })
      .from(creditBalances)
      .where(eq(creditBalances.accountId, sql.placeholder('accountId')))
      .prepare(),
  );
  const balanceOf = (accountId: string): CreditBalance => readBalance().get({ accountId }) ?? EMPTY_BALANCE;

  // Every execution runs these statements; they are prepared once rather than built per call.
  const upsertBalance = onFirstUse(() =>
    db
      .insert(creditBalances)
      .values({
        accountId: sql.placeholder('accountId'),
        balanceTokens: sql.placeholder('balanceTokens'),
        reservedTokens: sql.placeholder('reservedTokens'),
        updatedAt: sql.placeholder('updatedAt'),
      })
      .onConflictDoUpdate({
        target: creditBalances.accountId,
        set: { balanceTokens: sql`excluded.balance_tokens`, reservedTokens: sql`excluded.reserved_tokens`, updatedAt: sql`excluded.updated_at` },
      })
      .prepare(),
  );
  const readReservation = onFirstUse(() =>
    db
      .select()
      .from(creditReservations)
      .where(eq(creditReservations.id, sql.placeholder('id')))
      .prepare(),
  );
  const deleteReservation = onFirstUse(() =>
    db
      .delete(creditReservations)
      .where(eq(creditReservations.id, sql.placeholder('id')))
      .prepare(),
  );
  const insertUsage = prepareUsageInsert(db);
  const insertReservation = onFirstUse(() =>
    db
      .insert(creditReservations)
      .values({
        id: sql.placeholder('id'),
        accountId: sql.placeholder('accountId'),
        tokens: sql.placeholder('tokens'),
        createdAt: sql.placeholder('createdAt'),
        expiresAt: sql.placeholder('expiresAt'),
        instanceId: sql.placeholder('instanceId'),
      })
      .prepare(),
  );
  const insertLedger = onFirstUse(() =>
    db
      .insert(creditLedger)
      .values({
        id: sql.placeholder('id'),
        accountId: sql.placeholder('accountId'),
        kind: sql.placeholder('kind'),
        deltaTokens: sql.placeholder('deltaTokens'),
        balanceAfterTokens: sql.placeholder('balanceAfterTokens'),
        reference: sql.placeholder('reference'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  );

  const readThreshold = onFirstUse(() =>
    db
      .select({ thresholdTokens: creditBalances.lowBalanceThresholdTokens })
      .from(creditBalances)
      .where(eq(creditBalances.accountId, sql.placeholder('accountId')))
      .prepare(),
  );
  const enqueueWebhooks = prepareWebhookEnqueue(db);

  const updateReserved = onFirstUse(() =>
    db
      .update(creditBalances)
      .set({ reservedTokens: sql`${sql.placeholder('reservedTokens')}` })
      .where(eq(creditBalances.accountId, sql.placeholder('accountId')))
      .prepare(),
  );

  const writeBalance = (accountId: string, balance: CreditBalance, at: number) => {
    upsertBalance().run({ accountId, ...balance, updatedAt: at });
  };

  const releaseInside = (reservationId: string): CreditBalance | null => {
    const reservation = readReservation().get({ id: reservationId });
    if (!reservation) return null;
    deleteReservation().run({ id: reservationId });
    const current = balanceOf(reservation.accountId);
    const next = { ...current, reservedTokens: Math.max(0, current.reservedTokens - reservation.tokens) };
    updateReserved().run({ accountId: reservation.accountId, reservedTokens: next.reservedTokens });
    return next;
  };

  const reserveTokens = immediateTransaction(
    db,
    ({ accountId, tokens, minimumAvailableTokens, at, expiresAt, reservationId, instanceId }: CreditReservationRequest) => {
      const current = balanceOf(accountId);
      const available = current.balanceTokens - current.reservedTokens;
      if (available < Math.max(tokens, minimumAvailableTokens)) return { ok: false as const, balance: current };
      insertReservation().run({ id: reservationId, accountId, tokens, createdAt: at, expiresAt, instanceId });
      const next = { ...current, reservedTokens: current.reservedTokens + tokens };
      writeBalance(accountId, next, at);
      return { ok: true as const, balance: next };
    },
  );

  const settleReservation = immediateTransaction(
    db,
    ({ reservationId, chargeTokens, reference, at, entryId, usage, lowBalanceEvent }: CreditSettlement): SettleOutcome => {
      const reservation = readReservation().get({ id: reservationId });
      if (!reservation) return { ok: false as const, reason: 'unknown_reservation' as const, balance: EMPTY_BALANCE };
      const released = releaseInside(reservationId) ?? EMPTY_BALANCE;
      if (released.balanceTokens - chargeTokens < released.reservedTokens) {
        return { ok: false as const, reason: 'insufficient_balance' as const, balance: released };
      }
      if (usage !== undefined) insertUsage(usage);
      if (chargeTokens === 0) return { ok: true as const, balance: released };
      const next = { ...released, balanceTokens: released.balanceTokens - chargeTokens };
      writeBalance(reservation.accountId, next, at);
      insertLedger().run({
        id: entryId,
        accountId: reservation.accountId,
        kind: 'usage',
        deltaTokens: -chargeTokens,
        balanceAfterTokens: next.balanceTokens,
        reference,
        createdAt: at,
      });
      if (lowBalanceEvent !== undefined) {
        const thresholdTokens = readThreshold().get({ accountId: reservation.accountId })?.thresholdTokens ?? null;
        // Only the settlement that crosses the threshold reports it: a balance already below stays quiet.
        if (thresholdTokens !== null && released.balanceTokens >= thresholdTokens && next.balanceTokens < thresholdTokens) {
          enqueueWebhooks([lowBalanceEvent({ accountId: reservation.accountId, balanceTokens: next.balanceTokens, thresholdTokens, at })]);
        }
      }
      return { ok: true as const, balance: next };
    },
  );

  const releaseReservation = immediateTransaction(db, (reservationId: string) => void releaseInside(reservationId));

  return {
    async balance(accountId) {
      return balanceOf(accountId);
    },

    async lowBalanceThreshold(accountId) {
      return readThreshold().get({ accountId })?.thresholdTokens ?? null;
    },

    async setLowBalanceThreshold({ accountId, thresholdTokens, at }) {
      db.insert(creditBalances)
        .values({ accountId, balanceTokens: 0, reservedTokens: 0, updatedAt: at, lowBalanceThresholdTokens: thresholdTokens })
        .onConflictDoUpdate({ target: creditBalances.accountId, set: { lowBalanceThresholdTokens: thresholdTokens } })
        .run();
    },

    async grant({ accountId, tokens, reference, at, entryId }) {
      return db.transaction(
        () => {
          const current = balanceOf(accountId);
          const next = { ...current, balanceTokens: current.balanceTokens + tokens };
          writeBalance(accountId, next, at);
          insertLedger().run({ id: entryId, accountId, kind: 'grant', deltaTokens: tokens, balanceAfterTokens: next.balanceTokens, reference, createdAt: at });
          return next;
        },
        { behavior: 'immediate' },
      );
    },

    async reserve(request) {
      return reserveTokens(request);
    },

    async settle(settlement) {
      return settleReservation(settlement);
    },

    async release(reservationId) {
      releaseReservation(reservationId);
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

    async ledgerPage({ accountId, page }) {
      return db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.accountId, accountId), page.cursor === undefined ? undefined : lt(creditLedger.id, page.cursor)))
        .orderBy(desc(creditLedger.id))
        .limit(page.limit ?? -1)
        .all();
    },
  };
}

/** The usage-record insert, shared by the usage repository and the settlement that writes one. */
function prepareUsageInsert(db: PorchDatabase): (record: UsageRecord) => void {
  const insert = onFirstUse(() =>
    db
      .insert(usageRecords)
      .values({
        id: sql.placeholder('id'),
        accountId: sql.placeholder('accountId'),
        apiKeyId: sql.placeholder('apiKeyId'),
        partnerKeyId: sql.placeholder('partnerKeyId'),
        operation: sql.placeholder('operation'),
        resourceId: sql.placeholder('resourceId'),
        resourceVersion: sql.placeholder('resourceVersion'),
        runId: sql.placeholder('runId'),
        nodeId: sql.placeholder('nodeId'),
        model: sql.placeholder('model'),
        inputTokens: sql.placeholder('inputTokens'),
        outputTokens: sql.placeholder('outputTokens'),
        totalTokens: sql.placeholder('totalTokens'),
        chargedTokens: sql.placeholder('chargedTokens'),
        byok: sql.placeholder('byok'),
        durationMs: sql.placeholder('durationMs'),
        status: sql.placeholder('status'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  );
  // Placeholders bypass the boolean column's mapping, so the flag is bound as SQLite's 0/1.
  return (record) => void insert().run({ ...record, byok: record.byok ? 1 : 0 });
}

export function createUsageRepository(db: PorchDatabase): UsageRepository {
  const insert = prepareUsageInsert(db);
  return {
    async insert(record) {
      insert(record);
    },
    async listByAccount(accountId) {
      return db
        .select()
        .from(usageRecords)
        .where(and(eq(usageRecords.accountId, accountId)))
        .orderBy(asc(usageRecords.id))
        .all();
    },
    async aggregate(request) {
      const day = sql`strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')`;
      return db.all<RawAggregateRow>(usageAggregateQuery(request, day)).map(toAggregateRow);
    },
  };
}
