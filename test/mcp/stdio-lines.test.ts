/**
 * `porch mcp` reads one JSON-RPC message per line. A line it cannot read is answered with a
 * JSON-RPC error, as the specification asks, instead of being dropped while the client waits.
 * Runs the stdio server in this process over in-memory streams.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { serveMcpOverStdio } from '../../src/mcp/stdio.js';
import { operations } from '../../src/operations/index.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(() => harness.close());

/** Writes each line to a stdio server, waits for `answers` lines back, then closes its input. */
async function exchange(lines: ReadonlyArray<string | Buffer>, answers: number): Promise<Array<Record<string, unknown>>> {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: string[] = [];
  let buffered = '';
  const done = new Promise<void>((resolve) => {
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      received.push(...complete);
      if (received.length >= answers) resolve();
    });
  });
  const serving = serveMcpOverStdio({
    core: harness.core,
    operations,
    errorCodes: harness.config.errorCodes,
    credentials: { apiKey: undefined },
    input,
    output,
  });
  for (const line of lines) input.write(line);
  await done;
  input.end();
  await serving;
  return received.map((line) => JSON.parse(line) as Record<string, unknown>);
}

const PING = `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`;

it('answers a line that is not JSON with -32700 and keeps serving (regression: the line was ignored)', async () => {
  const answers = await exchange(['{"jsonrpc": "2.0", "id": 1, "method":\n', PING], 2);
  expect(answers[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
});

it('answers a batch and a JSON value that is not a JSON-RPC message with -32600, with the id when it has one', async () => {
  const answers = await exchange([`${JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }])}\n`, '{"id": 3, "method": 42}\n', PING], 3);
  expect(answers[0]).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('batches') } });
  expect(answers[1]).toMatchObject({ id: 3, error: { code: -32600 } });
  expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
});

it('passes a message split over two writes, a multi-byte character cut between them, through unchanged', async () => {
  const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'é', method: 'ping' })}\n`, 'utf8');
  const cut = bytes.indexOf(0xc3) + 1;
  const answers = await exchange([bytes.subarray(0, cut), bytes.subarray(cut)], 1);
  expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'é', result: {} });
});

it('answers a line that is not valid UTF-8 with -32700, as HTTP refuses such a body (regression: the bytes became U+FFFD)', async () => {
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'analyze_prompt', arguments: { prompt: 'caf__ test' } } });
  const [before, after] = call.split('__');
  const line = Buffer.concat([Buffer.from(before ?? '', 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from(`${after ?? ''}\n`, 'utf8')]);
  const answers = await exchange([line, PING], 2);
  expect(answers[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('UTF-8') } });
  expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
});

it('answers a request whose params alone MCP refuses with -32602 naming the problem, as over HTTP (regression: -32600, not a JSON-RPC message)', async () => {
  const badToken = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_health', arguments: {}, _meta: { progressToken: { a: 1 } } } };
  const byPosition = { jsonrpc: '2.0', id: 5, method: 'tools/list', params: [] };
  const answers = await exchange([`${JSON.stringify(badToken)}\n`, `${JSON.stringify(byPosition)}\n`, PING], 3);
  expect(answers[0]).toEqual({
    jsonrpc: '2.0',
    id: 4,
    error: { code: -32602, message: 'Invalid params for tools/call: _meta.progressToken: must be a string or an integer.' },
  });
  expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'Invalid params for tools/list: params: must be an object.' } });
  expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
});
