/**
 * Waiting out another process's write lock without holding the event loop.
 *
 * SQLite's own busy handler waits inside the call, and better-sqlite3 calls are synchronous: a
 * process whose write met a lock held by another process (a second `--workers` process, a long
 * import, a backup tool, the sqlite3 shell) stopped serving every request, health checks
 * included, for as long as the lock lasted, up to the 5 s timeout. The server's connection
 * therefore sets `busy_timeout` to 0, so SQLite answers SQLITE_BUSY at once, and a call that met
 * the lock is tried again on a timer here, 5 s in all, while the process serves everything else.
 *
 * Calls that met the lock wait their turn, first come first served: only the first tries again,
 * every few milliseconds, and the next starts once it is done. Each call backing off on its own
 * was unfair: under many writers, calls arriving afresh took the lock whenever it came free while
 * those already waiting slept, up to 100 ms a time, and some waited the whole 5 s for nothing
 * (503 with no long lock anywhere: black-box test, 128 clients on `--workers 2`).
 *
 * A call is tried again only when the failed attempt changed no row (`total_changes()`, which
 * also counts changes a rollback undid, is where it was): the lock was met by its first write, at
 * BEGIN IMMEDIATE or by its one statement, so nothing of it happened and running it again is
 * running it once. A call that had written before the lock was met (two statements in a row
 * outside one transaction) fails as before, and the doors answer 503.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { wrapMethods } from '../guarded-repository.js';
import { sqliteOutageOf } from './unavailable-errors.js';

/** How long, in all, a call waits for another process's write lock before it gives up. */
export const LOCK_WAIT_MS = 5_000;

/**
 * The pauses of the call whose turn it is, between its attempts; the last one repeats. Short, as
 * it tries for the whole process: a lock held for seconds costs a failed BEGIN every 5 ms.
 */
const RETRY_PAUSES_MS = [1, 2, 5] as const;
const LONGEST_PAUSE_MS = 5;

/** A first-come, first-served queue of turns. */
class Turns {
  private last: Promise<void> = Promise.resolve();

  /**
   * Joins the queue: `ready` settles when every earlier member has left. `leave` must be called
   * once, before or after `ready` (a member that gave up waiting leaves early, and the next one's
   * turn comes when its own would have ended).
   */
  join(): { ready: Promise<void>; leave: () => void } {
    let leave = (): void => {};
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const ready = this.last;
    this.last = ready.then(() => left);
    return { ready, leave };
  }
}

/** Whether `ready` settled within `ms` milliseconds. */
async function within(ready: Promise<void>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([ready.then(() => true), sleep(ms, false, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

/** Wraps a connection's repositories so that each call waits out another process's write lock (see above). */
export function createLockWaits(sqlite: Database.Database): <Repository extends object>(repository: Repository) => Repository {
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const changesSoFar = (): number => totalChanges.get() as number;
  const turns = new Turns();
  /** Whether `err` is the lock, met before the failed attempt changed anything. */
  const metTheLock = (err: unknown, changesBefore: number): boolean => sqliteOutageOf(err)?.kind === 'locked' && changesSoFar() === changesBefore;

  return (repository) =>
    wrapMethods(repository, (call) => async (...args) => {
      const startedAt = performance.now();
      let changesBefore = changesSoFar();
      try {
        // Most calls meet no lock: the first attempt goes at once, ahead of any queue.
        return await call(args);
      } catch (err) {
        if (!metTheLock(err, changesBefore)) throw err;
        const turn = turns.join();
        try {
          if (!(await within(turn.ready, LOCK_WAIT_MS - (performance.now() - startedAt)))) throw err;
          // Its turn comes when the call before it is done, most often because that call got the
          // lock and is through: it tries at once, and pauses only after a failed try (second
          // review: a pause first drained a queue of 1,500 at one call a timer tick, and 797 of
          // them were refused after a 4 s lock had gone).
          for (let attempt = 0; ; attempt += 1) {
            if (attempt > 0) {
              const pause = RETRY_PAUSES_MS[attempt - 1] ?? LONGEST_PAUSE_MS;
              if (performance.now() - startedAt + pause > LOCK_WAIT_MS) throw err;
              await sleep(pause);
            }
            changesBefore = changesSoFar();
            try {
              return await call(args);
            } catch (retryErr) {
              if (!metTheLock(retryErr, changesBefore)) throw retryErr;
            }
          }
        } finally {
          turn.leave();
        }
      }
    });
}
