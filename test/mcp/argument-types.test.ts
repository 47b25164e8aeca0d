/**
 * MCP tool arguments are JSON, read as the tool's inputSchema says: a path or query field that
 * REST reads from the URL (and so converts from digits) is an integer over MCP, and a string is
 * refused; a top-level `__proto__` is refused (as invalid params, before the SDK's copy of the
 * arguments would drop it), as REST refuses it in a body. Regressions: `{"limit": "12"}`
 * and `{"version": "1"}` were served, `{"limit": "-1"}` said "must be a whole number" where
 * `{"limit": -1}` says "at least 1", and `{"__proto__": ...}` in create_context_card's arguments
 * vanished unchecked (the card was created).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { mcpUrl } from '../helpers/mcp-client.js';

let harness: Harness;
let key: string;
let compositionId: string;
beforeAll(async () => {
  harness = await createHarness();
  ({ key } = await harness.expertWithKey({ scopes: ['api:context-cards', 'read:composition', 'write:composition'] }));
  const created = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Greeting', template: 'Say hello to {{name}}.' } });
  compositionId = created.body.data?.id ?? '';
});
afterAll(() => harness.close());

/** A tools/call sent as JSON text, as a client sends it (an in-memory client would pass the object, `__proto__` lost). */
async function callTool(name: string, argumentsJson: string): Promise<{ text: string; isError: boolean; raw: string }> {
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`;
  const response = await fetch(mcpUrl(harness), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body,
  });
  const raw = await response.text();
  const message = JSON.parse(raw) as { result?: { isError?: boolean; content?: Array<{ text?: string }> } };
  return { text: message.result?.content?.[0]?.text ?? '', isError: message.result?.isError === true, raw };
}

describe('an integer argument of a path or query field', () => {
  it.each([
    ['list_context_cards', '{"limit":"12"}', 'limit: must be a whole number'],
    ['list_context_cards', '{"limit":"007"}', 'limit: must be a whole number'],
    ['list_context_cards', '{"limit":"-1"}', 'limit: must be a whole number'],
    ['list_context_cards', '{"limit":true}', 'limit: must be a whole number'],
  ])('%s %s is refused as the schema says (regression: digit strings were converted)', async (name, args, message) => {
    const result = await callTool(name, args);
    expect(result.isError, result.raw).toBe(true);
    expect(result.text, result.raw).toMatch(/^VALIDATION_ERROR/);
    expect(result.text, result.raw).toContain(message);
  });

  it('names the bound for a number out of range, and serves a number in range', async () => {
    const negative = await callTool('list_context_cards', '{"limit":-1}');
    expect(negative.text, negative.raw).toContain('limit: must be at least 1');
    const twelve = await callTool('list_context_cards', '{"limit":12}');
    expect(twelve.isError, twelve.raw).toBe(false);
  });

  it('refuses a version sent as a string to get_composition_version, and serves it as a number', async () => {
    const asString = await callTool('get_composition_version', JSON.stringify({ id: compositionId, version: '1' }));
    expect(asString.isError, asString.raw).toBe(true);
    expect(asString.text, asString.raw).toContain('version: must be a whole number');
    const asNumber = await callTool('get_composition_version', JSON.stringify({ id: compositionId, version: 1 }));
    expect(asNumber.isError, asNumber.raw).toBe(false);
  });
});

describe('a path argument left out', () => {
  it.each([
    ['get_context_card', {}, 'id: is required'],
    ['get_composition_version', { version: 1 }, 'id: is required'],
    ['get_composition_version', {}, 'id: is required; version: is required'],
    ['get_composition_version', { id: 42 }, 'id: must be a uuid; version: is required'],
  ])('%s %j is told the argument is required, as a body field is (regression: "must be a uuid")', async (name, args, message) => {
    const result = await callTool(name, JSON.stringify(args));
    expect(result.isError, result.raw).toBe(true);
    expect(result.text, result.raw).toBe(`VALIDATION_ERROR: Invalid request: ${message}. Fix the request as the message says and send it again.`);
  });

  it('get_composition_version without its version is told the version is required, not that it must be a whole number (regression)', async () => {
    const result = await callTool('get_composition_version', JSON.stringify({ id: compositionId }));
    expect(result.text, result.raw).toContain('Invalid request: version: is required.');
    // A null is a value of the wrong type, as in a body.
    const nulled = await callTool('get_composition_version', JSON.stringify({ id: compositionId, version: null }));
    expect(nulled.text, nulled.raw).toContain('Invalid request: version: must be a whole number.');
  });
});

describe('params MCP refuses in a well-formed JSON-RPC request', () => {
  async function send(message: unknown): Promise<{ status: number; text: string }> {
    const response = await fetch(mcpUrl(harness), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify(message),
    });
    return { status: response.status, text: await response.text() };
  }

  it.each([
    [
      'a progress token that is an object',
      { name: 'get_health', arguments: {}, _meta: { progressToken: { a: 1 } } },
      '_meta.progressToken: must be a string or an integer',
    ],
    [
      'a progress token that is a fraction',
      { name: 'get_health', arguments: {}, _meta: { progressToken: 1.5 } },
      '_meta.progressToken: must be a string or an integer',
    ],
    ['_meta that is not an object', { name: 'get_health', arguments: {}, _meta: 'x' }, '_meta: must be an object'],
    ['params by position', ['analyze_prompt'], 'params: must be an object'],
  ])('%s is -32602 Invalid params naming it, not -32600 "not a valid JSON-RPC message" (regression)', async (_, params, problem) => {
    const answer = await send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32602, message: `Invalid params for tools/call: ${problem}.` } });
  });

  it('keeps -32600 for what is no JSON-RPC request: params that are a string, or no id', async () => {
    for (const message of [
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: 'analyze_prompt' },
      { jsonrpc: '2.0', id: null, method: 'tools/call', params: [] },
    ]) {
      const answer = await send(message);
      expect(answer.status, answer.text).toBe(400);
      expect(JSON.parse(answer.text), answer.text).toMatchObject({ error: { code: -32600 } });
    }
  });
});

describe('a top-level __proto__ argument', () => {
  it('is refused as invalid params naming it, and create_context_card writes no card (regression: dropped silently, the card created)', async () => {
    const result = await callTool('create_context_card', '{"title":"Prototype","content":"C","__proto__":{"x":1}}');
    expect(JSON.parse(result.raw), result.raw).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringContaining('arguments.__proto__: is not a name') },
    });
    const list = await callTool('list_context_cards', '{}');
    expect(list.isError, list.raw).toBe(false);
    expect(list.raw).not.toContain('Prototype');
  });

  it.each([
    ['list_context_cards', '{"__proto__":"x"}'],
    ['create_context_card', '{"title":"T","content":"C","__proto__":null}'],
  ])('is refused whatever its value (%s %s)', async (name, args) => {
    const result = await callTool(name, args);
    expect(JSON.parse(result.raw), result.raw).toMatchObject({ error: { code: -32602, message: expect.stringContaining('__proto__') } });
  });
});
