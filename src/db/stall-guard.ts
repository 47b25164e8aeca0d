/**
 * The pace of a copy that works in steps (SQLite's online backup): how many pages each step
 * copies, and when to give the copy up. Engine-neutral and pure, so it is tested on its own clock.
 */

/** Pages copied per step at first, better-sqlite3's default: steps yield to the event loop between them. */
const BACKUP_PAGES_PER_STEP = 100;
/** How much bigger each step gets after a restart. */
const STEP_GROWTH = 4;

/**
 * The backup's progress callback, answering the pages the next step copies.
 *
 * A write to the database between two steps makes SQLite start the copy again from its first
 * page. On a large database under steady writes (each authenticated request writes its rate
 * limit), every copy was restarted before it finished, for ever (regression: 420 MB never got
 * backed up at two requests a second). So each restart makes the steps four times bigger, until
 * one step copies the whole database: a step reads one snapshot, which a writer does not disturb
 * in WAL mode, so that copy always ends.
 *
 * It throws once `stallMs` passed without any page copied, which ends the copy with that error:
 * SQLite answering "busy" for a database it cannot read at all (a read-only -shm file left by
 * another user), where better-sqlite3 would retry for ever at full speed (regression: it spun
 * for 23 minutes). A restart copies pages too, so it is no stall. `now` is the clock.
 */
export function stallGuard(stallMs: number, now: () => number = Date.now): (progress: { totalPages: number; remainingPages: number }) => number {
  let remaining = Number.POSITIVE_INFINITY;
  let pagesPerStep = BACKUP_PAGES_PER_STEP;
  let progressedAt = now();
  return ({ totalPages, remainingPages }) => {
    // A step that left as many pages to copy as the one before (or more) was restarted, or found
    // the database busy; growing the step is what ends the first and costs the second nothing
    // (review: a write between every two steps left the same count each time, so never grew).
    if (remainingPages >= remaining) pagesPerStep = Math.min(pagesPerStep * STEP_GROWTH, Math.max(totalPages, BACKUP_PAGES_PER_STEP));
    if (remainingPages !== remaining) progressedAt = now();
    remaining = remainingPages;
    if (now() - progressedAt > stallMs) {
      throw new Error(
        `no page could be copied for ${stallMs / 1000} s: the database is locked, or cannot be read by this user (check the owner and mode of the database and its -wal and -shm files)`,
      );
    }
    return pagesPerStep;
  };
}
