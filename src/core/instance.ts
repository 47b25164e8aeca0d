/**
 * This process as the other Porch processes see it: an id and a lease in the database. What the
 * process holds while it works (credit reservations, execution slots, unfinished idempotency
 * claims) is recorded under its id, so when the process ends the others can release it: at once
 * after a clean shutdown (`retire`), and once the lease runs out after a crash (`kill -9`, a lost
 * host), when any process's sweep or the retry of a claimed request finds it expired.
 *
 * An expired lease proves a process dead only to a process that reaches the database itself:
 * after an outage every lease has lapsed, the live processes' included, and they renew within a
 * second or two of its end. So a process releases another's holdings only once its own renewals
 * have succeeded for a renewal period without a failure (`settled`); until then it waits.
 */
import type { Logger } from 'pino';
import type { AccruedCharging, InstanceRepository } from '../db/store.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';
import { createBackgroundFailureLog } from './store-outage-log.js';

/**
 * How long a process counts as alive after its last renewal. Long enough that a busy event loop
 * or a database hiccup of a few seconds never makes a live process look dead (which would release
 * its reservations while it still runs); short enough that a crashed process's claims free up
 * within half a minute for the client's retry.
 */
export const DEFAULT_LEASE_MS = 30_000;

/** Renewing three times per lease survives two missed renewals. */
const RENEWALS_PER_LEASE = 3;

/**
 * After a failed renewal (the database out of reach), how soon the next is tried: the lease may
 * have lapsed meanwhile, and until it is renewed the other processes may take this one for dead.
 */
const RETRY_AFTER_FAILURE_MS = 1_000;

export interface Instance {
  readonly id: string;
  /** Registers the lease on first use and keeps renewing it; resolves to the instance id. */
  ready(): Promise<string>;
  /** Renews the lease now, if this process registered one. */
  renew(): Promise<void>;
  /** Stops renewing and releases what the process still holds; for a clean shutdown. */
  retire(): Promise<void>;
  /**
   * How long until this process may take an expired lease as a dead process's: 0 once its own
   * renewals have reached the store for a renewal period without a failure; until then, or
   * while it is not registered, how much longer that takes (the whole period when unknown).
   */
  settlesIn(): number;
}

export function createInstance({
  store,
  clock,
  logger,
  leaseMs = DEFAULT_LEASE_MS,
  accruedCharging,
}: {
  store: InstanceRepository;
  clock: Clock;
  logger: Logger;
  leaseMs?: number;
  /** How what this process's reservations accrued is charged when it retires (credits.ts, accruedChargingAt). */
  accruedCharging: () => AccruedCharging;
}): Instance {
  const id = newId();
  const logRenewalFailure = createBackgroundFailureLog(logger, 'could not renew this process lease; retrying shortly', { level: 'warn' });
  let registered: Promise<string> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let retired = false;
  /** When the lease was last renewed, by this process's clock. */
  let renewedAt = Number.NEGATIVE_INFINITY;
  /** Since when every renewal has succeeded (this process's clock); null after a failure, until the next success. */
  let steadySince: number | null = null;
  const renewalPeriodMs = leaseMs / RENEWALS_PER_LEASE;

  const renew = async () => {
    const now = clock.now();
    try {
      await store.renew({ id, now, leaseExpiresAt: now + leaseMs });
    } catch (err) {
      steadySince = null;
      throw err;
    }
    renewedAt = now;
    steadySince ??= now;
  };

  /** Renews on schedule: a third of the lease after a renewal, a second after a failed one. */
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      renew().then(
        () => {
          if (!retired) schedule(renewalPeriodMs);
        },
        (err: unknown) => {
          logRenewalFailure(err);
          if (!retired) schedule(Math.min(RETRY_AFTER_FAILURE_MS, renewalPeriodMs));
        },
      );
    }, delayMs);
    // The lease never keeps a process alive on its own.
    timer.unref();
  };

  return {
    id,
    ready() {
      registered ??= renew().then(() => {
        schedule(renewalPeriodMs);
        return id;
      });
      // A failed first registration is retried by the next caller rather than cached.
      registered.catch(() => {
        registered = null;
      });
      // What is claimed under this id (a key, a reservation, a run) must be claimed under a live
      // lease: once renewals have failed for half a lease (the database was out of reach), the
      // lease may have lapsed and another process could release the claim as a dead process's
      // (regression: after an outage one Idempotency-Key ran three times). Renew first.
      if (renewedAt !== Number.NEGATIVE_INFINITY && clock.now() - renewedAt > leaseMs / 2 && !retired) {
        return registered.then(() => renew()).then(() => id);
      }
      return registered;
    },
    async renew() {
      if (registered !== null && !retired) await renew();
    },
    async retire() {
      if (timer) clearTimeout(timer);
      timer = null;
      if (registered === null || retired) return;
      retired = true;
      await store.retire(id, accruedCharging());
    },
    settlesIn() {
      return steadySince === null ? renewalPeriodMs : Math.max(0, steadySince + renewalPeriodMs - clock.now());
    },
  };
}
