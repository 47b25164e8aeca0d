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

/**
 * The first pause, doubled after each failed attempt up to the longest: a write lands at the
 * latest that long after the store is back (what a 409 for a key still being released says).
 */
const FIRST_PAUSE_MS = 500;
export const LONGEST_PAUSE_MS = 30_000;

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

/** How long a shutdown's last try of the pending writes may take, all of them at once. */
const FLUSH_LIMIT_MS = 3_000;

interface Waiting {
  what: string;
  write: () => Promise<void>;
  /** The pause before the next attempt, while one is scheduled. */
  timer: NodeJS.Timeout | null;
  /** The attempt under way, while one is. */
  attempt: Promise<void> | null;
}

export function createDeferredWrites(logger: Logger): DeferredWrites {
  const waiting = new Set<Waiting>();

  /** One attempt; true when the write landed or will never land, false to try again. */
  const tryOnce = (entry: Waiting): Promise<boolean> => {
    const attempt = entry.write().then(
      () => {
        waiting.delete(entry);
        logger.info({ write: entry.what }, 'a write delayed while the database was out of reach has landed');
        return true;
      },
      (err: unknown) => {
        if (isStoreUnavailable(err)) return false;
        waiting.delete(entry);
        logger.error({ err, write: entry.what }, 'a write delayed while the database was out of reach was refused; it is not retried');
        return true;
      },
    );
    entry.attempt = attempt.then(() => undefined);
    return attempt.finally(() => {
      entry.attempt = null;
    });
  };

  const schedule = (entry: Waiting, pauseMs: number) => {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      void tryOnce(entry).then((done) => {
        if (!done && waiting.has(entry)) schedule(entry, Math.min(pauseMs * 2, LONGEST_PAUSE_MS));
      });
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
        const entry: Waiting = { what, write, timer: null, attempt: null };
        waiting.add(entry);
        schedule(entry, FIRST_PAUSE_MS);
      }
    },

    async flush() {
      // Each write once more, one after another within a bound: an attempt under way is awaited,
      // not made twice; a scheduled one is made now. The first that still finds the store out of
      // reach ends the flush, as the others would too: on SQLite each such write waits up to 5 s
      // for another process's lock, so writes made one after another ran past the bound (second
      // review: 15 s for three). What has not landed is left to the lease.
      const deadline = Date.now() + FLUSH_LIMIT_MS;
      for (const entry of [...waiting]) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        if (entry.timer !== null) clearTimeout(entry.timer);
        entry.timer = null;
        const landed = (async () => {
          if (entry.attempt !== null) await entry.attempt;
          return !waiting.has(entry) || (await tryOnce(entry));
        })();
        let limit: NodeJS.Timeout | undefined;
        const done = await Promise.race([landed, new Promise<false>((resolve) => (limit = setTimeout(() => resolve(false), remaining)))]);
        clearTimeout(limit);
        if (!done) break;
      }
      if (waiting.size > 0)
        logger.warn({ writes: [...waiting].map((entry) => entry.what) }, 'delayed writes did not land before the shutdown; the lease releases what they held');
      waiting.clear();
    },

    get pending() {
      return waiting.size;
    },
  };
}
