/**
 * A request cut off at the server's timeouts (a body shorter than its Content-Length, headers
 * trickled in): answered 408 in the error envelope with X-API-Version and X-Request-Id, and, when
 * Porch had opened the request, logged and counted as 408. Regression: Node's bare
 * `HTTP/1.1 408 Request Timeout`, and an access line and metric of 499, which blame the client for
 * the server's cut.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { API_VERSION } from '../../src/core/health.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { describeSamples, parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { sendRaw } from '../helpers/raw-http.js';

const METRICS_TOKEN = 'metrics-token-for-the-request-timeout-test';

let server: RunningServer;
let key: string;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PORT: '0',
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'info',
    PORCH_METRICS_TOKEN: METRICS_TOKEN,
  });
  server = await startServer(config, {
    logDestination: destination,
    processMetrics: false,
    serverTimeouts: { headersTimeoutMs: 500, requestTimeoutMs: 1_000, connectionsCheckingIntervalMs: 50 },
  });
  ({ key } = await accountHelpers(server.application.core).expertWithKey());
});
afterAll(() => server.close());

/** How many REST requests porch_http_requests_total counts with this status, and the samples to show when it is not what was expected. */
async function requestsCounted(status: string): Promise<{ count: number; samples: string }> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const samples = parsePrometheusText(await response.text());
  return { count: sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status }), samples: describeSamples(samples, 'porch_http_requests_total') };
}

describe('a request cut off at the request timeout', () => {
  it('answers a body shorter than its Content-Length 408 in the envelope, and logs and counts it as 408 (regression: a bare 408 logged as 499)', async () => {
    const head = [
      'POST /api/public/v1/context-cards HTTP/1.1',
      'Host: 127.0.0.1',
      `X-API-Key: ${key}`,
      'Content-Type: application/json',
      'Content-Length: 100',
    ].join('\r\n');
    const response = await sendRaw(server.url, `${head}\r\n\r\n{"title":`);
    expect(response.status, response.raw).toBe(408);
    expect(response.headers.get('x-api-version')).toBe(API_VERSION);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('connection')).toBe('close');
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({ success: false, error: { code: 'REQUEST_TIMEOUT', message: expect.stringMatching(/did not arrive in time/) } });
    const requestId = response.headers.get('x-request-id');
    expect(body.error.request_id).toBe(requestId);

    await expect.poll(() => lines.find((line) => line.msg === 'request' && line.requestId === requestId)).toBeDefined();
    const accessLine = lines.find((line) => line.msg === 'request' && line.requestId === requestId);
    expect(accessLine, JSON.stringify(accessLine)).toMatchObject({ method: 'POST', path: '/api/public/v1/context-cards', status: 408 });
    const timedOut = await requestsCounted('408');
    expect(timedOut.count, timedOut.samples).toBe(1);
    const closed = await requestsCounted('499');
    expect(closed.count, closed.samples).toBe(0);
  });

  it('answers headers that never end 408 in the envelope', async () => {
    const response = await sendRaw(server.url, 'GET /api/public/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a');
    expect(response.status, response.raw).toBe(408);
    expect(response.headers.get('x-api-version')).toBe(API_VERSION);
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({ success: false, error: { code: 'REQUEST_TIMEOUT' } });
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
  });
});
