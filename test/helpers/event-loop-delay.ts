/**
 * How long the event loop was held while some work ran: the server under test shares this
 * process's loop, so a request that blocks it shows here as one long delay. This measures what
 * the guarantee is about (other requests wait) without timing the request itself.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Sampling interval of the monitor, in milliseconds: fine enough to see a 50 ms stall. */
const RESOLUTION_MS = 10;

/** Longer than two of the monitor's samples: by then it measures (see longestEventLoopDelay). */
const BASELINE_MS = 3 * RESOLUTION_MS;

/**
 * The longest delay a test accepts. Work that runs on the event loop when it should not (a scan
 * of a megabyte, an unbounded token count, a dagre layout of 200 nodes) holds it for seconds; on a
 * loaded 2-core machine, JSON of a few hundred kilobytes, a GC pause or the scheduler giving the
 * core to another test's process can delay it by tens of milliseconds (62 ms has been seen in CI).
 * The 50 ms budget per request is measured in the benches, not here.
 */
export const STALL_BOUND_MS = 300;

/** The longest the loop was held while `work` ran, in milliseconds, and the work's result. */
export async function longestEventLoopDelay<T>(work: () => Promise<T>): Promise<{ longestMs: number; result: T }> {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // The monitor's first sample only sets its baseline: a hold that began before the second went
  // unseen (regression: a compile starting a few milliseconds into the work measured nothing).
  await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
  try {
    const result = await work();
    return { longestMs: histogram.max / 1e6, result };
  } finally {
    histogram.disable();
  }
}
