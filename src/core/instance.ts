/**
 * This process as the other Porch processes see it: an id and a lease in the database. What the
 * process holds while it works (credit reservations, execution slots, unfinished idempotency
 * claims) is recorded under its id, so when the process ends the others can release it: at once
 * after a clean shutdown (`retire`), and once the lease runs out after a crash (`kill -9`, a lost
 * host), when any process's sweep or the retry of a claimed request finds it expired.
 */
import type { Logger } from 'pino';
import type { AccruedCharging, InstanceRepository } from '../db/store.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';

/**
 * How long a process counts as alive after its last renewal. Long enough that a busy event loop
 * or a database hiccup of a few seconds never makes a live process look dead (which would release
 * its reservations while it still runs); short enough that a crashed process's claims free up
 * within half a minute for the client's retry.
 */
export const DEFAULT_LEASE_MS = 30_000;

/** Renewing three times per lease survives two missed renewals. */
const RENEWALS_PER_LEASE = 3;

export interface Instance {
  readonly id: string;
  /** Registers the lease on first use and keeps renewing it; resolves to the instance id. */
  ready(): Promise<string>;
  /** Renews the lease now, if this process registered one. */
  renew(): Promise<void>;
  /** Stops renewing and releases what the process still holds; for a clean shutdown. */
  retire(): Promise<void>;
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
  let registered: Promise<string> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let retired = false;

  const renew = () => {
    const now = clock.now();
    return store.renew({ id, now, leaseExpiresAt: now + leaseMs });
  };

  return {
    id,
    ready() {
      registered ??= renew().then(() => {
        timer = setInterval(() => {
          renew().catch((err: unknown) => logger.warn({ err }, 'could not renew this process lease; retrying at the next interval'));
        }, leaseMs / RENEWALS_PER_LEASE);
        // The lease never keeps a process alive on its own.
        timer.unref();
        return id;
      });
      // A failed first registration is retried by the next caller rather than cached.
      registered.catch(() => {
        registered = null;
      });
      return registered;
    },
    async renew() {
      if (registered !== null && !retired) await renew();
    },
    async retire() {
      if (timer) clearInterval(timer);
      timer = null;
      if (registered === null || retired) return;
      retired = true;
      await store.retire(id, accruedCharging());
    },
  };
}
