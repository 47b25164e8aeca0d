/**
 * Retrying a versioned write that a concurrent writer got to first. Each write names the version
 * it read (`baseVersion`); when another writer committed meanwhile, the loser reads afresh and
 * tries again. Of the writers that collide, one wins each round, so without a pause the others
 * re-read at once and collide again: on PostgreSQL, ten writers to one resource used up eight
 * immediate attempts and some were refused with 409. A random pause that grows with each attempt
 * spreads them out, so each gets its own version, as docs/versions-and-labels.md promises.
 */

/** How many times a write reads afresh before giving up with 409 CONFLICT. */
export const MAX_WRITE_ATTEMPTS = 32;

/** The longest pause between two attempts, in ms: enough to spread a few dozen writers. */
const MAX_PAUSE_MS = 50;

/** Waits before attempt `attempt + 1`: a random time up to 2^attempt ms, at most MAX_PAUSE_MS. */
export function pauseBeforeRetry(attempt: number): Promise<void> {
  const ceilingMs = Math.min(2 ** attempt, MAX_PAUSE_MS);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}
