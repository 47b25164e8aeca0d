/** The spec's retry rules (§7), against a real HTTP stub on 127.0.0.1, with fake timers. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPorchClient, PorchApiError, type RetryEvent } from '../../src/client/index.js';

interface StubReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Received {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  account: string | undefined;
}

let server: Server;
let baseUrl: string;
let replies: StubReply[];
let received: Received[];

function errorReply(status: number, code: string, headers: Record<string, string> = {}): StubReply {
  return { status, headers, body: { success: false, error: { code, message: `${code} happened`, request_id: 'req-1' } } };
}

const OK: StubReply = { status: 200, body: { success: true, data: { content: 'done' } }, headers: { 'x-credits-remaining': '7' } };

beforeEach(async () => {
  replies = [];
  received = [];
  server = createServer((req: IncomingMessage, res) => {
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      account: req.headers['x-porch-account'] as string | undefined,
    });
    req.resume();
    const reply =
      req.url === '/api/public/v1/context-cards?limit=1'
        ? { status: 200, body: { success: true, data: { items: [], count: 0 } }, headers: { 'x-credits-remaining': process.env.STUB_CREDITS ?? '5' } }
        : (replies.shift() ?? OK);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(async () => {
  vi.useRealTimers();
  delete process.env.STUB_CREDITS;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const PERSONA = '0190a4b0-0000-7000-8000-000000000001';

function client(events: RetryEvent[] = [], maxRetryDelayMs?: number) {
  return createPorchClient({
    baseUrl,
    apiKey: 'mdi_test',
    onRetry: (event) => events.push(event),
    ...(maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs }),
  });
}

/**
 * Lets the client run until it waits, then moves the fake clock past each wait. Each turn yields
 * to the event loop once; an answer over real HTTP can take many turns on a loaded machine
 * (regression: 20 turns timed the first test out now and then).
 */
async function settle<T>(promise: Promise<T>, events: RetryEvent[]): Promise<T> {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  for (let guard = 0; !done && guard < 1_000; guard += 1) {
    await vi.advanceTimersByTimeAsync(events.at(-1)?.delayMs ?? 0);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return tracked;
}

describe('retry rules', () => {
  it('waits Retry-After seconds on 429 and retries, at most 3 times', async () => {
    const events: RetryEvent[] = [];
    replies = [errorReply(429, 'RATE_LIMITED', { 'retry-after': '7' }), errorReply(429, 'RATE_LIMITED', { 'retry-after': '2' }), OK];
    const result = await settle(client(events).executePersona({ id: PERSONA, input: 'hi' }), events);
    expect(result).toEqual({ content: 'done' });
    expect(events.map((event) => event.delayMs)).toEqual([7_000, 2_000]);
    expect(received).toHaveLength(3);
  });

  it('fails at once on a 429 asking for a longer wait than maxRetryDelayMs, a daily limit (regression: it slept for hours)', async () => {
    const events: RetryEvent[] = [];
    replies = [errorReply(429, 'DAILY_LIMIT_EXCEEDED', { 'retry-after': '65820' }), OK];
    await expect(client(events).getAccount()).rejects.toMatchObject({ status: 429, code: 'DAILY_LIMIT_EXCEEDED', retryAfter: 65_820 });
    expect(events).toEqual([]);
    expect(received).toHaveLength(1);

    replies = [errorReply(429, 'RATE_LIMITED', { 'retry-after': '90' }), OK];
    await expect(settle(client(events, 120_000).getAccount(), events)).resolves.toBeDefined();
    expect(events.map((event) => event.delayMs)).toEqual([90_000]);
  });

  it('waits 60 seconds on a 429 without Retry-After, and gives up after 3 retries', async () => {
    const events: RetryEvent[] = [];
    replies = Array.from({ length: 5 }, () => errorReply(429, 'RATE_LIMITED'));
    const failure = settle(client(events).listContextCards(), events);
    await expect(failure).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(events.map((event) => event.delayMs)).toEqual([60_000, 60_000, 60_000]);
    expect(received).toHaveLength(4);
  });

  it('backs off 1 s, 2 s, 4 s on 500 AI_SERVICE_ERROR, then gives up', async () => {
    const events: RetryEvent[] = [];
    replies = Array.from({ length: 5 }, () => errorReply(500, 'AI_SERVICE_ERROR'));
    await expect(settle(client(events).runJudge({ prompt: 'x' }), events)).rejects.toBeInstanceOf(PorchApiError);
    expect(events.map((event) => event.delayMs)).toEqual([1_000, 2_000, 4_000]);
    expect(received).toHaveLength(4);
  });

  it('sends the same Idempotency-Key on every retry of an execution', async () => {
    const events: RetryEvent[] = [];
    replies = [errorReply(500, 'AI_SERVICE_ERROR'), OK];
    await settle(client(events).executePersona({ id: PERSONA, input: 'hi' }), events);
    expect(received[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(received[1]?.idempotencyKey).toBe(received[0]?.idempotencyKey);
  });

  it('never retries 401 or 402 INSUFFICIENT_CREDITS, nor a plain 500', async () => {
    for (const reply of [errorReply(401, 'INVALID_API_KEY'), errorReply(402, 'INSUFFICIENT_CREDITS'), errorReply(500, 'INTERNAL_ERROR')]) {
      received = [];
      replies = [reply];
      await expect(client().executePersona({ id: PERSONA, input: 'hi' })).rejects.toMatchObject({ status: reply.status });
      expect(received).toHaveLength(1);
    }
  });

  it('checks the balance on 402 BILLING_FAILED, then retries once', async () => {
    const events: RetryEvent[] = [];
    replies = [errorReply(402, 'BILLING_FAILED'), errorReply(402, 'BILLING_FAILED')];
    await expect(settle(client(events).executeComposition({ id: PERSONA }), events)).rejects.toMatchObject({ code: 'BILLING_FAILED' });
    expect(received.map((request) => request.url)).toEqual([
      `/api/public/v1/compositions/${PERSONA}/execute`,
      '/api/public/v1/context-cards?limit=1',
      `/api/public/v1/compositions/${PERSONA}/execute`,
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]?.creditsRemaining).toBe(5);
  });

  it("checks the balance of the account a partner key acts for, with the call's headers (regression: the owner's)", async () => {
    const events: RetryEvent[] = [];
    replies = [errorReply(402, 'BILLING_FAILED'), OK];
    const call = client(events).executeComposition({ id: PERSONA }, { headers: { 'X-Porch-Account': 'acct-bob' } });
    await settle(call, events);
    expect(received.map((request) => [request.url, request.account])).toEqual([
      [`/api/public/v1/compositions/${PERSONA}/execute`, 'acct-bob'],
      ['/api/public/v1/context-cards?limit=1', 'acct-bob'],
      [`/api/public/v1/compositions/${PERSONA}/execute`, 'acct-bob'],
    ]);
  });

  it('does not retry BILLING_FAILED when the balance is empty', async () => {
    process.env.STUB_CREDITS = '0';
    replies = [errorReply(402, 'BILLING_FAILED')];
    await expect(client().executeComposition({ id: PERSONA })).rejects.toMatchObject({ code: 'BILLING_FAILED' });
    expect(received).toHaveLength(2);
  });

  it('cancels a wait between retries with an AbortSignal', async () => {
    replies = [errorReply(429, 'RATE_LIMITED', { 'retry-after': '30' })];
    const controller = new AbortController();
    const events: RetryEvent[] = [];
    const call = createPorchClient({
      baseUrl,
      apiKey: 'k',
      onRetry: (event) => {
        events.push(event);
        controller.abort(new Error('caller gave up'));
      },
    }).listWorkflows(undefined, { signal: controller.signal });
    await expect(call).rejects.toThrow('caller gave up');
    expect(received).toHaveLength(1);
  });

  it('throws a typed error carrying status, code, message, request id and retry-after', async () => {
    replies = [errorReply(404, 'RESOURCE_NOT_FOUND')];
    const error = (await client()
      .getContextCard({ id: PERSONA })
      .catch((err: unknown) => err)) as PorchApiError;
    expect(error).toBeInstanceOf(PorchApiError);
    expect(error).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND', message: 'RESOURCE_NOT_FOUND happened', requestId: 'req-1', retryAfter: null });
  });
});
