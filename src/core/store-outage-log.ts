/**
 * The operator's line about a database that could not answer (a full disk, a lock held by another
 * process, PostgreSQL out of reach): the client hears only 503, so without it nobody learns why.
 * During an outage every request meets it, so the line is written at most every 10 s per process.
 */
import type { Logger } from 'pino';
import { StoreUnavailableError } from '../db/store.js';
import { type PorchError, storeOutageOf } from './errors.js';

const OUTAGE_LOG_INTERVAL_MS = 10_000;

export type StoreOutageLog = (error: PorchError, fields: Record<string, unknown>) => void;

export function createStoreOutageLog(logger: Logger, now: () => number = Date.now): StoreOutageLog {
  let loggedAt = Number.NEGATIVE_INFINITY;
  return (error, fields) => {
    const reason = storeOutageOf(error);
    if (reason === undefined || now() - loggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    loggedAt = now();
    logger.warn({ reason, ...fields }, 'the database could not answer; requests get 503 until it can');
  };
}

/**
 * A background step's failure line (claiming queued runs, polling webhook deliveries, renewing the
 * process lease, an idle connection dropped): every poll meets an outage of the database, so a
 * failure `throttled` says is one (by default, the store could not answer) is written at most
 * every 10 s per step, without its stack, with how many failures the line stands for; any other
 * is written each time, as it happens (regression: 200 lines with stacks in 23 s of outage).
 */
export function createBackgroundFailureLog(
  logger: Logger,
  message: string,
  { level = 'error', throttled = (err: unknown) => err instanceof StoreUnavailableError, now = Date.now }: BackgroundFailureLogOptions = {},
): (err: unknown) => void {
  let loggedAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  return (err) => {
    if (!throttled(err)) {
      logger[level]({ err }, message);
      return;
    }
    failures += 1;
    if (now() - loggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    loggedAt = now();
    logger.warn({ reason: err instanceof Error ? err.message : String(err), failures }, message);
    failures = 0;
  };
}

export interface BackgroundFailureLogOptions {
  /** The level of a failure written each time (a throttled one is a warning). */
  level?: 'warn' | 'error';
  /** Which failures are throttled: by default, the store's outage. */
  throttled?: (err: unknown) => boolean;
  now?: () => number;
}
