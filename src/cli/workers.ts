/**
 * `porch serve --workers N`: N server processes sharing one port (node:cluster), so one host uses
 * all its cores. Every guarantee already holds across processes (they share the database: limits,
 * credits, idempotency and in-flight slots are counted there), so workers need no coordination
 * beyond this supervisor: it prepares the database once, starts the workers, restarts one that
 * dies, and stops them all on SIGINT or SIGTERM.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { CliUsageError, parseNumber, type CliContext } from './context.js';

/** The supervisor's request that a worker shut down (src/cli/index.ts listens for it). */
export const STOP_MESSAGE_TYPE = 'porch:stop';

/** What a worker tells the supervisor once it listens. */
interface ListeningMessage {
  type: 'porch:listening';
  url: string;
}

function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === 'porch:listening' && 'url' in message;
}

/**
 * How long a worker may take to stop after its drain (`processes.drain_seconds`) before it is
 * killed: its requests' and runs' grace (DEFAULT_SERVER_TIMEOUTS.shutdownGraceMs, 10 s, both from
 * the same moment), up to 5 s for the calls it cut to settle, then releasing its lease and
 * closing the database, with room to spare. Killed sooner, it left its reservations and runs to
 * be recovered when its lease ran out, as after a crash (regression: 15 s, shorter than that).
 */
const STOP_DEADLINE_MS = 25_000;

/** A replacement for a dead worker that itself dies before listening is retried after this pause, not in a tight loop. */
const RESTART_PAUSE_MS = 1_000;

/** The most processes `--workers` starts: a bound on a mistyped count, far above any host's cores. */
const MAX_WORKERS = 256;

/** Resolves `--workers` / PORCH_WORKERS: a whole number of at least 1, or `auto` for one per core. */
export function parseWorkerCount(value: string | undefined): number {
  // Unset is the default; an empty --workers '' is a mistake (regression: it started one process).
  if (value === undefined) return 1;
  if (value === 'auto') return availableParallelism();
  return parseNumber('--workers (or PORCH_WORKERS)', { whole: true, min: 1, max: MAX_WORKERS, orElse: 'auto' })(value);
}

/** True in a process the supervisor started: it serves, and reports to the supervisor instead of printing. */
export function isWorkerProcess(): boolean {
  return cluster.isWorker;
}

/** Lets a worker that has shut down exit: its IPC channel to the supervisor would otherwise keep it alive. */
export function releaseWorker(): void {
  if (cluster.isWorker) cluster.worker?.disconnect();
}

/** Tells the supervisor this worker listens. */
export function reportListening(url: string): void {
  const message: ListeningMessage = { type: 'porch:listening', url };
  process.send?.(message);
}

/**
 * Runs `count` workers until stopped. Resolves once every worker has exited after a stop;
 * rejects when a worker cannot start (its own log on stderr says why).
 */
export async function superviseWorkers({
  context,
  config,
  count,
  logger,
}: {
  context: CliContext;
  config: Config;
  count: number;
  logger: Logger;
}): Promise<void> {
  let stopping = false;
  const listening = new Set<Worker>();
  let reportedUrl: string | null = null;
  let failStartup: (error: Error) => void = () => undefined;
  let allListening: () => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    allListening = resolve;
    failStartup = reject;
  });

  let startupDone = false;
  // A replacement keeps the index of the worker it replaces, so its metrics port (metrics.port + index) stays the one Prometheus scrapes.
  const startWorker = (index: number) => {
    // The supervisor already created the demo account when there was none; workers must not race to.
    const worker = cluster.fork({ ...context.env, PORCH_NO_BOOTSTRAP: '1', PORCH_WORKER_INDEX: String(index) });
    worker.on('message', (message: unknown) => {
      if (!isListeningMessage(message)) return;
      listening.add(worker);
      reportedUrl ??= message.url;
      if (listening.size === count) allListening();
    });
    worker.on('exit', (code, signal) => {
      const wasListening = listening.delete(worker);
      if (stopping) return;
      const reason = signal ?? `exit code ${code}`;
      if (!startupDone && !wasListening) {
        // A worker that cannot start (bad configuration, port taken) would fail the same way again.
        // The operator's to fix, as its log says: said plainly, not as an unexpected error.
        failStartup(new CliUsageError(`A worker stopped while starting (${reason}); its log above says why.`));
        return;
      }
      logger.error({ pid: worker.process.pid, reason }, 'a worker stopped unexpectedly; starting a new one');
      setTimeout(() => startWorker(index), wasListening ? 0 : RESTART_PAUSE_MS).unref();
    });
    return worker;
  };

  for (let index = 0; index < count; index++) startWorker(index);
  const stop = async () => {
    stopping = true;
    const exits = Object.values(cluster.workers ?? {}).map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (!worker || worker.isDead()) return resolve();
          worker.once('exit', () => resolve());
          // A listening worker finishes its requests; one still starting has none, and would not yet hear the message.
          if (listening.has(worker)) worker.send({ type: STOP_MESSAGE_TYPE });
          else worker.process.kill('SIGTERM');
          // A worker that outlives its shutdown grace is stuck: end it rather than hang the stop.
          setTimeout(() => worker.process.kill('SIGKILL'), config.shutdownDrainMs + STOP_DEADLINE_MS).unref();
        }),
    );
    await Promise.all(exits);
  };

  try {
    await started;
    startupDone = true;
  } catch (err) {
    await stop();
    throw err;
  }
  logger.info({ workers: count, url: reportedUrl }, 'Porch is listening');
  context.stdout.write(`Porch is listening on ${reportedUrl} with ${count} workers (API ${config.publicUrl}/api/public/v1)\n`);
  const signal = await context.waitForStop();
  logger.info({ signal }, 'shutting down the workers');
  await stop();
}
