/**
 * Housekeeping the server runs on a timer: what crashed processes held (their leases ran out) is
 * released and the runs they were executing go back to the queue (or fail, once cut off too
 * often), reservations left open past their time go back to their accounts, and idempotency
 * records past their 24 hours are dropped, and run payloads and the versions of deleted resources
 * past `retention.run_days` are pruned (the run's summary, usage records and the ledger are kept),
 * and so are webhook delivery payloads (their attempts' status codes and timings are kept), and
 * console sessions and one-time links that ended, and the OAuth server's expired codes and tokens.
 */
import type { Logger } from 'pino';
import type { AccruedCharging, InstanceRepository } from '../db/store.js';
import type { ConsoleSessions } from './access/console-sessions.js';
import type { OAuthService } from './access/oauth.js';
import type { CreditService } from './credits/credits.js';
import type { IdempotencyService } from './idempotency.js';
import type { Instance } from './instance.js';
import type { LifecycleService } from './catalog/lifecycle.js';
import type { RunQueue } from './runs/run-queue.js';
import type { RunService } from './runs/runs.js';
import type { WebhookService } from './webhooks/webhooks.js';

/** Often enough that a crash's reservations return within a minute of its lease ending; cheap when idle. */
export const SWEEP_INTERVAL_MS = 30_000;

export interface SweepReport {
  retiredInstances: number;
  releasedReservations: number;
  expiredIdempotencyRecords: number;
  prunedRunPayloads: number;
  prunedDeletedVersions: number;
  /** Runs of stopped processes put back in the queue, and those failed for being cut off too often. */
  requeuedRuns: number;
  failedRuns: number;
  prunedWebhookPayloads: number;
  /** Console sessions and one-time links that ended (revoked, expired or used) more than a day ago. */
  prunedSignIns: number;
  /** OAuth codes, tokens, sessions and interactions that expired more than a day ago. */
  prunedOAuthObjects: number;
}

export interface MaintenanceDependencies {
  credits: CreditService;
  idempotency: IdempotencyService;
  runs: Pick<RunService, 'prunePayloads'>;
  runQueue: Pick<RunQueue, 'recover'>;
  webhooks: Pick<WebhookService, 'prunePayloads'>;
  consoleSessions: Pick<ConsoleSessions, 'pruneEnded'>;
  oauth: Pick<OAuthService, 'pruneExpired'>;
  catalog: Pick<LifecycleService, 'pruneDeletedVersions'>;
  instances: InstanceRepository;
  /** How what an expired process's reservations accrued is charged (credits.ts, accruedChargingAt). */
  accruedCharging: () => AccruedCharging;
  /** This process: its own lease is renewed before expired ones are retired, so a late renewal never retires itself. */
  instance: Instance;
  logger: Logger;
}

export function createMaintenance({
  credits,
  idempotency,
  runs,
  runQueue,
  webhooks,
  consoleSessions,
  oauth,
  catalog,
  instances,
  accruedCharging,
  instance,
  logger,
}: MaintenanceDependencies) {
  async function sweep(): Promise<SweepReport> {
    await instance.renew();
    const retiredInstances = await instances.retireExpired(accruedCharging());
    // After the retirements: the runs of the processes just retired are recovered in the same sweep.
    const recovered = await runQueue.recover();
    const report = {
      retiredInstances,
      requeuedRuns: recovered.requeued,
      failedRuns: recovered.failed,
      releasedReservations: await credits.releaseExpired(),
      expiredIdempotencyRecords: await idempotency.deleteExpired(),
      prunedRunPayloads: await runs.prunePayloads(),
      prunedDeletedVersions: await catalog.pruneDeletedVersions(),
      prunedWebhookPayloads: await webhooks.prunePayloads(),
      prunedSignIns: await consoleSessions.pruneEnded(),
      prunedOAuthObjects: await oauth.pruneExpired(),
    };
    if (report.retiredInstances > 0) logger.warn(report, 'released what stopped Porch processes held (their leases ran out)');
    else if (report.releasedReservations > 0) logger.warn(report, 'released credit reservations left open by an interrupted run');
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
