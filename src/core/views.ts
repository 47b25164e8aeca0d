/** Shared helpers for shaping records into API views. */
import { toIsoTimestamp } from './clock.js';

export { toIsoTimestamp };

export function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : toIsoTimestamp(epochMs);
}
