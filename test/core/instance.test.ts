/**
 * This process's lease (core/instance.ts) after the database was out of reach: what it claims
 * next is claimed under a renewed lease, and a failed renewal is retried within a second rather
 * than a third of a lease (regression: after an outage longer than the lease, every process's
 * lease had lapsed, and one Idempotency-Key ran three times); and how long until it may take a
 * lapsed lease for a dead process's (test/reliability/outage-leases.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createInstance } from '../../src/core/instance.js';
import { StoreUnavailableError, type InstanceRepository } from '../../src/db/store.js';
import { createSilentLogger } from '../../src/logger.js';

const LEASE_MS = 10_000;

function instanceOver(clock: ManualClock) {
  const renewals: number[] = [];
  let down = false;
  const store: InstanceRepository = {
    async renew({ now }) {
      if (down) throw new StoreUnavailableError('out of reach');
      renewals.push(now);
    },
    async retire() {},
    async retireExpired() {
      return 0;
    },
  };
  const instance = createInstance({
    store,
    clock,
    logger: createSilentLogger(),
    leaseMs: LEASE_MS,
    accruedCharging: () => ({ at: clock.now(), newEntryId: () => 'entry', lowBalanceEvent: () => null }) as never,
  });
  return { instance, renewals, setDown: (value: boolean) => (down = value) };
}

describe('the process lease after an outage', () => {
  it('renews before answering ready() once renewals have failed for half a lease, and refuses while it cannot', async () => {
    const clock = new ManualClock();
    const { instance, renewals, setDown } = instanceOver(clock);
    await instance.ready();
    expect(renewals).toHaveLength(1);
    await instance.ready();
    expect(renewals, 'a fresh lease is not renewed again').toHaveLength(1);

    setDown(true);
    clock.advance(LEASE_MS * 2);
    await expect(instance.ready()).rejects.toBeInstanceOf(StoreUnavailableError);
    setDown(false);
    await instance.ready();
    expect(renewals).toEqual([renewals[0], clock.now()]);
    await instance.retire();
  });

  it('settles a renewal period after registering, and again after any failed renewal', async () => {
    const clock = new ManualClock();
    const { instance, setDown } = instanceOver(clock);
    expect(instance.settlesIn(), 'not registered').toBe(LEASE_MS / 3);
    await instance.ready();
    clock.advance(LEASE_MS / 3 - 1);
    expect(instance.settlesIn()).toBe(1);
    clock.advance(1);
    expect(instance.settlesIn()).toBe(0);

    setDown(true);
    await expect(instance.renew()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(instance.settlesIn(), 'a failed renewal unsettles it').toBe(LEASE_MS / 3);
    setDown(false);
    clock.advance(LEASE_MS);
    await instance.renew();
    expect(instance.settlesIn(), 'counted from the first renewal that succeeded').toBeCloseTo(LEASE_MS / 3);
    await instance.retire();
  });

  it('retries a failed renewal within a second', async () => {
    const clock = new ManualClock();
    const { instance, renewals, setDown } = instanceOver(clock);
    await instance.ready();
    setDown(true);
    // The scheduled renewal (a third of the lease) fails; the next is tried a second later.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 3 + 100));
    setDown(false);
    await expect.poll(() => renewals.length, { timeout: 3_000, interval: 50 }).toBe(2);
    await instance.retire();
  }, 10_000);
});
