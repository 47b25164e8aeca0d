/**
 * The MCP door's body reader: a request stream already closed (its client gone while the key was
 * checked) is refused at once, never waited on for events it will not emit (regression: the
 * request's handling stayed pending for good).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyWithinLimit } from '../../src/mcp/json-rpc-body.js';

describe('readBodyWithinLimit', () => {
  it('refuses a stream already closed instead of waiting', async () => {
    const request = new PassThrough();
    request.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBodyWithinLimit(request, 1_024)).rejects.toThrow('closed before its body was read');
  });

  it('reads a body within the limit, and answers null past it', async () => {
    const within = new PassThrough();
    const read = readBodyWithinLimit(within, 8);
    within.end(Buffer.from('{"a":1}'));
    expect((await read)?.toString()).toBe('{"a":1}');
    const over = new PassThrough();
    const refused = readBodyWithinLimit(over, 4);
    over.write(Buffer.from('{"a":1}'));
    expect(await refused).toBeNull();
  });
});
