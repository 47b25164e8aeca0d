/**
 * Issue 16: a keyed request is authenticated from its headers before its body is read, so a
 * request with a missing or bad key (or a key without the scope) costs a key lookup, never the
 * reading and parsing of a megabyte of JSON.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { accountHelpers, type AccountHelpers } from '../helpers/core-harness.js';
import { sendRaw } from '../helpers/raw-http.js';

/** Announced but never sent in full: a server that waits for the body answers 408 at the request timeout instead. */
const ANNOUNCED_BODY_BYTES = 1024 * 1024;

let server: RunningServer;
let accounts: AccountHelpers;
beforeEach(async () => {
  // A trusted proxy's request id is kept, so the refusal below can be matched to the request that caused it.
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PORT: '0',
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'silent',
    PORCH_TRUST_REQUEST_ID: '1',
  });
  server = await startServer(config, {
    clock: new ManualClock(),
    logger: createSilentLogger(),
    serverTimeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, connectionsCheckingIntervalMs: 50 },
  });
  accounts = accountHelpers(server.application.core);
});
afterEach(() => server.close());

function incompletePost(path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(ANNOUNCED_BODY_BYTES), ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST /api/public/v1${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n[[[[]]]],[[[[]]]],`;
}

describe('keyed requests refused from their headers (regression: bodies were parsed before the key was checked)', () => {
  it('answers a bad key 401 without waiting for the announced body, then closes the connection', async () => {
    const response = await sendRaw(server.url, incompletePost('/context-cards', { 'x-api-key': 'mdi_not-a-key', 'x-request-id': 'bad-key-1' }));
    expect(response.status, response.raw).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY', request_id: 'bad-key-1' } });
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(response.headers.get('connection')).toBe('close');
  });

  it('answers a missing key 401 without waiting for the announced body', async () => {
    const response = await sendRaw(server.url, incompletePost('/workflows/0190f1a2-0000-7000-8000-000000000000/execute', {}));
    expect(response.status, response.raw).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'MISSING_API_KEY' } });
  });

  it('answers a key without the scope 403, with the credits header, without waiting for the body', async () => {
    const { accountId } = await accounts.createAccount();
    const { key } = await accounts.createKey(accountId, { scopes: ['api:judge'] });
    const response = await sendRaw(server.url, incompletePost('/context-cards', { 'x-api-key': key }));
    expect(response.status, response.raw).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'INSUFFICIENT_PERMISSIONS' } });
    expect(response.headers.get('x-credits-remaining')).not.toBeUndefined();
  });
});
