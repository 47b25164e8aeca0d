/**
 * HTTP hygiene and abuse limits: security headers, CORS only where meant, identical 401s for
 * unknown and revoked keys, slow clients cut off without hurting others, a bound on executions in
 * flight per key, and a graceful shutdown that finishes in-flight requests and closes the database.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { OPERATION_SAMPLES } from '../helpers/operation-samples.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

let harness: Harness | ProviderHarness | undefined;
let extraServer: RunningServer | undefined;
afterEach(async () => {
  await harness?.close();
  await extraServer?.close();
  harness = undefined;
  extraServer = undefined;
});

describe('security headers and CORS', () => {
  it('sends helmet headers and no X-Powered-By on pages, API answers and errors', async () => {
    harness = await createHarness();
    const { key } = await harness.expertWithKey();
    for (const response of [
      await harness.site('GET', '/'),
      await harness.api('GET', '/health'),
      await harness.api('GET', '/context-cards', { key }),
      await harness.api('GET', '/nothing'),
    ]) {
      expect(response.headers.get('x-powered-by')).toBeNull();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('allows cross-origin reads of discovery documents but not of the API', async () => {
    harness = await createHarness();
    const { key } = await harness.expertWithKey();
    const origin = { origin: 'https://elsewhere.example' };
    const openapi = await harness.site('GET', '/openapi.json', { headers: origin });
    expect(openapi.headers.get('access-control-allow-origin')).toBe('*');
    const apiResponse = await harness.api('GET', '/context-cards', { key, headers: origin });
    expect(apiResponse.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await harness.api('OPTIONS', '/context-cards', { headers: { ...origin, 'access-control-request-method': 'GET' } });
    expect(preflight.status, describeResponse(preflight)).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an unknown key and a revoked key with byte-identical 401s apart from the request id', async () => {
    // The proxy's request id is trusted, so both answers carry the same one and can be compared whole.
    harness = await createHarness({ env: { PORCH_TRUST_REQUEST_ID: '1' } });
    const { key, keyId } = await harness.expertWithKey();
    await harness.core.accounts.revokeKey(keyId);
    const unknown = `mdi_${'A'.repeat(key.length - 4)}`;
    const headers = { 'x-request-id': 'same-request-id' };
    const revokedResponse = await harness.api('GET', '/context-cards', { key, headers });
    const unknownResponse = await harness.api('GET', '/context-cards', { key: unknown, headers });
    expect(revokedResponse.status).toBe(401);
    expect(revokedResponse.text).toBe(unknownResponse.text);
    const comparable = (response: typeof revokedResponse) => [...response.headers.entries()].filter(([name]) => name !== 'date');
    expect(comparable(revokedResponse)).toEqual(comparable(unknownResponse));
  });
});

describe('slow clients and limits', () => {
  it('answers 408 and closes a connection that trickles its headers, while serving others', async () => {
    const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
    extraServer = await startServer(config, {
      clock: new ManualClock(),
      logger: createSilentLogger(),
      serverTimeouts: { headersTimeoutMs: 400, requestTimeoutMs: 800, connectionsCheckingIntervalMs: 50 },
    });
    const { port } = new URL(extraServer.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    // One byte every 40 ms; the loop is bounded, and the server must cut it off well before the end.
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent >= 200 || socket.destroyed) return clearInterval(trickle);
      socket.write('a');
      sent += 1;
    }, 40);
    const other = await fetch(`${extraServer.url}/api/public/v1/health`);
    expect(other.status, 'another client is served meanwhile').toBe(200);
    await closed;
    clearInterval(trickle);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(sent, 'cut off long before the trickle ended').toBeLessThan(100);
  });

  it("refuses a key's execution beyond limits.max_in_flight_per_key with 429 naming concurrent executions, and Retry-After", async () => {
    const limit = 2;
    const provider = await createProviderHarness({ config: { limits: { max_in_flight_per_key: limit } } });
    harness = provider;
    provider.fake.setBehaviour({ delayMs: 500 });
    const { key, keyId, accountId } = await provider.expertWithKey({ credits: 1_000 });
    const sample = await OPERATION_SAMPLES.execute_persona?.(provider, accountId);
    if (!sample) throw new Error('no sample');
    const running = Array.from({ length: limit }, () => provider.api('POST', sample.path, { key, body: sample.body }));
    await provider.fake.waitForRequests(limit);
    expect(await provider.core.executions.concurrency.inFlight(keyId)).toBe(limit);
    const refused = await provider.api('POST', sample.path, { key, body: sample.body });
    expect(refused.status, describeResponse(refused)).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.body.error.message).toBe(
      `Too many calls in flight for this key (executions and sanitiser scans): at most ${limit} at once. Wait for one to finish, then retry.`,
    );
    expect(refused.headers.get('retry-after')).toBe('1');
    const other = await provider.expertWithKey({ credits: 1_000 });
    expect((await provider.api('GET', '/context-cards', { key })).status, 'other operations of the key still work').toBe(200);
    expect((await provider.api('GET', '/context-cards', { key: other.key })).status).toBe(200);
    for (const response of await Promise.all(running)) expect(response.status).toBe(200);
    expect(await provider.core.executions.concurrency.inFlight(keyId), 'slots are given back').toBe(0);
  });

  it('admits an execution with its slot in the rate limit step: a malformed one is refused 400 even with every slot taken, and takes none', async () => {
    const limit = 1;
    const provider = await createProviderHarness({ config: { limits: { max_in_flight_per_key: limit } } });
    harness = provider;
    provider.fake.setBehaviour({ delayMs: 500 });
    const { key, keyId, accountId } = await provider.expertWithKey({ credits: 1_000 });
    const sample = await OPERATION_SAMPLES.execute_persona?.(provider, accountId);
    if (!sample) throw new Error('no sample');
    const running = provider.api('POST', sample.path, { key, body: sample.body });
    await provider.fake.waitForRequests(1);
    expect(await provider.core.executions.concurrency.inFlight(keyId)).toBe(limit);
    const malformed = await provider.api('POST', sample.path, { key, body: { input: 42 } });
    expect(malformed.status, describeResponse(malformed)).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
    expect(malformed.headers.get('x-ratelimit-remaining'), 'still counted by the rate limiter').not.toBeNull();
    expect(await provider.core.executions.concurrency.inFlight(keyId)).toBe(limit);
    expect((await running).status).toBe(200);
    expect(await provider.core.executions.concurrency.inFlight(keyId), 'the slot is given back').toBe(0);
    const missing = await provider.api('POST', sample.path.replace(/[0-9a-f-]{36}/, '00000000-0000-7000-8000-000000000000'), { key, body: sample.body });
    expect(missing.status, describeResponse(missing)).toBe(404);
    expect(await provider.core.executions.concurrency.inFlight(keyId), 'a run that failed gives its slot back').toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('finishes a request in flight, then closes the database', async () => {
    const provider = await createProviderHarness();
    // afterEach closes the fake upstream and removes the config folder even if this test fails.
    harness = provider;
    provider.fake.setBehaviour({ delayMs: 300 });
    const { key, accountId } = await provider.expertWithKey({ credits: 1_000 });
    const sample = await OPERATION_SAMPLES.execute_persona?.(provider, accountId);
    if (!sample) throw new Error('no sample');
    const inFlight = provider.api('POST', sample.path, { key, body: sample.body });
    await provider.fake.waitForRequests(1);
    const closing = provider.server.close();
    const response = await inFlight;
    expect(response.status, describeResponse(response)).toBe(200);
    await closing;
    expect(await provider.store.ping(), 'the database is closed').toBe(false);
  });
});
