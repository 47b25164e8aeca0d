import { and, asc, desc, eq, getTableColumns, lt, sql, type SQL } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { creditBalances, creditLedger, creditReservations, usageRecords } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import { enqueueWebhookEvents } from './webhooks.js';
import { ledgerEntryId } from '../ledger-order.js';
import { lowBalanceCrossing } from '../low-balance-crossing.js';
import type { AccruedCharging, CreditBalance, CreditRepository, SettleOutcome, UsageRepository } from '../store.js';
import { toAggregateRow, usageAggregateQuery, type RawAggregateRow } from '../usage-aggregates.js';

const EMPTY_BALANCE: CreditBalance = { balanceTokens: 0, reservedTokens: 0 };

type BalanceRow = {
  balance_tokens: string;
  reserved_tokens: string;
};

/** The ledger reference of a charge accrued under a reservation that closed without a settlement (a crash, a release). */
export const ACCRUED_REFERENCE = 'usage:accrued';

/**
 * Charges what the reservations matching `where` (a condition on `r`, the reservation) accrued,
 * before they are deleted: one ledger entry per reservation, written as `charging` says (a new
 * entry id, its time, credits.low on a crossing); written once, as the reservation goes in the
 * same transaction. The reservations are locked first, so an accrual in flight either lands
 * before (and is charged here) or finds them gone.
 */
export async function chargeAccrued(tx: PostgresTransaction, where: SQL, charging: AccruedCharging): Promise<void> {
  // Two statements: one that waits for the locks, then one that reads what was accrued. Under READ
  // COMMITTED a statement that waited re-reads only the rows it locked, so a single statement
  // would miss a usage row whose accrual committed during the wait, and never charge it.
  const doomed = await tx.execute<{ id: string }>(sql`select r.id from credit_reservations r where ${where} for update`);
  if (doomed.rows.length === 0) return;
  const ids = doomed.rows.map((row) => row.id);
  const accrued = await tx.execute<{ account_id: string; tokens: string }>(sql`
    select r.account_id, sum(u.charged_tokens)::text as tokens
    from credit_reservations r join usage_records u on u.reservation_id = r.id
    where r.id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})
    group by r.id, r.account_id having sum(u.charged_tokens) > 0`);
  for (const row of accrued.rows) {
    const tokens = Number(row.tokens);
    // The update holds the account's balance row, and with it the ledger's order: the entry's id
    // is taken after it (ledger-order.ts).
    const charged = await tx.execute<{ balance_tokens: string; low_balance_threshold_tokens: string | null }>(sql`
      update credit_balances set balance_tokens = balance_tokens - ${tokens}, updated_at = ${charging.at} where account_id = ${row.account_id}
      returning balance_tokens::text, low_balance_threshold_tokens::text`);
    const [balance] = charged.rows;
    if (balance === undefined) continue;
    const after = Number(balance.balance_tokens);
    await tx.insert(creditLedger).values({
      id: await entryIdFor(tx, row.account_id, charging.newEntryId()),
      accountId: row.account_id,
      kind: 'usage',
      deltaTokens: -tokens,
      balanceAfterTokens: after,
      reference: ACCRUED_REFERENCE,
      createdAt: charging.at,
    });
    const thresholdTokens = balance.low_balance_threshold_tokens === null ? null : Number(balance.low_balance_threshold_tokens);
    const events = lowBalanceCrossing(charging.lowBalanceEvent, { accountId: row.account_id, before: after + tokens, after, thresholdTokens, at: charging.at });
    if (events.length > 0) await enqueueWebhookEvents(tx, events);
  }
}

/** What was accrued under a reservation (see `accrue`), to be charged when it closes. */
async function accruedUnder(tx: PostgresTransaction, reservationId: string): Promise<number> {
  const accrued = await tx.execute<{ tokens: string }>(
    sql`select coalesce(sum(charged_tokens), 0)::text as tokens from usage_records where reservation_id = ${reservationId}`,
  );
  return Number(accrued.rows[0]?.tokens ?? 0);
}

/** The id an entry of `accountId` is written under, while the transaction holds the account's balance row: see ledger-order.ts. */
async function entryIdFor(tx: PostgresTransaction, accountId: string, madeFor: string): Promise<string> {
  const [highest] = await tx
    .select({ id: creditLedger.id })
    .from(creditLedger)
    .where(eq(creditLedger.accountId, accountId))
    .orderBy(desc(creditLedger.id))
    .limit(1);
  return ledgerEntryId(madeFor, highest?.id);
}

function toBalance(row: BalanceRow | undefined): CreditBalance {
  return row ? { balanceTokens: Number(row.balance_tokens), reservedTokens: Number(row.reserved_tokens) } : EMPTY_BALANCE;
}

/**
 * The ledger on PostgreSQL. Each check-and-update is one statement or one transaction that
 * locks the account's balance row, so concurrent executions on any number of processes can never
 * overdraw: a reservation is only granted while `balance - reserved` covers it, and a settlement
 * never takes the balance below what other open reservations hold.
 */
export function createCreditRepository(db: PostgresDatabase): CreditRepository {
  const readBalance = db
    .select({ balanceTokens: creditBalances.balanceTokens, reservedTokens: creditBalances.reservedTokens })
    .from(creditBalances)
    .where(eq(creditBalances.accountId, sql.placeholder('accountId')))
    .prepare('credit_balance');
  const balanceOf = async (accountId: string): Promise<CreditBalance> => (await readBalance.execute({ accountId }))[0] ?? EMPTY_BALANCE;

  return {
    balance: balanceOf,

    async lowBalanceThreshold(accountId) {
      const [row] = await db
        .select({ thresholdTokens: creditBalances.lowBalanceThresholdTokens })
        .from(creditBalances)
        .where(eq(creditBalances.accountId, accountId));
      return row?.thresholdTokens ?? null;
    },

    async setLowBalanceThreshold({ accountId, thresholdTokens, at }) {
      await db
        .insert(creditBalances)
        .values({ accountId, balanceTokens: 0, reservedTokens: 0, updatedAt: at, lowBalanceThresholdTokens: thresholdTokens })
        .onConflictDoUpdate({ target: creditBalances.accountId, set: { lowBalanceThresholdTokens: thresholdTokens } });
    },

    async grant({ accountId, tokens, reference, at, entryId }) {
      return inTransaction(db, async (tx) => {
        const result = await tx.execute<BalanceRow>(sql`
          insert into credit_balances (account_id, balance_tokens, reserved_tokens, updated_at)
          values (${accountId}, ${tokens}, 0, ${at})
          on conflict (account_id) do update set balance_tokens = credit_balances.balance_tokens + excluded.balance_tokens, updated_at = excluded.updated_at
          returning balance_tokens, reserved_tokens`);
        const next = toBalance(result.rows[0]);
        await tx.insert(creditLedger).values({
          id: await entryIdFor(tx, accountId, entryId),
          accountId,
          kind: 'grant',
          deltaTokens: tokens,
          balanceAfterTokens: next.balanceTokens,
          reference,
          createdAt: at,
        });
        return next;
      });
    },

    async reserve({ accountId, tokens, minimumAvailableTokens, at, expiresAt, reservationId, instanceId }) {
      // One statement: the balance row's update holds the check, and the reservation is inserted only when it passed.
      const held = await db.execute<BalanceRow>(sql`
        with held as (
          update credit_balances set reserved_tokens = reserved_tokens + ${tokens}, updated_at = ${at}
          where account_id = ${accountId} and balance_tokens - reserved_tokens >= greatest(${tokens}::bigint, ${minimumAvailableTokens}::bigint)
          returning balance_tokens, reserved_tokens
        ), reservation as (
          insert into credit_reservations (id, account_id, tokens, created_at, expires_at, instance_id)
          select ${reservationId}, ${accountId}, ${tokens}, ${at}, ${expiresAt}, ${instanceId} from held
        )
        select balance_tokens, reserved_tokens from held`);
      const row = held.rows[0];
      if (row) return { ok: true, balance: toBalance(row) };
      return { ok: false, balance: await balanceOf(accountId) };
    },

    async extend({ reservationId, tokens, at }) {
      // One statement: the reservation's row is locked (a settlement cannot close it meanwhile), the balance row's update holds the check.
      const held = await db.execute<BalanceRow>(sql`
        with reservation as (select account_id from credit_reservations where id = ${reservationId} for update),
        held as (
          update credit_balances set reserved_tokens = reserved_tokens + ${tokens}, updated_at = ${at}
          where account_id = (select account_id from reservation) and balance_tokens - reserved_tokens >= ${tokens}::bigint
          returning balance_tokens, reserved_tokens
        ), grown as (
          update credit_reservations set tokens = tokens + ${tokens} where id = ${reservationId} and exists (select 1 from held)
        )
        select balance_tokens, reserved_tokens from held`);
      const row = held.rows[0];
      if (row) return { ok: true, balance: toBalance(row) };
      const owner = await db.select({ accountId: creditReservations.accountId }).from(creditReservations).where(eq(creditReservations.id, reservationId));
      return { ok: false, balance: owner[0] ? await balanceOf(owner[0].accountId) : EMPTY_BALANCE };
    },

    async accrue({ reservationId, usage }) {
      // The reservation's row is share-locked by the insert: whatever closes it waits for this
      // insert and then charges it, or closed it first and nothing is written.
      const inserted = await db.execute(sql`
        insert into usage_records (id, account_id, api_key_id, partner_key_id, operation, resource_id, resource_version, run_id, reservation_id,
          node_id, model, input_tokens, output_tokens, total_tokens, charged_tokens, byok, duration_ms, status, retry, created_at)
        select ${usage.id}, ${usage.accountId}, ${usage.apiKeyId}, ${usage.partnerKeyId}, ${usage.operation}, ${usage.resourceId}, ${usage.resourceVersion},
          ${usage.runId}, ${reservationId}, ${usage.nodeId}, ${usage.model}, ${usage.inputTokens}, ${usage.outputTokens}, ${usage.totalTokens},
          ${usage.chargedTokens}, ${usage.byok}, ${usage.durationMs}, ${usage.status}, ${usage.retry}, ${usage.createdAt}
        where exists (select 1 from credit_reservations where id = ${reservationId} for share)`);
      return (inserted.rowCount ?? 0) > 0;
    },

    async settle({ reservationId, chargeTokens, reference, at, entryId, usage, lowBalanceEvent }): Promise<SettleOutcome> {
      return inTransaction(db, async (tx) => {
        const [reservation] = await tx.delete(creditReservations).where(eq(creditReservations.id, reservationId)).returning();
        if (!reservation) return { ok: false, reason: 'unknown_reservation', balance: EMPTY_BALANCE };
        const accruedTokens = await accruedUnder(tx, reservationId);
        const [locked] = await tx
          .select({
            balanceTokens: creditBalances.balanceTokens,
            reservedTokens: creditBalances.reservedTokens,
            thresholdTokens: creditBalances.lowBalanceThresholdTokens,
          })
          .from(creditBalances)
          .where(eq(creditBalances.accountId, reservation.accountId))
          .for('update');
        const current = locked ? { balanceTokens: locked.balanceTokens, reservedTokens: locked.reservedTokens } : EMPTY_BALANCE;
        const released = { ...current, reservedTokens: Math.max(0, current.reservedTokens - reservation.tokens) };
        const affordable = released.balanceTokens - accruedTokens - chargeTokens >= released.reservedTokens;
        // What was accrued was covered by the reservation and is charged whatever happens to the rest.
        const totalTokens = affordable ? accruedTokens + chargeTokens : accruedTokens;
        const next = { ...released, balanceTokens: released.balanceTokens - totalTokens };
        await tx
          .update(creditBalances)
          .set({ ...next, updatedAt: at })
          .where(eq(creditBalances.accountId, reservation.accountId));
        if (totalTokens > 0) {
          await tx.insert(creditLedger).values({
            id: await entryIdFor(tx, reservation.accountId, entryId),
            accountId: reservation.accountId,
            kind: 'usage',
            deltaTokens: -totalTokens,
            balanceAfterTokens: next.balanceTokens,
            reference,
            createdAt: at,
          });
        }
        // Only the charge that crosses the threshold reports it (what was accrued too, when the rest
        // is refused): a balance already below stays quiet.
        const events = lowBalanceCrossing(lowBalanceEvent, {
          accountId: reservation.accountId,
          before: released.balanceTokens,
          after: next.balanceTokens,
          thresholdTokens: locked?.thresholdTokens ?? null,
          at,
        });
        if (events.length > 0) await enqueueWebhookEvents(tx, events);
        if (!affordable) return { ok: false, reason: 'insufficient_balance', balance: next };
        if (usage !== undefined) await tx.insert(usageRecords).values(usage);
        return { ok: true, balance: next };
      });
    },

    async release(reservationId, charging) {
      await inTransaction(db, async (tx) => {
        await chargeAccrued(tx, sql`r.id = ${reservationId}`, charging);
        await tx.execute(sql`
          with gone as (delete from credit_reservations where id = ${reservationId} returning account_id, tokens)
          update credit_balances b set reserved_tokens = greatest(0, b.reserved_tokens - gone.tokens)
          from gone where b.account_id = gone.account_id`);
      });
    },

    async releaseExpired(charging) {
      const { at } = charging;
      return inTransaction(db, async (tx) => {
        await chargeAccrued(tx, sql`r.expires_at < ${at}`, charging);
        const released = await tx.execute<{ released: string }>(sql`
          with gone as (delete from credit_reservations where expires_at < ${at} returning account_id, tokens),
          per_account as (select account_id, sum(tokens) as tokens, count(*) as reservations from gone group by account_id),
          updated as (
            update credit_balances b set reserved_tokens = greatest(0, b.reserved_tokens - per_account.tokens)
            from per_account where b.account_id = per_account.account_id
          )
          select coalesce(sum(reservations), 0)::text as released from per_account`);
        return Number(released.rows[0]?.released ?? 0);
      });
    },

    async ledger(accountId) {
      return db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId)).orderBy(asc(creditLedger.id));
    },
    async ledgerPage({ accountId, page }) {
      const query = db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.accountId, accountId), page.cursor === undefined ? undefined : lt(creditLedger.id, page.cursor)))
        .orderBy(desc(creditLedger.id))
        .$dynamic();
      return page.limit === undefined ? query : query.limit(page.limit);
    },
  };
}

/** A usage record's columns: the reservation that paid for an accrued call is the ledger's business, not the record's. */
const { reservationId: _paidFrom, ...USAGE_RECORD_COLUMNS } = getTableColumns(usageRecords);

export function createUsageRepository(db: PostgresDatabase): UsageRepository {
  return {
    async insert(record) {
      await db.insert(usageRecords).values(record);
    },
    async markFailed(id) {
      await db
        .update(usageRecords)
        .set({ status: 'failed' })
        .where(and(eq(usageRecords.id, id), eq(usageRecords.status, 'succeeded')));
    },
    async listByAccount(accountId) {
      return db.select(USAGE_RECORD_COLUMNS).from(usageRecords).where(eq(usageRecords.accountId, accountId)).orderBy(asc(usageRecords.id));
    },
    async aggregate(request) {
      const day = sql`to_char(to_timestamp(created_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
      return (await db.execute<RawAggregateRow>(usageAggregateQuery(request, day))).rows.map(toAggregateRow);
    },
  };
}
