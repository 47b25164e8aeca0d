/**
 * Requests Node's HTTP parser refuses before Express sees them still get the error envelope and
 * X-API-Version (DECISIONS.md, Headers), instead of Node's bare `400 Bad Request` and `431`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { sendRaw } from '../helpers/raw-http.js';

/** Beyond Node's default limit on the request line and headers together (16 KiB). */
const OVERSIZED_HEADER_BYTES = 20 * 1024;

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(() => harness.close());

describe("Node's own refusals in the error envelope (regression: bare status lines without X-API-Version)", () => {
  it('answers a malformed request line 400 VALIDATION_ERROR, then closes the connection', async () => {
    const response = await sendRaw(harness.url, 'G@T /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(response.status, response.raw).toBe(400);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/malformed/) } });
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
    expect(response.closed).toBe(true);
  });

  it('answers a malformed header 400 VALIDATION_ERROR', async () => {
    const response = await sendRaw(harness.url, 'GET /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n');
    expect(response.status, response.raw).toBe(400);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('answers CONNECT 405 in the envelope (regression: the connection was closed without an answer)', async () => {
    const response = await sendRaw(harness.url, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    expect(response.status, response.raw).toBe(405);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(response.headers.get('allow')).toContain('GET');
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('serves a request with an expectation other than 100-continue as if it had none (regression: a bare 417)', async () => {
    const response = await sendRaw(harness.url, 'GET /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: foo\r\nConnection: close\r\n\r\n');
    expect(response.status, response.raw).toBe(200);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(JSON.parse(response.body)).toMatchObject({ success: true });
  });

  it('answers oversized headers 431 HEADERS_TOO_LARGE', async () => {
    const response = await sendRaw(
      harness.url,
      `GET /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(OVERSIZED_HEADER_BYTES)}\r\n\r\n`,
    );
    expect(response.status, response.raw).toBe(431);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
  });

  it('answers an HTTP/1.1 request without Host 400 VALIDATION_ERROR, on the API and the MCP endpoint alike', async () => {
    for (const path of ['/api/public/v1/health', '/api/public/mcp', '/console']) {
      const response = await sendRaw(harness.url, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect(response.status, response.raw).toBe(400);
      expect(response.headers.get('x-api-version')).toBe('2026-05-05');
      expect(JSON.parse(response.body)).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/no Host header/) },
      });
    }
    // HTTP/1.0 has no Host requirement.
    expect((await sendRaw(harness.url, 'GET /api/public/v1/health HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('still serves the next connection', async () => {
    await sendRaw(harness.url, 'G@T / HTTP/1.1\r\n\r\n');
    expect((await harness.api('GET', '/health')).status).toBe(200);
  });
});
