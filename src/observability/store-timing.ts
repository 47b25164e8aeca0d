/**
 * Times the store's check-and-update transactions (rate windows, credit reservations and
 * settlements, idempotency claims, in-flight slots): the calls every metered request makes and
 * whose latency, on a busy PostgreSQL, is the first thing to grow. Applied by the composition root
 * around the store core receives, so neither core nor the engines know about it.
 */
import type { Store } from '../db/store.js';

/** The repositories whose every call is one transaction on the hot path. */
const TIMED_REPOSITORIES = ['rateLimits', 'credits', 'idempotency', 'executionSlots'] as const satisfies ReadonlyArray<keyof Store>;

function timed<Repository extends object>(name: string, repository: Repository, observe: (call: string, seconds: number) => void): Repository {
  const wrapped: Record<string, unknown> = {};
  for (const [method, value] of Object.entries(repository)) {
    if (typeof value !== 'function') {
      wrapped[method] = value;
      continue;
    }
    const call = `${name}.${method}`;
    // The caller gets the repository's own promise: an async wrapper would add a promise and a
    // microtask turn to every call on the hot path, for a timer that only needs to see it settle.
    wrapped[method] = (...args: unknown[]) => {
      const startedAt = process.hrtime.bigint();
      const settled = () => observe(call, Number(process.hrtime.bigint() - startedAt) / 1e9);
      const result = (value as (...callArgs: unknown[]) => Promise<unknown>).apply(repository, args);
      result.then(settled, settled);
      return result;
    };
  }
  return wrapped as Repository;
}

export function timeStoreTransactions(store: Store, observe: (call: string, seconds: number) => void): Store {
  const timedStore: Store = { ...store };
  for (const name of TIMED_REPOSITORIES) Object.assign(timedStore, { [name]: timed(name, store[name], observe) });
  return timedStore;
}
