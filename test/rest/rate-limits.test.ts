import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type ApiResponse, type Harness } from '../helpers/harness.js';

/** A well-formed id no resource has. */
const UNKNOWN_ID = '0190f1a2-0000-7000-8000-000000000000';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
  // Start each test 10 s into a minute so the window cannot roll over mid-test.
  harness.clock.set(Date.UTC(2026, 5, 1, 12, 0, 10));
});
afterEach(() => harness.close());

describe('rate limits', () => {
  it('lets exactly 5 of 8 quick requests through a key created with rpm 5, then answers 429 with Retry-After', async () => {
    const { key } = await harness.expertWithKey({ rpm: 5 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof harness.api>> | undefined;
    for (let n = 0; n < 8; n += 1) {
      last = await harness.api('GET', '/context-cards', { key });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(last?.body.error.code).toBe('RATE_LIMITED');
    expect(last?.headers.get('retry-after')).toBe('50');
    expect(last?.body.error.retry_after).toBe(50);
    expect(last?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(last?.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2026, 5, 1, 12, 1, 0) / 1000));
  });

  it('counts down X-RateLimit-Remaining and opens a new window when the minute turns', async () => {
    const { key } = await harness.expertWithKey({ rpm: 2 });
    expect((await harness.api('GET', '/context-cards', { key })).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await harness.api('GET', '/context-cards', { key })).headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await harness.api('GET', '/context-cards', { key })).status).toBe(429);
    harness.clock.advance(50_000);
    const fresh = await harness.api('GET', '/context-cards', { key });
    expect(fresh.status, describeResponse(fresh)).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('answers 429 DAILY_LIMIT_EXCEEDED when the UTC day is used up, until midnight', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { rpm: 100, rpd: 3 });
    for (let n = 0; n < 3; n += 1) expect((await harness.api('GET', '/context-cards', { key })).status).toBe(200);
    const refused = await harness.api('GET', '/context-cards', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');
    const untilMidnight = (Date.UTC(2026, 5, 2) - harness.clock.now()) / 1000;
    expect(refused.headers.get('retry-after')).toBe(String(untilMidnight));
    harness.clock.set(Date.UTC(2026, 5, 2, 0, 0, 1));
    expect((await harness.api('GET', '/context-cards', { key })).status).toBe(200);
  });

  it('counts exactly the allowed number of 200s when more requests than the limit arrive at once', async () => {
    const { key } = await harness.expertWithKey({ rpm: 10 });
    const responses = await Promise.all(Array.from({ length: 40 }, () => harness.api('GET', '/context-cards', { key })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
  });

  it('keeps separate counters per key', async () => {
    const { accountId } = await harness.createAccount();
    const first = await harness.createKey(accountId, { rpm: 1 });
    const second = await harness.createKey(accountId, { rpm: 1 });
    expect((await harness.api('GET', '/context-cards', { key: first.key })).status).toBe(200);
    expect((await harness.api('GET', '/context-cards', { key: first.key })).status).toBe(429);
    expect((await harness.api('GET', '/context-cards', { key: second.key })).status).toBe(200);
  });

  it('does not count requests refused before the rate limiter (bad key, missing scope)', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { rpm: 1, scopes: ['api:judge'] });
    expect((await harness.api('GET', '/context-cards', { key })).status).toBe(403);
    const { key: allowed } = await harness.createKey(accountId, { rpm: 1 });
    expect((await harness.api('GET', '/context-cards', { key: allowed })).status).toBe(200);
  });
});

const QUOTA_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-daily-limit',
  'x-ratelimit-daily-remaining',
  'x-credits-remaining',
] as const;

function expectQuotaHeaders(response: ApiResponse<unknown>, status: number): void {
  expect(response.status, describeResponse(response)).toBe(status);
  for (const name of QUOTA_HEADERS) {
    expect(response.headers.get(name), `${name} on ${describeResponse(response)}`).toMatch(/^\d+$/);
  }
}

describe('rate-limit and credits headers on authenticated errors (DECISIONS.md, Headers)', () => {
  it('on a 400 for an invalid field and a 404 for an unknown resource', async () => {
    const { key } = await harness.expertWithKey();
    expectQuotaHeaders(await harness.api('GET', '/context-cards/not-a-uuid', { key }), 400);
    expectQuotaHeaders(await harness.api('GET', `/context-cards/${UNKNOWN_ID}`, { key }), 404);
  });

  it('on a 409 for an Idempotency-Key reused with another body', async () => {
    const { key } = await harness.expertWithKey();
    const headers = { 'idempotency-key': 'reused-key-1' };
    expectQuotaHeaders(await harness.api('POST', '/judge/run', { key, headers, body: { prompt: 'Write a haiku about autumn.' } }), 200);
    expectQuotaHeaders(await harness.api('POST', '/judge/run', { key, headers, body: { prompt: 'Write a limerick.' } }), 409);
  });

  it('on a 413 and a 415, refused after the key was checked (regression: no rate-limit or credits headers)', async () => {
    const { key } = await harness.expertWithKey();
    const big = JSON.stringify({ title: 'big', content: 'x'.repeat(2 * 1024 * 1024) });
    expectQuotaHeaders(await harness.api('POST', '/context-cards', { key, rawBody: big, headers: { 'content-type': 'application/json' } }), 413);
    expectQuotaHeaders(
      await harness.api('POST', '/context-cards', { key, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
    );
  });

  it('on a 403 for a scope the key lacks, without counting the request (regression: no headers at all)', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { rpm: 5, scopes: ['api:judge'] });
    const refused = await harness.api('GET', '/context-cards', { key });
    expectQuotaHeaders(refused, 403);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('5');
  });

  it('on a 404 for an unknown route, a 405 and a malformed-path 400 when a working key was sent (regression: answered before the key was read)', async () => {
    const { key } = await harness.expertWithKey({ rpm: 5 });
    const unknownRoute = await harness.api('GET', '/no-such-route', { key });
    expectQuotaHeaders(unknownRoute, 404);
    expect(unknownRoute.body.error.code).toBe('NOT_FOUND');
    const wrongMethod = await harness.api('PUT', '/context-cards', { key, body: { title: 't', content: 'c' } });
    expectQuotaHeaders(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    const malformed = await harness.api('POST', '/workflows/%E0%A4%A/execute', { key, body: {} });
    expectQuotaHeaders(malformed, 400);
    // Answers no operation gave are not counted: the minute still has all five requests.
    expect(malformed.headers.get('x-ratelimit-remaining')).toBe('5');
  });

  it("leaves the router's 404 and 405 without quota headers when the key does not work", async () => {
    for (const response of [
      await harness.api('GET', '/no-such-route', { key: 'mdi_notakeynotakeynotakeynotakeynotakey' }),
      await harness.api('PUT', '/context-cards', { key: 'mdi_notakeynotakeynotakeynotakeynotakey' }),
    ]) {
      expect(response.status, describeResponse(response)).toBeOneOf([404, 405]);
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('daily window headers (DECISIONS.md, Headers, limits, small rules)', () => {
  it('reports the day in X-RateLimit-Daily-* while X-RateLimit-* keep describing the minute, also on the daily 429', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { rpm: 100, rpd: 2 });
    const first = await harness.api('GET', '/context-cards', { key });
    expect(first.headers.get('x-ratelimit-daily-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-daily-remaining')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    await harness.api('GET', '/context-cards', { key });
    const refused = await harness.api('GET', '/context-cards', { key });
    expectQuotaHeaders(refused, 429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(refused.headers.get('x-ratelimit-daily-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('100');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('98');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2026, 5, 1, 12, 1, 0) / 1000));
    expect(refused.headers.get('retry-after')).toBe(String((Date.UTC(2026, 5, 2) - harness.clock.now()) / 1000));
  });
});
