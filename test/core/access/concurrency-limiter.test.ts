/** The per-key in-flight limit over the real store, when giving a slot back fails once. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConcurrencyLimiter } from '../../../src/core/access/concurrency-limiter.js';
import { StoreUnavailableError, type ExecutionSlotRepository } from '../../../src/db/store.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
beforeEach(async () => {
  harness = await createCoreHarness();
});
afterEach(() => harness.close());

/** The store's slots, with the next release failing as it would while the database is out of reach. */
function failingNextRelease(slots: ExecutionSlotRepository): ExecutionSlotRepository & { failNext(): void } {
  let fail = false;
  return {
    acquire: (request) => slots.acquire(request),
    count: (request) => slots.count(request),
    async release(slotId) {
      if (fail) {
        fail = false;
        throw new StoreUnavailableError('out of reach');
      }
      await slots.release(slotId);
    },
    failNext: () => {
      fail = true;
    },
  };
}

describe('concurrency limiter', () => {
  it('returns the finished task when giving its slot back fails, and gives the slot back before the next run', async () => {
    const slots = failingNextRelease(harness.store.executionSlots);
    const limiter = createConcurrencyLimiter({ slots, instance: harness.core.instance, clock: harness.clock, maxPerKey: 1 });
    slots.failNext();
    await expect(limiter.run('key-1', async () => 'charged answer')).resolves.toBe('charged answer');
    expect(await limiter.inFlight('key-1'), 'the slot is still taken after the failed release').toBe(1);
    // With a limit of 1, the next run could not start if the leftover slot were not released first.
    await expect(limiter.run('key-1', async () => 'next')).resolves.toBe('next');
    expect(await limiter.inFlight('key-1')).toBe(0);
  });
});
