/**
 * A bound on executions in flight per key. The rate limiter counts requests per minute; it does
 * not stop one key from holding dozens of slow workflow runs open at once (each holding credit
 * reservations, provider connections and memory). This does, by refusing the extra run with 429
 * before it reserves anything.
 *
 * The count lives in the process: two Porch processes on one database each allow the limit. That
 * is deliberate, as in-flight runs use the resources of the process that runs them, and a counter
 * in the database would be left non-zero forever by a crash.
 */
import { PorchError } from '../errors.js';

/**
 * Default in-flight executions per key. A workflow already runs its ready nodes concurrently, so
 * a handful of parallel runs is ample for a real client; more is a runaway loop or an abuse.
 */
export const DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY = 8;

/** Runs end within seconds to a few minutes; a second is a reasonable first wait. */
const RETRY_AFTER_SECONDS = 1;

export interface ConcurrencyLimiter {
  /** Runs `task` while holding one of the key's slots; 429 RATE_LIMITED when none is free. */
  run<T>(keyId: string, task: () => Promise<T>): Promise<T>;
  /** Runs in flight for the key now (for tests and diagnostics). */
  inFlight(keyId: string): number;
}

export function createConcurrencyLimiter(maxPerKey: number = DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY): ConcurrencyLimiter {
  if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new Error('The concurrent execution limit must be a positive integer.');
  const counts = new Map<string, number>();
  return {
    async run(keyId, task) {
      const current = counts.get(keyId) ?? 0;
      if (current >= maxPerKey) {
        throw new PorchError(
          'RATE_LIMITED',
          `Too many concurrent executions for this key: at most ${maxPerKey} may be in flight at once. Wait for one to finish, then retry.`,
          { retryAfterSeconds: RETRY_AFTER_SECONDS },
        );
      }
      counts.set(keyId, current + 1);
      try {
        return await task();
      } finally {
        const remaining = (counts.get(keyId) ?? 1) - 1;
        if (remaining <= 0) counts.delete(keyId);
        else counts.set(keyId, remaining);
      }
    },
    inFlight: (keyId) => counts.get(keyId) ?? 0,
  };
}
