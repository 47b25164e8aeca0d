/**
 * An authenticated request whose body is over the limit is answered 413 as soon as that is known
 * (its Content-Length, or the limit reached while a chunked body streams in), and its connection
 * closed, without reading the rest (regression: the whole body, 5 MiB or a declared 500 MB, was
 * received before the 413).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../src/rest/json-body.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { sendRaw } from '../helpers/raw-http.js';

let server: RunningServer;
let key: string;
beforeEach(async () => {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
  // A server that waits for the whole body answers 408 at the request timeout instead of 413.
  server = await startServer(config, {
    clock: new ManualClock(),
    logger: createSilentLogger(),
    serverTimeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, connectionsCheckingIntervalMs: 50 },
  });
  const accounts = accountHelpers(server.application.core);
  const { accountId } = await accounts.createAccount();
  ({ key } = await accounts.createKey(accountId, { scopes: ['api:sanitiser'] }));
});
afterEach(() => server.close());

function scanHead(headers: Record<string, string>): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'x-api-key': key, ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST /api/public/v1/sanitiser/scan HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

describe('a body over the limit, from an authenticated caller', () => {
  it('is refused 413 on its Content-Length alone, before any of it is sent, and the connection closed', async () => {
    const response = await sendRaw(server.url, scanHead({ 'content-length': '500000000' }));
    expect(response.status, response.raw).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(response.headers.get('connection')).toBe('close');
    expect(response.headers.get('x-ratelimit-limit')).not.toBeUndefined();
  });

  it('is refused 413 once a chunked body passes the limit, without waiting for its end', async () => {
    // One chunk just over the limit, and no final chunk: the request never ends by itself.
    const chunk = `{"text":"${'a'.repeat(DEFAULT_BODY_LIMIT_BYTES)}"}`;
    const request = Buffer.concat([Buffer.from(scanHead({ 'transfer-encoding': 'chunked' })), Buffer.from(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)]);
    const response = await sendRaw(server.url, request);
    expect(response.status, response.raw.slice(0, 500)).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(response.headers.get('connection')).toBe('close');
  });

  it('is still read and answered when it is within the limit', async () => {
    const body = JSON.stringify({ text: 'write to ada@example.com' });
    const response = await sendRaw(server.url, `${scanHead({ 'content-length': String(Buffer.byteLength(body)), connection: 'close' })}${body}`);
    expect(response.status, response.raw).toBe(200);
  });
});

describe('a body refused from its headers alone', () => {
  it.each([
    ['not JSON', { 'content-type': 'text/plain' }],
    ['compressed', { 'content-encoding': 'gzip' }],
    ['in another charset', { 'content-type': 'application/json; charset=utf-16' }],
  ])('is answered 415 at once when %s, and the connection closed rather than the body received (regression: read to its end)', async (_, headers) => {
    // 900 KB declared, within the limit, and none of it sent: only a closed connection ends this.
    const response = await sendRaw(server.url, scanHead({ 'content-length': '900000', ...headers }));
    expect(response.status, response.raw).toBe(415);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(response.headers.get('connection')).toBe('close');
  });
});
