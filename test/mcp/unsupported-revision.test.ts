/**
 * A request naming a protocol revision Porch serves in neither era, in its Mcp-Protocol-Version
 * header or in its per-request envelope, is answered with UnsupportedProtocolVersionError (-32022)
 * listing the revisions `server/discover` announces. Regression: a header naming an unknown
 * revision without an envelope got "-32602 ... missing the required per-request envelope key(s):
 * _meta", which sends a client to fix its envelope rather than choose a revision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { CURRENT_REVISION, mcpUrl } from '../helpers/mcp-client.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

const STREAMABLE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function envelope(revision: string) {
  return {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
  };
}

async function post(headers: Record<string, string>, body: unknown) {
  const response = await fetch(mcpUrl(harness), { method: 'POST', headers: { ...STREAMABLE, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

/** What server/discover announces, which the conformance suite holds an unsupported-version refusal to. */
async function discoveredRevisions(): Promise<unknown> {
  const response = await post(
    { 'mcp-protocol-version': CURRENT_REVISION, 'mcp-method': 'server/discover' },
    { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope(CURRENT_REVISION) } },
  );
  return (response.json.result as { supportedVersions?: unknown } | undefined)?.supportedVersions;
}

describe('an unknown revision', () => {
  it.each(['2099-01-01', 'zzz'])(
    'named by the header %s of a request without an envelope is refused -32022 listing the revisions served per request (regression: -32602 for a missing _meta)',
    async (revision) => {
      const response = await post(
        { 'mcp-protocol-version': revision, 'mcp-method': 'tools/list' },
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      );
      expect(response.status, response.text).toBe(400);
      expect(response.json, response.text).toMatchObject({
        id: 7,
        error: {
          code: -32022,
          message: expect.stringMatching(/Unsupported protocol version/),
          data: { supported: [CURRENT_REVISION], requested: revision },
        },
      });
      expect(await discoveredRevisions()).toEqual([CURRENT_REVISION]);
    },
  );

  it('named by the envelope (and its header) is refused the same way', async () => {
    const response = await post(
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
    );
    expect(response.status, response.text).toBe(400);
    expect(response.json, response.text).toMatchObject({ id: 8, error: { code: -32022, data: { supported: [CURRENT_REVISION], requested: '2099-01-01' } } });
  });
});

describe('a served revision', () => {
  it('named by the header of a request without its envelope is still refused for the missing _meta', async () => {
    const response = await post(
      { 'mcp-protocol-version': CURRENT_REVISION, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} },
    );
    expect(response.status, response.text).toBe(400);
    expect(response.json, response.text).toMatchObject({ error: { code: -32602, message: expect.stringContaining('_meta') } });
  });

  it('with its envelope is served', async () => {
    const response = await post(
      { 'mcp-protocol-version': CURRENT_REVISION, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: envelope(CURRENT_REVISION) } },
    );
    expect(response.status, response.text).toBe(200);
    expect(response.json, response.text).toMatchObject({ id: 10, result: { tools: expect.any(Array) } });
  });
});
