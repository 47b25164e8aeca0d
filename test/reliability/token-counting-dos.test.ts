/**
 * Token counting runs on the event loop, before a model call. Regression: a 200,000-character
 * persona `input` of rare or mixed characters took seconds to count (6.9 s in the report, and
 * "/\n" repeated was quadratic), holding every other request for as long, and a zero-credit key
 * could repeat it for free because the balance was checked after the count.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { longestEventLoopDelay, STALL_BOUND_MS } from '../helpers/event-loop-delay.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const PATHOLOGICAL_INPUTS: Array<[string, string]> = [
  ['slashes between line breaks', '/\n'.repeat(100_000)],
  ['Thai letters', Array.from({ length: 200_000 }, (_, index) => String.fromCodePoint(0x0e01 + (index % 46))).join('')],
];

let harness: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await harness?.close();
  harness = undefined;
});

async function personaOf(target: Harness, accountId: string): Promise<string> {
  const card = await target.core.contextCards.create(accountId, { title: 'Terse', content: 'Answer briefly.', category: 'persona', tags: [] });
  return card.id;
}

describe('token counting is bounded', () => {
  it('refuses a zero-credit key with 402 before counting any token of the prompt', async () => {
    harness = await createHarness();
    const { key, accountId } = await harness.expertWithKey({ credits: 0 });
    const personaId = await personaOf(harness, accountId);
    const estimate = vi.spyOn(harness.core.ai, 'estimateTokens');
    const response = await harness.api('POST', `/personas/${personaId}/execute`, { key, body: { input: '/\n'.repeat(50_000) } });
    expect(response.status, describeResponse(response)).toBe(402);
    expect(response.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(estimate).not.toHaveBeenCalled();
  });

  it.each(PATHOLOGICAL_INPUTS)('executes a persona with 200,000 characters of %s without holding the event loop', async (_name, input) => {
    harness = await createHarness();
    const { key, accountId } = await harness.expertWithKey({ credits: 10_000 });
    const personaId = await personaOf(harness, accountId);
    const target = harness;
    const { longestMs, result } = await longestEventLoopDelay(() => target.api('POST', `/personas/${personaId}/execute`, { key, body: { input } }));
    expect(result.status, describeResponse(result)).toBe(200);
    expect(longestMs, `the event loop was held for ${longestMs.toFixed(0)} ms`).toBeLessThan(STALL_BOUND_MS);
  });
});
