/** The demo account a first start makes (core/demo/demo.ts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCoreHarness, type CoreHarness } from '../helpers/core-harness.js';

let harness: CoreHarness;
beforeEach(async () => {
  harness = await createCoreHarness();
});
afterEach(() => harness.close());

describe('the first start’s demo account', () => {
  it('is made once when two processes start together on an empty database (regression: demo and demo+2, two keys printed)', async () => {
    const made = await Promise.all([harness.core.demo.createFirstDemo(), harness.core.demo.createFirstDemo()]);
    expect(made.filter((demo) => demo !== null).map((demo) => demo?.email)).toEqual(['demo@porch.local']);
    expect(await harness.core.accounts.countAccounts()).toBe(1);
  });

  it('leaves `porch demo` making another, under the next free address', async () => {
    await harness.core.demo.createFirstDemo();
    expect((await harness.core.demo.createDemo()).email).toBe('demo+2@porch.local');
  });
});
