import { sql } from 'drizzle-orm';
import { chargeAccrued } from './credits.js';
import type { PostgresDatabase } from './open-database.js';
import { instances } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { AccruedCharging, ExecutionSlotRepository, InstanceRepository, SlotRequest } from '../store.js';

/**
 * Releases everything the instance held and forgets it: its credit reservations go back to their
 * accounts (less what they accrued, which is charged), its execution slots are freed, and its unfinished idempotency claims are dropped so a
 * retry runs. Runs inside the caller's transaction.
 */
export async function retireInstance(tx: PostgresTransaction, instanceId: string, charging: AccruedCharging): Promise<void> {
  // A run cut off with the process was paying its calls from its reservation: they are charged.
  await chargeAccrued(tx, sql`r.instance_id = ${instanceId}`, charging);
  await tx.execute(sql`
    with gone as (delete from credit_reservations where instance_id = ${instanceId} returning account_id, tokens),
    per_account as (select account_id, sum(tokens) as tokens from gone group by account_id)
    update credit_balances b set reserved_tokens = greatest(0, b.reserved_tokens - per_account.tokens)
    from per_account where b.account_id = per_account.account_id`);
  await tx.execute(sql`delete from execution_slots where instance_id = ${instanceId}`);
  await tx.execute(sql`delete from idempotency_records where instance_id = ${instanceId} and response_status is null`);
  await tx.execute(sql`delete from instances where id = ${instanceId}`);
}

/** Whether the instance's lease is live at `now`. */
export async function isInstanceLive(tx: PostgresTransaction, instanceId: string, now: number): Promise<boolean> {
  const live = await tx.execute(sql`select 1 from instances where id = ${instanceId} and lease_expires_at > ${now}`);
  return live.rows.length > 0;
}

export function createInstanceRepository(db: PostgresDatabase): InstanceRepository {
  return {
    async renew({ id, now, leaseExpiresAt }) {
      await db.insert(instances).values({ id, startedAt: now, leaseExpiresAt }).onConflictDoUpdate({ target: instances.id, set: { leaseExpiresAt } });
    },
    async retire(id, charging) {
      await inTransaction(db, (tx) => retireInstance(tx, id, charging));
    },
    async retireExpired(charging) {
      return inTransaction(db, async (tx) => {
        // SKIP LOCKED: when several processes sweep at once, each retires a different instance instead of queueing.
        const expired = await tx.execute<{ id: string }>(sql`select id from instances where lease_expires_at <= ${charging.at} for update skip locked`);
        for (const { id } of expired.rows) await retireInstance(tx, id, charging);
        return expired.rows.length;
      });
    },
  };
}

/**
 * Takes one of the key's slots inside the caller's transaction, if fewer than `maxInFlight` are
 * held by live instances. The key's advisory lock, held to the end of the transaction, queues
 * concurrent acquisitions from every process; the count and the insert are then one statement,
 * whose snapshot is taken after the lock was granted, so it sees every slot an earlier holder of
 * the lock committed (two round trips after BEGIN rather than three).
 */
export async function takeSlotInside(tx: PostgresTransaction, { slotId, keyId, instanceId, maxInFlight, now }: SlotRequest): Promise<boolean> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${keyId}, 0))`);
  const taken = await tx.execute(sql`
    insert into execution_slots (id, key_id, instance_id, created_at)
    select ${slotId}, ${keyId}, ${instanceId}, ${now}
    where (select count(*) from execution_slots s join instances i on i.id = s.instance_id
           where s.key_id = ${keyId} and i.lease_expires_at > ${now}) < ${maxInFlight}
    returning id`);
  return taken.rows.length > 0;
}

export function createExecutionSlotRepository(db: PostgresDatabase): ExecutionSlotRepository {
  const held = (runner: PostgresDatabase | PostgresTransaction, keyId: string, now: number) =>
    runner.execute<{ n: number }>(sql`
      select count(*)::int as n from execution_slots s join instances i on i.id = s.instance_id
      where s.key_id = ${keyId} and i.lease_expires_at > ${now}`);
  return {
    async acquire(request) {
      return inTransaction(db, (tx) => takeSlotInside(tx, request));
    },
    async release(slotId) {
      await db.execute(sql`delete from execution_slots where id = ${slotId}`);
    },
    async count({ keyId, now }) {
      return (await held(db, keyId, now)).rows[0]?.n ?? 0;
    },
  };
}
