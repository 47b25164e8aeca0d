import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { immediateTransaction } from './immediate-transaction.js';
import { prepareSlotStatements } from './instances.js';
import { onFirstUse } from './on-first-use.js';
import { rateLimitCounters } from './schema.js';
import { type RateLimitRepository, type RateWindowLimits, type RateWindowOutcome, type SlotRequest, withSlot } from '../store.js';

const SECONDS_PER_MINUTE = 60;
const SECONDS_PER_DAY = 86_400;

/**
 * Fixed windows aligned to the minute and to the UTC day, as the spec's limits are "per minute"
 * and "per day" and `X-RateLimit-Reset` names the end of the window. Both counters are read,
 * checked and incremented in one IMMEDIATE transaction, so concurrent requests (and two processes
 * on one file) can never let more through than the limit.
 */
export function createRateLimitRepository(db: PorchDatabase): RateLimitRepository {
  const read = onFirstUse(() =>
    db
      .select()
      .from(rateLimitCounters)
      .where(eq(rateLimitCounters.keyId, sql.placeholder('keyId')))
      .prepare(),
  );
  /** The windows `nowSeconds` falls in, as stored (a window that has turned counts zero). */
  const readWindows = (limits: RateWindowLimits): RateWindowOutcome => {
    const minuteStart = limits.nowSeconds - (limits.nowSeconds % SECONDS_PER_MINUTE);
    const dayStart = limits.nowSeconds - (limits.nowSeconds % SECONDS_PER_DAY);
    let minuteCount = 0;
    let dayCount = 0;
    for (const row of read().all({ keyId: limits.keyId })) {
      if (row.window === 'minute' && row.windowStart === minuteStart) minuteCount = row.count;
      if (row.window === 'day' && row.windowStart === dayStart) dayCount = row.count;
    }
    const exceeded = minuteCount >= limits.requestsPerMinute ? 'minute' : dayCount >= limits.requestsPerDay ? 'day' : null;
    return {
      allowed: exceeded === null,
      exceeded,
      minuteCount,
      dayCount,
      minuteResetSeconds: minuteStart + SECONDS_PER_MINUTE,
      dayResetSeconds: dayStart + SECONDS_PER_DAY,
    };
  };

  // Both windows counted in one statement (one of the request's few writes), returning the new
  // counts; a window that has turned starts again at 1.
  const countBoth = onFirstUse(() =>
    db.$client.prepare<{ keyId: string; minuteStart: number; dayStart: number }, { window: string; count: number }>(`
      insert into rate_limit_counters (key_id, window, window_start, count)
      values (@keyId, 'minute', @minuteStart, 1), (@keyId, 'day', @dayStart, 1)
      on conflict (key_id, window) do update set
        count = case when window_start = excluded.window_start then count + 1 else 1 end,
        window_start = excluded.window_start
      returning window, count`),
  );

  /** Thrown inside the transaction to undo the count of a refused request; carries its answer. */
  class Refused extends Error {
    constructor(readonly outcome: RateWindowOutcome) {
      super('rate limit window full');
    }
  }

  // The count and the check in one IMMEDIATE transaction: the request is counted first, and a
  // count past a limit is rolled back (a refused request is never counted), so concurrent
  // requests, and processes on one file, can never let more through than the limit.
  const countInside = (limits: RateWindowLimits): RateWindowOutcome => {
    const minuteStart = limits.nowSeconds - (limits.nowSeconds % SECONDS_PER_MINUTE);
    const dayStart = limits.nowSeconds - (limits.nowSeconds % SECONDS_PER_DAY);
    let minuteCount = 0;
    let dayCount = 0;
    for (const row of countBoth().all({ keyId: limits.keyId, minuteStart, dayStart })) {
      if (row.window === 'minute') minuteCount = row.count;
      else dayCount = row.count;
    }
    const exceeded = minuteCount > limits.requestsPerMinute ? 'minute' : dayCount > limits.requestsPerDay ? 'day' : null;
    const outcome: RateWindowOutcome = {
      allowed: exceeded === null,
      exceeded,
      minuteCount,
      dayCount,
      minuteResetSeconds: minuteStart + SECONDS_PER_MINUTE,
      dayResetSeconds: dayStart + SECONDS_PER_DAY,
    };
    if (exceeded !== null) throw new Refused({ ...outcome, minuteCount: minuteCount - 1, dayCount: dayCount - 1 });
    return outcome;
  };
  const countWindows = immediateTransaction(db, countInside);

  // An execution's admission: the count and its slot in the one transaction, so an execution
  // commits once before its model call instead of twice. A refused count rolls back before any
  // slot is looked at.
  const slots = prepareSlotStatements(db);
  const countWindowsTakingSlot = immediateTransaction(db, (limits: RateWindowLimits, slot: SlotRequest) => {
    const outcome = countInside(limits);
    return withSlot(outcome, slots.takeInside(slot));
  });

  const consumeWindows = <Outcome>(count: () => Outcome, refused: (outcome: RateWindowOutcome) => Outcome): Outcome => {
    try {
      return count();
    } catch (err) {
      if (err instanceof Refused) return refused(err.outcome);
      throw err;
    }
  };

  return {
    async consume(limits) {
      return consumeWindows(
        () => countWindows(limits),
        (outcome) => outcome,
      );
    },
    async consumeWithSlot(limits, slot) {
      return consumeWindows(
        () => countWindowsTakingSlot(limits, slot),
        (outcome) => withSlot(outcome, false),
      );
    },
    async peek(limits) {
      return readWindows(limits);
    },
    async lastCounted(keyIds) {
      if (keyIds.length === 0) return new Map();
      const rows = db
        .select({ keyId: rateLimitCounters.keyId, windowStart: rateLimitCounters.windowStart })
        .from(rateLimitCounters)
        .where(and(inArray(rateLimitCounters.keyId, [...keyIds]), eq(rateLimitCounters.window, 'minute')))
        .all();
      return new Map(rows.map((row) => [row.keyId, row.windowStart]));
    },
  };
}
