/**
 * Waiting out another process's write lock without holding the event loop.
 *
 * SQLite's own busy handler waits inside the call, and better-sqlite3 calls are synchronous: a
 * process whose write met a lock held by another process (a second `--workers` process, a long
 * import, a backup tool, the sqlite3 shell) stopped serving every request, health checks
 * included, for as long as the lock lasted, up to the 5 s timeout. The server's connection
 * therefore sets `busy_timeout` to 0, so SQLite answers SQLITE_BUSY at once, and each repository
 * call is tried again on a timer here, with SQLite's own schedule of waits and the same 5 s in
 * all, while the process serves everything else.
 *
 * A call is tried again only when the failed attempt changed no row (`total_changes()`, which
 * also counts changes a rollback undid, is where it was): the lock was met by its first write, at
 * BEGIN IMMEDIATE or by its one statement, so nothing of it happened and running it again is
 * running it once. A call that had written before the lock was met (two statements in a row
 * outside one transaction) fails as before, and the doors answer 503.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { sqliteOutageOf } from './unavailable-errors.js';

/** How long, in all, a call waits for another process's write lock before it gives up. */
export const LOCK_WAIT_MS = 5_000;

/** The waits between attempts, as SQLite's default busy handler sleeps; the last one repeats. */
const WAITS_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100] as const;
const LONGEST_WAIT_MS = 100;

/** `repository` with each method tried again while another process holds the write lock. */
export function waitingOutLocks<Repository extends object>(repository: Repository, sqlite: Database.Database): Repository {
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const changesSoFar = (): number => totalChanges.get() as number;
  const methods = Object.entries(repository).map(([name, method]) => [
    name,
    typeof method === 'function'
      ? async (...args: unknown[]) => {
          const startedAt = performance.now();
          for (let attempt = 0; ; attempt += 1) {
            const changesBefore = changesSoFar();
            try {
              return await method.apply(repository, args);
            } catch (err) {
              const wait = WAITS_MS[attempt] ?? LONGEST_WAIT_MS;
              const retryable = sqliteOutageOf(err)?.kind === 'locked' && changesSoFar() === changesBefore;
              if (!retryable || performance.now() - startedAt + wait > LOCK_WAIT_MS) throw err;
              await sleep(wait);
            }
          }
        }
      : method,
  ]);
  return Object.fromEntries(methods) as Repository;
}
