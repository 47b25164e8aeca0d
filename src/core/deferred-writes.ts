/**
 * Writes that must land although the store was out of reach when they were first made: ending
 * an Idempotency-Key's claim, storing its answer, recording how a queued run ended. Left undone,
 * each holds something for as long as this process lives, since the process's lease keeps being
 * renewed once the store is back: the key answers "still running" for a day, the run stays
 * `running` with the account's run slot (regression: a few seconds of PostgreSQL outage did
 * both, until the process restarted). So each is retried, with a growing pause, until it lands.
 * If the process stops first, its lease runs out and every process releases what it held, as
 * after a crash. A write the store refuses for another reason is not retried: it never would land.
 */
import type { Logger } from 'pino';
import { StoreUnavailableError } from '../db/store.js';

/** The first pause, doubled after each failed attempt up to the longest. */
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 30_000;

export interface DeferredWrites {
  /**
   * Runs `write` now; if the store is out of reach, retries it until it lands, and answers at
   * once (the caller's own outcome does not wait on the store). Other failures are thrown.
   */
  attempt(what: string, write: () => Promise<void>): Promise<void>;
  /** Tries every pending write once more (a shutdown, before the store closes). */
  flush(): Promise<void>;
  /** Writes still waiting for the store. */
  readonly pending: number;
}

export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof StoreUnavailableError;
}

export function createDeferredWrites(logger: Logger): DeferredWrites {
  const waiting = new Map<symbol, { what: string; write: () => Promise<void>; timer: NodeJS.Timeout | null }>();

  const retry = (id: symbol, pauseMs: number) => {
    const entry = waiting.get(id);
    if (entry === undefined) return;
    entry.timer = setTimeout(() => {
      entry.timer = null;
      entry.write().then(
        () => {
          waiting.delete(id);
          logger.info({ write: entry.what }, 'a write delayed while the database was out of reach has landed');
        },
        (err: unknown) => {
          if (isStoreUnavailable(err)) return retry(id, Math.min(pauseMs * 2, LONGEST_PAUSE_MS));
          waiting.delete(id);
          logger.error({ err, write: entry.what }, 'a write delayed while the database was out of reach was refused; it is not retried');
        },
      );
    }, pauseMs);
    // A process with nothing else to do may exit: its lease then releases what the write would have.
    entry.timer.unref();
  };

  return {
    async attempt(what, write) {
      try {
        await write();
      } catch (err) {
        if (!isStoreUnavailable(err)) throw err;
        logger.warn({ write: what }, 'the database is out of reach; the write is retried until it lands');
        const id = Symbol(what);
        waiting.set(id, { what, write, timer: null });
        retry(id, FIRST_PAUSE_MS);
      }
    },

    async flush() {
      for (const [id, entry] of [...waiting]) {
        if (entry.timer !== null) clearTimeout(entry.timer);
        try {
          await entry.write();
          waiting.delete(id);
        } catch (err) {
          logger.warn({ err, write: entry.what }, 'a delayed write did not land before the shutdown; the lease releases what it held');
          waiting.delete(id);
        }
      }
    },

    get pending() {
      return waiting.size;
    },
  };
}
