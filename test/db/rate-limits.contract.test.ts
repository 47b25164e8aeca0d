/**
 * Storage contract: rate windows. Fixed windows aligned to the minute and the UTC day; exactly the
 * limit is let through in each, whichever connection counts, and a refusal is not counted.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { RateWindowLimits, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { T0 } from './fixtures.js';

const LEASE_MS = 30_000;

const T0_SECONDS = T0 / 1000;
const NEXT_UTC_MIDNIGHT_SECONDS = Date.UTC(2026, 0, 16) / 1000;

function limits(overrides: Partial<RateWindowLimits> = {}): RateWindowLimits {
  return { keyId: 'key-a', requestsPerMinute: 3, requestsPerDay: 100, nowSeconds: T0_SECONDS, ...overrides };
}

/** A slot for `key-a` under the live instance `p` (started by the test). */
function slot(maxInFlight: number, keyId = 'key-a') {
  return { slotId: newId(), keyId, instanceId: 'p', maxInFlight, now: T0 };
}

function startInstance(store: Store) {
  return store.instances.renew({ id: 'p', now: T0, leaseExpiresAt: T0 + LEASE_MS });
}

async function consumeTimes(store: Store, times: number, window: RateWindowLimits) {
  const outcomes = [];
  for (let index = 0; index < times; index += 1) outcomes.push(await store.rateLimits.consume(window));
  return outcomes;
}

describeEachEngine('rate limits', (engine, definition) => {
  it('allows exactly requestsPerMinute in a minute, then refuses naming the minute window', async () => {
    const { store } = engine();
    const outcomes = await consumeTimes(store, 4, limits({ nowSeconds: T0_SECONDS + 10 }));
    expect(outcomes.map((outcome) => outcome.allowed)).toEqual([true, true, true, false]);
    expect(outcomes[3]).toEqual({
      allowed: false,
      exceeded: 'minute',
      minuteCount: 3,
      dayCount: 3,
      minuteResetSeconds: T0_SECONDS + 60,
      dayResetSeconds: NEXT_UTC_MIDNIGHT_SECONDS,
    });
  });

  it('a new minute resets the minute window but not the day window', async () => {
    const { store } = engine();
    await consumeTimes(store, 4, limits({ nowSeconds: T0_SECONDS + 59 }));
    const next = await store.rateLimits.consume(limits({ nowSeconds: T0_SECONDS + 60 }));
    expect(next).toMatchObject({ allowed: true, exceeded: null, minuteCount: 1, dayCount: 4, minuteResetSeconds: T0_SECONDS + 120 });
  });

  it('the day window refuses once requestsPerDay is reached, until the next UTC day', async () => {
    const { store } = engine();
    const day = limits({ requestsPerMinute: 100, requestsPerDay: 2 });
    await consumeTimes(store, 2, day);
    const refused = await store.rateLimits.consume({ ...day, nowSeconds: T0_SECONDS + 3_600 });
    expect(refused).toMatchObject({ allowed: false, exceeded: 'day', dayCount: 2, dayResetSeconds: NEXT_UTC_MIDNIGHT_SECONDS });
    expect(await store.rateLimits.consume({ ...day, nowSeconds: NEXT_UTC_MIDNIGHT_SECONDS })).toMatchObject({ allowed: true, dayCount: 1 });
  });

  it('peek reports both windows as they stand and counts nothing', async () => {
    const { store } = engine();
    await consumeTimes(store, 2, limits());
    const peeked = await store.rateLimits.peek(limits());
    expect(peeked).toMatchObject({ allowed: true, exceeded: null, minuteCount: 2, dayCount: 2, minuteResetSeconds: T0_SECONDS + 60 });
    expect(await store.rateLimits.peek(limits())).toEqual(peeked);
    expect(await store.rateLimits.consume(limits())).toMatchObject({ minuteCount: 3 });
  });

  it('windows are counted per key', async () => {
    const { store } = engine();
    await consumeTimes(store, 3, limits());
    expect((await store.rateLimits.consume(limits())).allowed).toBe(false);
    expect(await store.rateLimits.consume(limits({ keyId: newId() }))).toMatchObject({ allowed: true, minuteCount: 1 });
  });

  it('concurrent requests never get more than the limit through', async () => {
    const { store } = engine();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.rateLimits.consume(limits({ requestsPerMinute: 7 }))));
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(7);
  });

  it.runIf(definition.shared)('two connections share the windows: together they get exactly the limit through', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other).rateLimits.consume(limits({ requestsPerMinute: 7 }))),
    );
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(7);
  });

  it('an admission counts the request and takes its slot in one step; releasing the slot frees it', async () => {
    const { store } = engine();
    await startInstance(store);
    const first = slot(2);
    expect(await store.rateLimits.consumeWithSlot(limits(), first)).toMatchObject({ allowed: true, minuteCount: 1, slotAcquired: true });
    expect(await store.rateLimits.consumeWithSlot(limits(), slot(2))).toMatchObject({ allowed: true, minuteCount: 2, slotAcquired: true });
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(2);
    await store.executionSlots.release(first.slotId);
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(1);
  });

  it('an admission with no slot free is still counted, and takes no slot', async () => {
    const { store } = engine();
    await startInstance(store);
    expect(await store.rateLimits.consumeWithSlot(limits(), slot(1))).toMatchObject({ allowed: true, slotAcquired: true });
    expect(await store.rateLimits.consumeWithSlot(limits(), slot(1))).toMatchObject({ allowed: true, minuteCount: 2, slotAcquired: false });
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(1);
    expect(await store.rateLimits.peek(limits())).toMatchObject({ minuteCount: 2 });
  });

  it('an admission the windows refuse takes no slot and is not counted', async () => {
    const { store } = engine();
    await startInstance(store);
    await consumeTimes(store, 3, limits());
    expect(await store.rateLimits.consumeWithSlot(limits(), slot(5))).toMatchObject({
      allowed: false,
      exceeded: 'minute',
      minuteCount: 3,
      slotAcquired: false,
    });
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(0);
    expect(await store.rateLimits.peek(limits())).toMatchObject({ minuteCount: 3 });
  });

  it('concurrent admissions never count more than the limit nor take more than the slots', async () => {
    const { store } = engine();
    await startInstance(store);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.rateLimits.consumeWithSlot(limits({ requestsPerMinute: 7 }), slot(4))));
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(7);
    expect(outcomes.filter((outcome) => outcome.slotAcquired)).toHaveLength(4);
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(4);
  });

  it.runIf(definition.shared)('admissions through two connections share the windows and the slots exactly', async () => {
    const { store, openAnother } = engine();
    const other = await openAnother();
    await startInstance(store);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other).rateLimits.consumeWithSlot(limits({ requestsPerMinute: 7 }), slot(4))),
    );
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(7);
    expect(outcomes.filter((outcome) => outcome.slotAcquired)).toHaveLength(4);
    expect(await store.executionSlots.count({ keyId: 'key-a', now: T0 })).toBe(4);
  });
});
