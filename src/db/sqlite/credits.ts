import { and, asc, desc, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { immediateTransaction } from './immediate-transaction.js';
import { onFirstUse } from './on-first-use.js';
import { rowStatement } from './row-statement.js';
import { creditBalances, creditLedger, creditReservations, usageRecords } from './schema.js';
import { prepareWebhookEnqueue } from './webhooks.js';
import type {
  AccruedCharging,
  CreditBalance,
  CreditRepository,
  CreditReservationRequest,
  CreditSettlement,
  SettleOutcome,
  UsageRecord,
  UsageRepository,
} from '../store.js';
import type { SQL } from 'drizzle-orm';
import { ledgerEntryId } from '../ledger-order.js';
import { lowBalanceCrossing } from '../low-balance-crossing.js';
import { toAggregateRow, usageAggregateQuery, type RawAggregateRow } from '../usage-aggregates.js';

const EMPTY_BALANCE: CreditBalance = { balanceTokens: 0, reservedTokens: 0 };

/** The ledger reference of a charge accrued under a reservation that closed without a settlement (a crash, a release). */
export const ACCRUED_REFERENCE = 'usage:accrued';

/**
 * Charges what the reservations matching `where` (a condition on `r`, the reservation) accrued,
 * before they are deleted: one ledger entry per reservation, written as `charging` says (a new
 * entry id, its time, credits.low on a crossing); written once, as the reservation goes in the
 * same transaction. Runs inside the caller's transaction; for the bulk releases (a process's end).
 */
export function chargeAccrued(db: PorchDatabase, where: SQL, charging: AccruedCharging): void {
  const accrued = db.all<{ accountId: string; tokens: number }>(sql`
    select r.account_id as accountId, sum(u.charged_tokens) as tokens
    from credit_reservations r join usage_records u on u.reservation_id = r.id
    where ${where} group by r.id, r.account_id having sum(u.charged_tokens) > 0`);
  const enqueue = prepareWebhookEnqueue(db);
  for (const { accountId, tokens } of accrued) {
    const charged = db.get<{ balance: number; threshold: number | null }>(sql`
      update credit_balances set balance_tokens = balance_tokens - ${tokens}, updated_at = ${charging.at} where account_id = ${accountId}
      returning balance_tokens as balance, low_balance_threshold_tokens as threshold`);
    const after = charged?.balance ?? -tokens;
    // Inside the caller's write transaction: the id is taken above the account's entries (ledger-order.ts).
    const highest = db.get<{ id: string }>(sql`select id from credit_ledger where account_id = ${accountId} order by id desc limit 1`);
    db.run(sql`
      insert into credit_ledger (id, account_id, kind, delta_tokens, balance_after_tokens, reference, created_at)
      values (${ledgerEntryId(charging.newEntryId(), highest?.id)}, ${accountId}, 'usage', ${-tokens}, ${after}, ${ACCRUED_REFERENCE}, ${charging.at})`);
    enqueue(
      lowBalanceCrossing(charging.lowBalanceEvent, { accountId, before: after + tokens, after, thresholdTokens: charged?.threshold ?? null, at: charging.at }),
    );
  }
}

/**
 * The ledger. Every check-and-update runs in one IMMEDIATE transaction, so concurrent executions
 * (and two processes on one file) can never overdraw: a reservation is only granted while
 * `balance - reserved` covers it, and a settlement never takes the balance below what other open
 * reservations hold.
 */
export function createCreditRepository(db: PorchDatabase): CreditRepository {
  // Read by every authenticated request (X-Credits-Remaining).
  const readBalance = onFirstUse(() =>
    rowStatement(db, { balanceTokens: creditBalances.balanceTokens, reservedTokens: creditBalances.reservedTokens }, (fields) =>
      db
        .select(fields)
        .from(creditBalances)
        .where(eq(creditBalances.accountId, sql.placeholder('accountId'))),
    ),
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
  const growReservation = onFirstUse(() =>
    db
      .update(creditReservations)
      .set({ tokens: sql`${sql.placeholder('tokens')}` })
      .where(eq(creditReservations.id, sql.placeholder('id')))
      .prepare(),
  );
  const readAccrued = onFirstUse(() =>
    db
      .select({ tokens: sql<number>`coalesce(sum(${usageRecords.chargedTokens}), 0)` })
      .from(usageRecords)
      .where(eq(usageRecords.reservationId, sql.placeholder('id')))
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
  const highestEntry = onFirstUse(() =>
    db
      .select({ id: creditLedger.id })
      .from(creditLedger)
      .where(eq(creditLedger.accountId, sql.placeholder('accountId')))
      .orderBy(desc(creditLedger.id))
      .limit(1)
      .prepare(),
  );
  /** The id an entry of `accountId` is written under, inside the write transaction: see ledger-order.ts. */
  const entryIdFor = (accountId: string, madeFor: string) => ledgerEntryId(madeFor, highestEntry().get({ accountId })?.id);
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

  /** Deletes the reservation and gives its tokens back; answers what it accrued, still to be charged. */
  const closeInside = (reservationId: string) => {
    const reservation = readReservation().get({ id: reservationId });
    if (!reservation) return null;
    deleteReservation().run({ id: reservationId });
    const current = balanceOf(reservation.accountId);
    const balance = { ...current, reservedTokens: Math.max(0, current.reservedTokens - reservation.tokens) };
    updateReserved().run({ accountId: reservation.accountId, reservedTokens: balance.reservedTokens });
    const accrued = readAccrued().get({ id: reservationId });
    return { accountId: reservation.accountId, balance, accruedTokens: accrued?.tokens ?? 0 };
  };

  const charge = (accountId: string, balance: CreditBalance, tokens: number, entry: { id: string; reference: string | null; at: number }): CreditBalance => {
    const next = { ...balance, balanceTokens: balance.balanceTokens - tokens };
    writeBalance(accountId, next, entry.at);
    insertLedger().run({
      id: entryIdFor(accountId, entry.id),
      accountId,
      kind: 'usage',
      deltaTokens: -tokens,
      balanceAfterTokens: next.balanceTokens,
      reference: entry.reference,
      createdAt: entry.at,
    });
    return next;
  };

  /** Closes the reservation, charging what it accrued as `charging` says. */
  const releaseInside = (reservationId: string, charging: AccruedCharging): void => {
    const closed = closeInside(reservationId);
    if (!closed || closed.accruedTokens === 0) return;
    const { accountId, balance } = closed;
    const next = charge(accountId, balance, closed.accruedTokens, { id: charging.newEntryId(), reference: ACCRUED_REFERENCE, at: charging.at });
    const thresholdTokens = readThreshold().get({ accountId })?.thresholdTokens ?? null;
    enqueueWebhooks(
      lowBalanceCrossing(charging.lowBalanceEvent, { accountId, before: balance.balanceTokens, after: next.balanceTokens, thresholdTokens, at: charging.at }),
    );
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

  const extendReservation = immediateTransaction(db, ({ reservationId, tokens, at }: { reservationId: string; tokens: number; at: number }) => {
    const reservation = readReservation().get({ id: reservationId });
    if (!reservation) return { ok: false as const, balance: EMPTY_BALANCE };
    const current = balanceOf(reservation.accountId);
    if (current.balanceTokens - current.reservedTokens < tokens) return { ok: false as const, balance: current };
    growReservation().run({ id: reservationId, tokens: reservation.tokens + tokens });
    const next = { ...current, reservedTokens: current.reservedTokens + tokens };
    writeBalance(reservation.accountId, next, at);
    return { ok: true as const, balance: next };
  });

  // The check and the insert in one statement (one write, no BEGIN and COMMIT of our own): a
  // record is accrued only under a reservation still open, so whatever closes it (settlement,
  // release, expiry, the process's end) sees it. A workflow runs this once per model call.
  const accrueStatement = onFirstUse(() =>
    db.$client.prepare<Record<string, string | number | null>>(`
      insert into usage_records (id, account_id, api_key_id, partner_key_id, operation, resource_id, resource_version, run_id, reservation_id,
        node_id, model, input_tokens, output_tokens, total_tokens, charged_tokens, byok, duration_ms, status, retry, created_at)
      select @id, @accountId, @apiKeyId, @partnerKeyId, @operation, @resourceId, @resourceVersion, @runId, @reservationId,
        @nodeId, @model, @inputTokens, @outputTokens, @totalTokens, @chargedTokens, @byok, @durationMs, @status, @retry, @createdAt
      where exists (select 1 from credit_reservations where id = @reservationId)`),
  );
  const accrueUsage = ({ reservationId, usage }: { reservationId: string; usage: UsageRecord }): boolean =>
    accrueStatement().run({ ...usage, byok: usage.byok ? 1 : 0, retry: usage.retry ? 1 : 0, reservationId }).changes > 0;

  const settleReservation = immediateTransaction(
    db,
    ({ reservationId, chargeTokens, reference, at, entryId, usage, lowBalanceEvent }: CreditSettlement): SettleOutcome => {
      const closed = closeInside(reservationId);
      if (!closed) return { ok: false as const, reason: 'unknown_reservation' as const, balance: EMPTY_BALANCE };
      const { accountId, balance: released, accruedTokens } = closed;
      if (released.balanceTokens - accruedTokens - chargeTokens < released.reservedTokens) {
        // What was accrued was covered by the reservation and is charged whatever happens to the rest.
        if (accruedTokens === 0) return { ok: false as const, reason: 'insufficient_balance' as const, balance: released };
        const after = charge(accountId, released, accruedTokens, { id: entryId, reference, at });
        const thresholdTokens = readThreshold().get({ accountId })?.thresholdTokens ?? null;
        enqueueWebhooks(lowBalanceCrossing(lowBalanceEvent, { accountId, before: released.balanceTokens, after: after.balanceTokens, thresholdTokens, at }));
        return { ok: false as const, reason: 'insufficient_balance' as const, balance: after };
      }
      if (usage !== undefined) insertUsage(usage);
      const totalTokens = accruedTokens + chargeTokens;
      if (totalTokens === 0) return { ok: true as const, balance: released };
      const next = charge(accountId, released, totalTokens, { id: entryId, reference, at });
      if (lowBalanceEvent !== undefined) {
        const thresholdTokens = readThreshold().get({ accountId })?.thresholdTokens ?? null;
        // Only the charge that crosses the threshold reports it: a balance already below stays quiet.
        enqueueWebhooks(lowBalanceCrossing(lowBalanceEvent, { accountId, before: released.balanceTokens, after: next.balanceTokens, thresholdTokens, at }));
      }
      return { ok: true as const, balance: next };
    },
  );

  const releaseReservation = immediateTransaction(db, (reservationId: string, charging: AccruedCharging) => void releaseInside(reservationId, charging));

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
          insertLedger().run({
            id: entryIdFor(accountId, entryId),
            accountId,
            kind: 'grant',
            deltaTokens: tokens,
            balanceAfterTokens: next.balanceTokens,
            reference,
            createdAt: at,
          });
          return next;
        },
        { behavior: 'immediate' },
      );
    },

    async reserve(request) {
      return reserveTokens(request);
    },

    async extend(request) {
      return extendReservation(request);
    },

    async accrue(request) {
      return accrueUsage(request);
    },

    async settle(settlement) {
      return settleReservation(settlement);
    },

    async release(reservationId, charging) {
      releaseReservation(reservationId, charging);
    },

    async releaseExpired(charging) {
      return db.transaction(
        () => {
          const expired = db.select({ id: creditReservations.id }).from(creditReservations).where(lt(creditReservations.expiresAt, charging.at)).all();
          for (const { id } of expired) releaseInside(id, charging);
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
function prepareUsageInsert(db: PorchDatabase): (record: UsageRecord, reservationId?: string) => void {
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
        reservationId: sql.placeholder('reservationId'),
        nodeId: sql.placeholder('nodeId'),
        model: sql.placeholder('model'),
        inputTokens: sql.placeholder('inputTokens'),
        outputTokens: sql.placeholder('outputTokens'),
        totalTokens: sql.placeholder('totalTokens'),
        chargedTokens: sql.placeholder('chargedTokens'),
        byok: sql.placeholder('byok'),
        durationMs: sql.placeholder('durationMs'),
        status: sql.placeholder('status'),
        retry: sql.placeholder('retry'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  );
  // Placeholders bypass the boolean columns' mapping, so the flags are bound as SQLite's 0/1.
  return (record, reservationId) =>
    void insert().run({ ...record, byok: record.byok ? 1 : 0, retry: record.retry ? 1 : 0, reservationId: reservationId ?? null });
}

/** A usage record's columns: the reservation that paid for an accrued call is the ledger's business, not the record's. */
const { reservationId: _paidFrom, ...USAGE_RECORD_COLUMNS } = getTableColumns(usageRecords);

export function createUsageRepository(db: PorchDatabase): UsageRepository {
  const insert = prepareUsageInsert(db);
  return {
    async insert(record) {
      insert(record);
    },
    async markFailed(id) {
      db.update(usageRecords)
        .set({ status: 'failed' })
        .where(and(eq(usageRecords.id, id), eq(usageRecords.status, 'succeeded')))
        .run();
    },
    async listByAccount(accountId) {
      return db
        .select(USAGE_RECORD_COLUMNS)
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
