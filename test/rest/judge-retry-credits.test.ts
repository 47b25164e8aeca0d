/**
 * The judge retries once after an unreadable reply; the retry is a second metered call. When the
 * first call's charge leaves too little for it, the request ends as an unreadable verdict does
 * (500 AI_SERVICE_ERROR), never with a 402 INSUFFICIENT_CREDITS, which promises that nothing was
 * started or charged (regression: a judge charged 700 tokens answered 402).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

let harness: ProviderHarness;

beforeEach(async () => {
  harness = await createProviderHarness();
});
afterEach(() => harness.close());

describe('POST /judge/run when the retry is not affordable', () => {
  it('answers 500 AI_SERVICE_ERROR saying the verdict was unreadable and a retry not affordable, not 402 after a charge', async () => {
    const { key, accountId } = await harness.expertWithKey({ credits: 1.5 });
    harness.fake.setBehaviour({ content: 'ok reply', usage: { prompt_tokens: 600, completion_tokens: 100, total_tokens: 700 } });
    const response = await harness.api('POST', '/judge/run', { key, body: { prompt: 'judge me' } });
    expect(response.status, describeResponse(response)).toBe(500);
    expect(response.body.error.code).toBe('AI_SERVICE_ERROR');
    expect(response.body.error.message).toContain('did not return a readable verdict');
    expect(response.body.error.message).toContain('do not cover a retry');
    // One call went out and was charged; the retry was refused before calling.
    expect(harness.fake.requests).toHaveLength(1);
    const charges = (await harness.store.credits.ledger(accountId)).filter((entry) => entry.reference === 'usage:run_judge');
    expect(charges.map((entry) => entry.deltaTokens)).toEqual([-700]);
  });
});
