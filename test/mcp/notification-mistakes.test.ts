/**
 * A notification whose params the SDK's own handler refuses (`notifications/cancelled` without a
 * request id or with an object for one, `notifications/progress` with an object for its token) is
 * a client's mistake: a debug line without a stack, whoever sends it. Regression: anyone, without
 * a key, could make the server write a warning with a full stack ("Uncaught error in notification
 * handler") per request.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { logSdkError } from '../../src/mcp/sdk-errors.js';

/** pino's levels. */
const DEBUG = 20;
const WARN = 40;

function capture(lines: Array<Record<string, unknown>>): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
}

let server: RunningServer;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'debug' });
  server = await startServer(config, { logDestination: capture(lines), processMetrics: false });
});
afterAll(() => server.close());

describe('a notification with params the SDK refuses, sent without a key', () => {
  it.each([
    ['notifications/cancelled without params', { jsonrpc: '2.0', method: 'notifications/cancelled' }],
    ['notifications/cancelled with an object for its request id', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } }],
    ['notifications/progress with an object for its token', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: {}, progress: 1 } }],
  ])('%s is accepted and logged at debug without a stack, never as a warning', async (_, notification) => {
    const before = lines.length;
    const response = await fetch(`${server.url}/api/public/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(notification),
    });
    expect(response.status, await response.text()).toBe(202);
    // The SDK runs the handler after the answer: its report arrives on a later turn.
    await expect.poll(() => lines.slice(before).find((line) => String(line.reason ?? '').startsWith('Uncaught error in notification handler'))).toBeDefined();
    const reported = lines.slice(before).find((line) => String(line.reason ?? '').startsWith('Uncaught error in notification handler'));
    expect(reported, JSON.stringify(reported)).toMatchObject({ level: DEBUG, msg: 'MCP request refused by the protocol layer' });
    expect(reported).not.toHaveProperty('err');
    const loud = lines.slice(before).filter((line) => Number(line.level) >= WARN);
    expect(loud, JSON.stringify(loud)).toEqual([]);
  });
});

it("keeps a warning, with its stack, for a notification handler's own fault", () => {
  const captured: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, capture(captured));
  logSdkError(logger, new Error('Uncaught error in notification handler: TypeError: Cannot read properties of undefined'));
  expect(captured.map((line) => [line.level, 'err' in line])).toEqual([[WARN, true]]);
});
