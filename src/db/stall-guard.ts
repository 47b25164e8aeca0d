/**
 * A guard for a copy that works in steps (SQLite's online backup): it gives the copy up once it
 * went `stallMs` without progress. Engine-neutral and pure, so it is tested on its own clock.
 */

/** Pages copied per step, better-sqlite3's default: steps yield to the event loop between them. */
const BACKUP_PAGES_PER_STEP = 100;

/**
 * The backup's progress callback: it throws once `stallMs` passed without a page copied, which
 * ends the copy with that error. `now` is the clock (tests give their own).
 */
export function stallGuard(stallMs: number, now: () => number = Date.now): (progress: { remainingPages: number }) => number {
  let remaining = Number.POSITIVE_INFINITY;
  let progressedAt = now();
  return ({ remainingPages }) => {
    if (remainingPages < remaining) progressedAt = now();
    remaining = remainingPages;
    if (now() - progressedAt > stallMs) {
      throw new Error(
        `no page could be copied for ${stallMs / 1000} s: the database is locked, or cannot be read by this user (check the owner and mode of the database and its -wal and -shm files)`,
      );
    }
    return BACKUP_PAGES_PER_STEP;
  };
}
