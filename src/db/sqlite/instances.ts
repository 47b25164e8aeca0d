import { sql } from 'drizzle-orm';
import { chargeAccrued } from './credits.js';
import { immediateTransaction } from './immediate-transaction.js';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { instances } from './schema.js';
import type { AccruedCharging, ExecutionSlotRepository, InstanceRepository, SlotRequest } from '../store.js';

/**
 * Releases everything the instance held and forgets it: its credit reservations go back to their
 * accounts (less what they accrued, which is charged), its execution slots are freed, and its unfinished idempotency claims are dropped so a
 * retry runs. Runs inside the caller's transaction.
 */
export function retireInstance(db: PorchDatabase, instanceId: string, charging: AccruedCharging): void {
  // A run cut off with the process was paying its calls from its reservation: they are charged.
  chargeAccrued(db, sql`r.instance_id = ${instanceId}`, charging);
  db.run(sql`
    update credit_balances set reserved_tokens = max(0, reserved_tokens - (
      select coalesce(sum(tokens), 0) from credit_reservations r where r.account_id = credit_balances.account_id and r.instance_id = ${instanceId}
    ))
    where account_id in (select account_id from credit_reservations where instance_id = ${instanceId})`);
  db.run(sql`delete from credit_reservations where instance_id = ${instanceId}`);
  db.run(sql`delete from execution_slots where instance_id = ${instanceId}`);
  db.run(sql`delete from idempotency_records where instance_id = ${instanceId} and response_status is null`);
  db.run(sql`delete from instances where id = ${instanceId}`);
}

/** Whether the instance's lease is live at `now`. */
export function isInstanceLive(db: PorchDatabase, instanceId: string, now: number): boolean {
  return db.get<{ live: number }>(sql`select 1 as live from instances where id = ${instanceId} and lease_expires_at > ${now}`) !== undefined;
}

export function createInstanceRepository(db: PorchDatabase): InstanceRepository {
  const retire = immediateTransaction(db, (instanceId: string, charging: AccruedCharging) => retireInstance(db, instanceId, charging));
  const retireExpired = immediateTransaction(db, (charging: AccruedCharging) => {
    const expired = db.all<{ id: string }>(sql`select id from instances where lease_expires_at <= ${charging.at}`);
    for (const { id } of expired) retireInstance(db, id, charging);
    return expired.length;
  });
  return {
    async renew({ id, now, leaseExpiresAt }) {
      db.insert(instances).values({ id, startedAt: now, leaseExpiresAt }).onConflictDoUpdate({ target: instances.id, set: { leaseExpiresAt } }).run();
    },
    async retire(id, charging) {
      retire(id, charging);
    },
    async retireExpired(charging) {
      return retireExpired(charging);
    },
  };
}

/**
 * The slot statements, prepared once: an execution takes and gives back a slot, and building and
 * compiling these per call was most of what the slot cost (bench/RESULTS-NOTES.md, 28 Nov 2026).
 * `takeInside` runs inside the caller's IMMEDIATE transaction (its own, or the rate limiter's
 * when an execution is admitted in one step), which makes its count and insert atomic.
 */
export function prepareSlotStatements(db: PorchDatabase) {
  const countHeld = onFirstUse(() =>
    db.$client.prepare<{ keyId: string; now: number }, { n: number }>(`
      select count(*) as n from execution_slots s join instances i on i.id = s.instance_id
      where s.key_id = @keyId and i.lease_expires_at > @now`),
  );
  const insertSlot = onFirstUse(() =>
    db.$client.prepare<{ slotId: string; keyId: string; instanceId: string; now: number }>(
      'insert into execution_slots (id, key_id, instance_id, created_at) values (@slotId, @keyId, @instanceId, @now)',
    ),
  );
  const held = (keyId: string, now: number) => countHeld().get({ keyId, now })?.n ?? 0;
  return {
    held,
    takeInside({ slotId, keyId, instanceId, maxInFlight, now }: SlotRequest): boolean {
      if (held(keyId, now) >= maxInFlight) return false;
      insertSlot().run({ slotId, keyId, instanceId, now });
      return true;
    },
  };
}

export function createExecutionSlotRepository(db: PorchDatabase): ExecutionSlotRepository {
  const slots = prepareSlotStatements(db);
  const deleteSlot = onFirstUse(() => db.$client.prepare<[string]>('delete from execution_slots where id = ?'));
  const acquire = immediateTransaction(db, (request: SlotRequest) => slots.takeInside(request));
  return {
    async acquire(request) {
      return acquire(request);
    },
    async release(slotId) {
      deleteSlot().run(slotId);
    },
    async count({ keyId, now }) {
      return slots.held(keyId, now);
    },
  };
}
