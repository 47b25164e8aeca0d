/**
 * A scan of crafted text costs up to about a second per megabyte. Regression: scans ran on the
 * event loop and outside the per-key in-flight limit, so 30 concurrent scans of `eyJ` repeated
 * held every other request for about 13 s.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSanitiser } from '../../src/core/sanitiser/index.js';
import { longestEventLoopDelay, STALL_BOUND_MS } from '../helpers/event-loop-delay.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { createProviderHarness } from '../helpers/provider-harness.js';

const ONE_MB = 1_000_000;

/** `unit` repeated, cut to `length` characters. */
function filled(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

interface ScanData {
  findings: unknown[];
  severity: string;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('sanitiser scans of long texts', () => {
  it.each([
    ['"key"', 'key'],
    ['"eyJ"', 'eyJ'],
  ])('scans 1 MB of %s repeated without holding the event loop', async (_name, unit) => {
    harness = await createHarness();
    const target = harness;
    const { key } = await target.expertWithKey();
    // The first scan of a process loads the rule engine; that is start-up, not this request.
    await target.api('POST', '/sanitiser/scan', { key, body: { text: 'warm up' } });
    const { longestMs, result } = await longestEventLoopDelay(() => target.api('POST', '/sanitiser/scan', { key, body: { text: filled(unit, ONE_MB) } }));
    expect(result.status, describeResponse(result)).toBe(200);
    expect(longestMs, `the event loop was held for ${longestMs.toFixed(0)} ms`).toBeLessThan(STALL_BOUND_MS);
  });

  it('finds in a long text exactly what a scan on the event loop finds', async () => {
    harness = await createHarness();
    const { key } = await harness.expertWithKey();
    const line = 'mail ada@example.com, token ghp_0123456789abcdefghijABCDEFGHIJ012345, card 4111 1111 1111 1111\n';
    // Long enough to be scanned off the event loop.
    const text = filled(line, 100_000);
    const response = await harness.api<ScanData>('POST', '/sanitiser/scan', { key, body: { text } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.findings.length).toBeGreaterThan(0);
    expect(response.body.data).toEqual(createSanitiser().scan(text));
  });

  it("counts a scan toward the key's in-flight limit: a second scan while one runs is refused with 429", async () => {
    const provider = await createProviderHarness({ config: { limits: { max_in_flight_per_key: 1 } } });
    harness = provider;
    const { key, keyId } = await provider.expertWithKey();
    const running = provider.api('POST', '/sanitiser/scan', { key, body: { text: filled('key', ONE_MB) } });
    await vi.waitFor(async () => expect(await provider.core.executions.concurrency.inFlight(keyId)).toBe(1), { timeout: 5_000, interval: 5 });
    const refused = await provider.api('POST', '/sanitiser/scan', { key, body: { text: 'a second scan' } });
    expect(refused.status, describeResponse(refused)).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await running).status).toBe(200);
    expect(await provider.core.executions.concurrency.inFlight(keyId), 'the slot is given back').toBe(0);
  });
});
