/**
 * How long the event loop was held while some work ran: the server under test shares this
 * process's loop, so a request that blocks it shows here as one long delay. This measures what
 * the guarantee is about (other requests wait) without timing the request itself.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Sampling interval of the monitor, in milliseconds: fine enough to see a 50 ms stall. */
const RESOLUTION_MS = 10;

/** The longest the loop was held while `work` ran, in milliseconds, and the work's result. */
export async function longestEventLoopDelay<T>(work: () => Promise<T>): Promise<{ longestMs: number; result: T }> {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  try {
    const result = await work();
    return { longestMs: histogram.max / 1e6, result };
  } finally {
    histogram.disable();
  }
}
