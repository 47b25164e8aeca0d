/**
 * A bound on executions in flight per key. The rate limiter counts requests per minute; it does
 * not stop one key from holding dozens of slow workflow runs open at once (each holding credit
 * reservations, provider connections and memory). This does, by refusing the extra run with 429
 * before it reserves anything.
 *
 * The count is shared by every process on the database: each run holds a slot row recorded
 * under this process's lease, and only slots of live processes count, so a crash never leaves a
 * key's slots taken for longer than the lease. A live process renews its lease, so a slot it
 * could not give back while the store was out of reach is given back once the store is back
 * (deferred-writes.ts), not at its next execution, which may never come (regression: on
 * PostgreSQL, the key kept one slot fewer on every process for as long as this one lived).
 */
import type { ExecutionSlotRepository, SlotRequest } from '../../db/store.js';
import type { Clock } from '../clock.js';
import type { DeferredWrites } from '../deferred-writes.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import type { Instance } from '../instance.js';

/**
 * Default in-flight executions per key. A workflow already runs its ready nodes concurrently, so
 * a handful of parallel runs is ample for a real client; more is a runaway loop or an abuse.
 */
export const DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY = 8;

/** Runs end within seconds to a few minutes; a second is a reasonable first wait. */
const RETRY_AFTER_SECONDS = 1;

export interface ConcurrencyLimiter {
  /** Runs `task` while holding one of the key's slots; 429 RATE_LIMITED when none is free. */
  run<T>(keyId: string, task: () => Promise<T>): Promise<T>;
  /**
   * A slot for the key, to be taken by another atomic step (the rate limiter's, which admits an
   * execution in one transaction); `held` then runs the task in it, or `refusal` is the answer.
   */
  slotFor(keyId: string): Promise<SlotRequest>;
  /** Runs `task` in a slot already taken, and gives the slot back when it ends. */
  held<T>(slotId: string, task: () => Promise<T>): Promise<T>;
  /** Gives back a slot already taken whose task will not run (the request failed before it). */
  giveBack(slotId: string): Promise<void>;
  /** The 429 for a key with no slot free. */
  refusal(): PorchError;
  /** Runs in flight for the key now, across every process (for tests and diagnostics). */
  inFlight(keyId: string): Promise<number>;
}

export interface ConcurrencyLimiterDependencies {
  slots: ExecutionSlotRepository;
  instance: Instance;
  clock: Clock;
  deferredWrites: DeferredWrites;
  maxPerKey?: number;
}

export function createConcurrencyLimiter({
  slots,
  instance,
  clock,
  deferredWrites,
  maxPerKey = DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY,
}: ConcurrencyLimiterDependencies): ConcurrencyLimiter {
  if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new Error('The concurrent execution limit must be a positive integer.');
  const refusal = () =>
    new PorchError(
      'RATE_LIMITED',
      `Too many calls in flight for this key (executions and sanitiser scans): at most ${maxPerKey} at once. Wait for one to finish, then retry.`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  // Slots whose release the store refused for another reason than its outage: tried again before
  // this process's next slot, rather than forgotten (review). Best effort: a release refused for
  // good must not fail every later execution of the process (second review), only stay taken.
  const unreleased = new Set<string>();
  const releaseLeftovers = async () => {
    for (const slotId of [...unreleased]) {
      try {
        await slots.release(slotId);
        unreleased.delete(slotId);
      } catch {
        // Kept for the next slot's turn; this request goes on.
      }
    }
  };
  // The task's own outcome (an answer already charged for, or its error) is what the caller
  // gets; a failed release must not replace it.
  const giveBack = (slotId: string) =>
    deferredWrites.attempt(`the release of execution slot ${slotId}`, () => slots.release(slotId)).catch(() => void unreleased.add(slotId));
  const held = async <T>(slotId: string, task: () => Promise<T>): Promise<T> => {
    try {
      return await task();
    } finally {
      await giveBack(slotId);
    }
  };
  const slotFor = async (keyId: string): Promise<SlotRequest> => {
    await releaseLeftovers();
    return { slotId: newId(), keyId, instanceId: await instance.ready(), maxInFlight: maxPerKey, now: clock.now() };
  };
  return {
    async run(keyId, task) {
      const slot = await slotFor(keyId);
      if (!(await slots.acquire(slot))) throw refusal();
      return held(slot.slotId, task);
    },
    slotFor,
    held,
    giveBack,
    refusal,
    inFlight: (keyId) => slots.count({ keyId, now: clock.now() }),
  };
}
