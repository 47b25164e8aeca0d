/**
 * The SDK's onerror reports: a request it refused is a client's mistake (a debug line, no stack);
 * anything else is a fault of Porch's own, kept as a warning with its stack (the review found
 * that logging every report at debug hid results the SDK could not encode).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { logSdkError } from '../../src/mcp/sdk-errors.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, destination), lines };
}

it('logs a refused request at debug without a stack, and anything else as a warning with it', () => {
  const { logger, lines } = capturingLogger();
  for (const message of [
    'Not Acceptable: Client must accept text/event-stream',
    'Bad Request: Unsupported protocol version: 2030-01-01',
    'Received a response for an unknown request id: 7',
  ]) {
    logSdkError(logger, new Error(message), { requestId: 'r-1' });
  }
  logSdkError(logger, new Error('Failed to encode result for tools/call'));
  expect(lines.map((line) => [line.level, line.requestId ?? null, 'err' in line])).toEqual([
    [20, 'r-1', false],
    [20, 'r-1', false],
    [20, 'r-1', false],
    [40, null, true],
  ]);
});
