/**
 * The operator's line about a database that could not answer (a full disk, a lock held by another
 * process, PostgreSQL out of reach): the client hears only 503, so without it nobody learns why.
 * During an outage every request meets it, so the line is written at most every 10 s per process.
 */
import type { Logger } from 'pino';
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
