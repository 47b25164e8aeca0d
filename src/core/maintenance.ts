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
  /**
   * How long until expired processes may be released: 0 when this sweep looked for them; else
   * this process has not reached the database steadily for long enough to tell a dead process
   * from one that has not renewed since an outage (instance.ts, settlesIn), and nothing was released.
   */
  releaseDeferredMs: number;
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
  /** Retires the processes whose lease ran out, then puts the runs they held back in the queue. */
  async function releaseDeadProcesses() {
    const retiredInstances = await instances.retireExpired(accruedCharging());
    const recovered = await runQueue.recover();
    return { retiredInstances, requeuedRuns: recovered.requeued, failedRuns: recovered.failed };
  }

  async function sweep(): Promise<SweepReport> {
    // Registered (an idle process too) and renewed before expired leases are read, so a late renewal never retires this process.
    await instance.ready();
    await instance.renew();
    const releaseDeferredMs = instance.settlesIn();
    const released = releaseDeferredMs === 0 ? await releaseDeadProcesses() : { retiredInstances: 0, requeuedRuns: 0, failedRuns: 0 };
    const report = {
      ...released,
      releaseDeferredMs,
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
      let followUp: NodeJS.Timeout | undefined;
      const run = () => {
        sweep().then(
          ({ releaseDeferredMs }) => {
            // A release put off (at start-up, after an outage) happens once it may, not a whole interval later.
            if (releaseDeferredMs === 0 || releaseDeferredMs >= intervalMs) return;
            clearTimeout(followUp);
            followUp = setTimeout(run, releaseDeferredMs);
            followUp.unref();
          },
          (err: unknown) => logger.error({ err }, 'maintenance sweep failed'),
        );
      };
      run();
      const timer = setInterval(run, intervalMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        clearTimeout(followUp);
      };
    },
  };
}
