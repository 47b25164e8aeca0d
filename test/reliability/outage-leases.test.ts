/**
 * After an outage longer than the lease every process's lease has lapsed, the live ones'
 * included; they renew within a second or two of the database's return. A process that reaches
 * the database only now (just started, or just back itself) cannot tell them from dead ones yet,
 * so it releases nothing of theirs until it has renewed steadily for a renewal period
 * (core/instance.ts, settlesIn). Regression: a process started right after the outage retired
 * a live one, freeing its reservations and its Idempotency-Key while its request still ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DEFAULT_LEASE_MS } from '../../src/core/instance.js';
import type { PorchError } from '../../src/core/errors.js';
import type { Application } from '../../src/main.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { openDirect, SUITE_ENGINES, type SuiteDatabase } from './porch-process.js';

const SETTLING_MS = DEFAULT_LEASE_MS / 3;

describe.each(SUITE_ENGINES)('leases after an outage on $name', (engine) => {
  let database: SuiteDatabase;
  const opened: Application[] = [];
  const clock = new ManualClock(Date.now());
  const open = async () => {
    const application = await openDirect(database.url, clock);
    opened.push(application);
    return application;
  };
  beforeAll(async () => {
    database = await engine.open();
  });
  afterAll(async () => {
    for (const application of opened) await application.close();
    await database.remove();
  });

  it('a process that has just reached the database retires no lapsed process until it has settled, and then only one that did not renew', async () => {
    const live = await open();
    const { accountId } = await accountHelpers(live.core).createAccount({ credits: 100 });
    // The live process holds a reservation and an unfinished Idempotency-Key.
    await live.core.credits.reserve(accountId, 5_000);
    await live.core.idempotency.begin(accountId, 'key-1', 'execute_composition', { input: 'x' });

    // An outage twice the lease: nobody renews. A process starts as the database comes back.
    clock.advance(2 * DEFAULT_LEASE_MS);
    const started = await open();
    expect(await started.core.maintenance.sweep()).toMatchObject({ retiredInstances: 0, releaseDeferredMs: SETTLING_MS });
    const retry = (await started.core.idempotency.begin(accountId, 'key-1', 'execute_composition', { input: 'x' }).catch((err: unknown) => err)) as PorchError;
    expect(retry.code, 'the key is still the live process’s').toBe('IDEMPOTENCY_CONFLICT');
    expect((await started.core.credits.balance(accountId)).reservedTokens).toBe(5_000);

    // The live process renews within its retry interval; once the new one has settled, it is left alone.
    await live.core.instance.renew();
    clock.advance(SETTLING_MS);
    expect(await started.core.maintenance.sweep()).toMatchObject({ retiredInstances: 0, releaseDeferredMs: 0 });
    expect((await started.core.credits.balance(accountId)).reservedTokens).toBe(5_000);

    // A process that stops renewing for good is retired as before.
    clock.advance(DEFAULT_LEASE_MS + 1);
    expect(await started.core.maintenance.sweep()).toMatchObject({ retiredInstances: 1, releaseDeferredMs: 0 });
    expect((await started.core.credits.balance(accountId)).reservedTokens).toBe(0);
  });
});
