import { eq, inArray, sql } from 'drizzle-orm';
import { takeSlotInside } from './instances.js';
import type { PostgresDatabase } from './open-database.js';
import { rateLimitCounters } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import { type RateLimitRepository, type RateWindowLimits, type RateWindowOutcome, withSlot } from '../store.js';

const SECONDS_PER_MINUTE = 60;
const SECONDS_PER_DAY = 86_400;

type CounterRow = {
  minute_start: string;
  minute_count: number;
  day_start: string;
  day_count: number;
};

/**
 * Fixed windows aligned to the minute and to the UTC day, as on SQLite. One statement checks and
 * counts: the upsert takes the key's row lock, and PostgreSQL evaluates the WHERE against the
 * row as the last committed writer left it, so any number of processes together let exactly the
 * limit through. Windows only move forward: a process whose clock lags counts its request in the
 * newer window instead of resetting it.
 */
export function createRateLimitRepository(db: PostgresDatabase): RateLimitRepository {
  const read = db
    .select()
    .from(rateLimitCounters)
    .where(eq(rateLimitCounters.keyId, sql.placeholder('keyId')))
    .prepare('rate_limit_read');

  /** The windows as stored, counting nothing (a window that has turned counts zero). */
  async function readWindows({ keyId, requestsPerMinute, requestsPerDay, nowSeconds }: RateWindowLimits): Promise<RateWindowOutcome> {
    const row = (await read.execute({ keyId }))[0];
    const minuteStart = Math.max(nowSeconds - (nowSeconds % SECONDS_PER_MINUTE), row?.minuteStart ?? 0);
    const dayStart = Math.max(nowSeconds - (nowSeconds % SECONDS_PER_DAY), row?.dayStart ?? 0);
    const minuteCount = row && row.minuteStart === minuteStart ? row.minuteCount : 0;
    const dayCount = row && row.dayStart === dayStart ? row.dayCount : 0;
    const exceeded = minuteCount >= requestsPerMinute ? 'minute' : dayCount >= requestsPerDay ? 'day' : null;
    return {
      allowed: exceeded === null,
      exceeded,
      minuteCount,
      dayCount,
      minuteResetSeconds: minuteStart + SECONDS_PER_MINUTE,
      dayResetSeconds: dayStart + SECONDS_PER_DAY,
    };
  }

  /** Counts the request in both windows unless one is full: its counters as they now stand, or nothing when refused. */
  async function countIn(runner: PostgresDatabase | PostgresTransaction, { keyId, requestsPerMinute, requestsPerDay, nowSeconds }: RateWindowLimits) {
    if (requestsPerMinute <= 0 || requestsPerDay <= 0) return undefined;
    const minuteStart = nowSeconds - (nowSeconds % SECONDS_PER_MINUTE);
    const dayStart = nowSeconds - (nowSeconds % SECONDS_PER_DAY);
    const counted = await runner.execute<CounterRow>(sql`
      insert into rate_limit_counters as c (key_id, minute_start, minute_count, day_start, day_count)
      values (${keyId}, ${minuteStart}, 1, ${dayStart}, 1)
      on conflict (key_id) do update set
        minute_start = greatest(c.minute_start, excluded.minute_start),
        minute_count = case when excluded.minute_start > c.minute_start then 1 else c.minute_count + 1 end,
        day_start = greatest(c.day_start, excluded.day_start),
        day_count = case when excluded.day_start > c.day_start then 1 else c.day_count + 1 end
      where (excluded.minute_start > c.minute_start or c.minute_count < ${requestsPerMinute})
        and (excluded.day_start > c.day_start or c.day_count < ${requestsPerDay})
      returning minute_start, minute_count, day_start, day_count`);
    return counted.rows[0];
  }

  function countedOutcome(row: CounterRow): RateWindowOutcome {
    const countedMinute = Number(row.minute_start);
    const countedDay = Number(row.day_start);
    return {
      allowed: true,
      exceeded: null,
      minuteCount: row.minute_count,
      dayCount: row.day_count,
      minuteResetSeconds: countedMinute + SECONDS_PER_MINUTE,
      dayResetSeconds: countedDay + SECONDS_PER_DAY,
    };
  }

  /** Refused: the counters read for the headers (the minute window is reported first, as on SQLite). */
  async function refusedOutcome(limits: RateWindowLimits): Promise<RateWindowOutcome> {
    const refused = await readWindows(limits);
    return { ...refused, allowed: false, exceeded: refused.exceeded ?? 'minute' };
  }

  return {
    async consume(limits): Promise<RateWindowOutcome> {
      const row = await countIn(db, limits);
      return row ? countedOutcome(row) : refusedOutcome(limits);
    },
    async consumeWithSlot(limits, slot) {
      // The count and the slot commit together: the key's counter row stays locked until the
      // slot is taken, so neither is ever written without the other being decided.
      const admitted = await inTransaction(db, async (tx) => {
        const row = await countIn(tx, limits);
        return row ? { row, slotAcquired: await takeSlotInside(tx, slot) } : null;
      });
      if (admitted === null) return withSlot(await refusedOutcome(limits), false);
      return withSlot(countedOutcome(admitted.row), admitted.slotAcquired);
    },
    peek: readWindows,
    async lastCounted(keyIds) {
      if (keyIds.length === 0) return new Map();
      const rows = await db
        .select({ keyId: rateLimitCounters.keyId, minuteStart: rateLimitCounters.minuteStart })
        .from(rateLimitCounters)
        .where(inArray(rateLimitCounters.keyId, [...keyIds]));
      return new Map(rows.map((row) => [row.keyId, row.minuteStart]));
    },
  };
}
