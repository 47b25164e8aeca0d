/**
 * Housekeeping the server runs on a timer: reservations left open by a crash go back to their
 * accounts, and idempotency records past their 24 hours are dropped.
 */
import type { Logger } from 'pino';
import type { CreditService } from './credits/credits.js';
import type { IdempotencyService } from './idempotency.js';

/** Often enough that a crash's reservations return within minutes of expiring; cheap when idle. */
export const SWEEP_INTERVAL_MS = 60_000;

export interface SweepReport {
  releasedReservations: number;
  expiredIdempotencyRecords: number;
}

export function createMaintenance(credits: CreditService, idempotency: IdempotencyService, logger: Logger) {
  async function sweep(): Promise<SweepReport> {
    const report = {
      releasedReservations: await credits.releaseExpired(),
      expiredIdempotencyRecords: await idempotency.deleteExpired(),
    };
    if (report.releasedReservations > 0) logger.warn(report, 'released credit reservations left open by an interrupted run');
    return report;
  }

  return {
    sweep,
    /** Sweeps now and then every interval; the timer never keeps the process alive. Returns a stop function. */
    start(intervalMs: number = SWEEP_INTERVAL_MS): () => void {
      const run = () => {
        sweep().catch((err: unknown) => logger.error({ err }, 'maintenance sweep failed'));
      };
      run();
      const timer = setInterval(run, intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
