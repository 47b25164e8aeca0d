/**
 * A body over the limit sent to the MCP endpoint is answered as soon as that is known (its
 * Content-Length, or the limit reached while a chunked body streams in) and the connection closed,
 * without reading the rest, as the REST door answers it (test/rest/oversized-body.test.ts).
 * Regression: a chunked body over 1 MiB got 408 at the request timeout instead of 413, and a
 * declared Content-Length of 500 MB got its 413 but the connection was held until that timeout.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { MCP_BODY_LIMIT_BYTES, MCP_PATH } from '../../src/mcp/http.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { sendRaw, type RawResponse } from '../helpers/raw-http.js';

/**
 * Far beyond what answering takes, and below the test's own timeout: a server that waits for the
 * rest of the body is cut off only by it, so an answer after it is an answer that waited.
 */
const REQUEST_TIMEOUT_MS = 8_000;

let server: RunningServer;
let key: string;
beforeEach(async () => {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
  server = await startServer(config, {
    clock: new ManualClock(),
    logger: createSilentLogger(),
    serverTimeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: REQUEST_TIMEOUT_MS, connectionsCheckingIntervalMs: 50, shutdownGraceMs: 100 },
  });
  const accounts = accountHelpers(server.application.core);
  const { accountId } = await accounts.createAccount();
  ({ key } = await accounts.createKey(accountId, { scopes: ['api:sanitiser'] }));
});
afterEach(() => server.close());

function mcpHead(headers: Record<string, string>): string {
  const lines = Object.entries({
    host: '127.0.0.1',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  }).map(([name, value]) => `${name}: ${value}`);
  return `POST ${MCP_PATH} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** One chunk just over the limit, and no final chunk: the request never ends by itself. */
function unendingChunkedRequest(headers: Record<string, string>): Buffer {
  const chunk = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":"${'a'.repeat(MCP_BODY_LIMIT_BYTES)}"}}}`;
  return Buffer.concat([Buffer.from(mcpHead({ ...headers, 'transfer-encoding': 'chunked' })), Buffer.from(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)]);
}

/** What the server answered, and how long it took to close the connection after the request was written. */
async function timedSend(request: string | Buffer): Promise<{ response: RawResponse; elapsedMs: number }> {
  const startedAt = performance.now();
  const response = await sendRaw(server.url, request);
  return { response, elapsedMs: performance.now() - startedAt };
}

function expectClosedAtOnce({ response, elapsedMs }: { response: RawResponse; elapsedMs: number }): void {
  expect(response.headers.get('connection'), response.raw.slice(0, 500)).toBe('close');
  expect(elapsedMs, `closed after ${elapsedMs} ms`).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
}

/** The public endpoint is reached without a key and with one: the limit is the same for both. */
function withAndWithoutKey(): Record<string, string>[] {
  return [{}, { 'x-api-key': key }];
}

const TOO_LARGE = {
  jsonrpc: '2.0',
  error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${MCP_BODY_LIMIT_BYTES} bytes` },
  id: null,
};

describe('a body over the limit on the MCP endpoint', () => {
  it('is refused 413 on its Content-Length alone, before any of it is sent, and the connection closed at once', async () => {
    for (const headers of withAndWithoutKey()) {
      const sent = await timedSend(mcpHead({ ...headers, 'content-length': '500000000' }));
      expect(sent.response.status, sent.response.raw).toBe(413);
      expect(JSON.parse(sent.response.body)).toEqual(TOO_LARGE);
      expectClosedAtOnce(sent);
    }
  });

  it('is refused 413 once a chunked body passes the limit, without waiting for its end (regression: 408 at the request timeout)', async () => {
    for (const headers of withAndWithoutKey()) {
      const sent = await timedSend(unendingChunkedRequest(headers));
      expect(sent.response.status, sent.response.raw.slice(0, 500)).toBe(413);
      expect(JSON.parse(sent.response.body)).toEqual(TOO_LARGE);
      expectClosedAtOnce(sent);
    }
  });

  it('closes the connection at once after refusing a bad key whose body is over the limit, declared or chunked', async () => {
    for (const request of [
      mcpHead({ 'x-api-key': 'mdi_not-a-key', 'content-length': '500000000' }),
      unendingChunkedRequest({ 'x-api-key': 'mdi_not-a-key' }),
    ]) {
      const sent = await timedSend(request);
      expect(sent.response.status, sent.response.raw.slice(0, 500)).toBe(401);
      // The id of a body that was not read cannot be known.
      expect(JSON.parse(sent.response.body)).toMatchObject({ error: { data: { code: 'INVALID_API_KEY' } }, id: null });
      expectClosedAtOnce(sent);
    }
  });

  it('is still read and answered when it is within the limit', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    const response = await sendRaw(server.url, `${mcpHead({ 'content-length': String(Buffer.byteLength(body)), connection: 'close' })}${body}`);
    expect(response.status, response.raw).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.any(Array) } });
  });
});
