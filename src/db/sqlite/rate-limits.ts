import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { immediateTransaction } from './immediate-transaction.js';
import { onFirstUse } from './on-first-use.js';
import { rateLimitCounters } from './schema.js';
import type { RateLimitRepository, RateWindowLimits, RateWindowOutcome } from '../store.js';

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
  const upsert = onFirstUse(() =>
    db
      .insert(rateLimitCounters)
      .values({
        keyId: sql.placeholder('keyId'),
        window: sql.placeholder('window'),
        windowStart: sql.placeholder('windowStart'),
        count: sql.placeholder('count'),
      })
      .onConflictDoUpdate({
        target: [rateLimitCounters.keyId, rateLimitCounters.window],
        set: { windowStart: sql`excluded.window_start`, count: sql`excluded.count` },
      })
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

  const consumeWindows = immediateTransaction(db, (limits: RateWindowLimits): RateWindowOutcome => {
    const windows = readWindows(limits);
    if (!windows.allowed) return windows;
    const counted = { ...windows, minuteCount: windows.minuteCount + 1, dayCount: windows.dayCount + 1 };
    upsert().run({ keyId: limits.keyId, window: 'minute', windowStart: counted.minuteResetSeconds - SECONDS_PER_MINUTE, count: counted.minuteCount });
    upsert().run({ keyId: limits.keyId, window: 'day', windowStart: counted.dayResetSeconds - SECONDS_PER_DAY, count: counted.dayCount });
    return counted;
  });

  return {
    async consume(limits) {
      return consumeWindows(limits);
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
