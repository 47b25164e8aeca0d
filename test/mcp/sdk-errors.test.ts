/**
 * The SDK's onerror reports: a request it refused is a client's mistake (a debug line, no stack);
 * anything else is a fault of Porch's own, kept as a warning with its stack (the review found
 * that logging every report at debug hid results the SDK could not encode).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { logSdkError } from '../../src/mcp/sdk-errors.js';
import { CURRENT_REVISION } from '../helpers/mcp-client.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, destination), lines, destination };
}

it('logs a refused request at debug without a stack, and anything else as a warning with it', () => {
  const { logger, lines } = capturingLogger();
  for (const message of [
    'Not Acceptable: Client must accept text/event-stream',
    'Bad Request: Unsupported protocol version: 2030-01-01',
    'Received a response for an unknown request id: 7',
    'Rejected inbound request (version-header-missing): Mcp-Protocol-Version header is required',
    'Missing required client capabilities: extensions',
  ]) {
    logSdkError(logger, new Error(message), { requestId: 'r-1' });
  }
  logSdkError(logger, new Error('Failed to encode result for tools/call'));
  expect(lines.map((line) => [line.level, line.requestId ?? null, 'err' in line])).toEqual([
    [20, 'r-1', false],
    [20, 'r-1', false],
    [20, 'r-1', false],
    [20, 'r-1', false],
    [20, 'r-1', false],
    [40, null, true],
  ]);
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': CURRENT_REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
};

it('logs no warning for a 2026-07-28 request whose headers the SDK rejects (regression: a kilobyte of stack per anonymous request)', async () => {
  const { destination, lines } = capturingLogger();
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'info' });
  const server = await startServer(config, { logDestination: destination, processMetrics: false });
  try {
    const streamable = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const refused: Array<{ headers: Record<string, string>; body: unknown }> = [
      // The envelope without the Mcp-Protocol-Version header.
      { headers: streamable, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } } },
      // An Mcp-Name header naming another tool than the body.
      {
        headers: { ...streamable, 'mcp-protocol-version': CURRENT_REVISION, 'mcp-method': 'tools/call', 'mcp-name': 'x' },
        body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'analyze_prompt', arguments: { prompt: 'Hi' }, _meta: ENVELOPE } },
      },
    ];
    for (const { headers, body } of refused) {
      const response = await fetch(`${server.url}/api/public/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(text).toContain('-32020');
    }
    const loud = lines.filter((line) => Number(line.level) >= 40);
    expect(loud, JSON.stringify(loud)).toEqual([]);
  } finally {
    await server.close();
  }
});
