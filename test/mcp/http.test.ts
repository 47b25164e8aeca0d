/**
 * MCP over Streamable HTTP at /api/public/mcp on the same server as REST: a real SDK client
 * with and without a key, the stateless request handling, and the transport's protections
 * (Origin, Host, body limit, methods).
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { StoreUnavailableError } from '../../src/db/store.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createProviderHarness } from '../helpers/provider-harness.js';
import { connectHttp, describeResult, mcpUrl, operationNamed, sampleFor, toolArguments } from '../helpers/mcp-client.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness({ env: { PORCH_ALLOWED_ORIGINS: 'http://localhost:6274' } });
});
afterEach(() => harness.close());

const PUBLIC_TOOLS = exposedOn(operations, 'mcp-tool')
  .filter((operation) => operation.access === 'public')
  .map((operation) => operation.name)
  .sort();

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(mcpUrl(harness), { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function toolNames(options: { key?: string; headers?: Record<string, string> }): Promise<string[]> {
  const connection = await connectHttp(harness, options);
  try {
    return (await connection.client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await connection.close();
  }
}

describe('without a key', () => {
  it('lists only the public tools and scores a prompt with analyze_prompt', async () => {
    const connection = await connectHttp(harness);
    try {
      expect((await connection.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(PUBLIC_TOOLS);
      const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt: 'Write a limerick about SQLite.' } });
      expect(result.isError, describeResult(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ refine_url: expect.stringContaining('/refine?prompt=') });
    } finally {
      await connection.close();
    }
  });

  it('challenges a keyed tool called without a key: 401 pointing at the OAuth metadata, with the scopes and MISSING_API_KEY', async () => {
    const response = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } });
    expect(response.status, response.text).toBe(401);
    // An MCP host that can sign its user in finds the authorization server from here (RFC 9728).
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="porch", resource_metadata="${harness.config.publicUrl}/.well-known/oauth-protected-resource/api/public/mcp", scope="api:context-cards api:expert"`,
    );
    // One hint, naming how an MCP client sends a key (not a REST-only header, not twice).
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: {
        code: -32000,
        message:
          'MISSING_API_KEY: No API key was sent. Send an API key (mdi_...): the X-API-Key or Authorization: Bearer header over HTTP, PORCH_API_KEY for stdio.',
        data: { code: 'MISSING_API_KEY' },
      },
    });
  });

  it('challenges prompts/get and resources/read without a key the same way; listings stay open', async () => {
    for (const [method, params] of [
      ['prompts/get', { name: 'release-notes' }],
      ['resources/read', { uri: 'porch://context-cards/0190a4b0-0000-7000-8000-000000000000' }],
    ] as const) {
      const response = await post({ jsonrpc: '2.0', id: 6, method, params });
      expect(response.status, `${method}: ${response.text}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="porch", resource_metadata="[^"]+", scope="[^"]+"$/);
    }
    expect((await post({ jsonrpc: '2.0', id: 7, method: 'prompts/list', params: {} })).status).toBe(200);
  });
});

describe('with a key', () => {
  it('lists and calls the tools its scopes allow, with X-API-Key or Authorization: Bearer', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.contextCards.create(accountId, { title: 'Over HTTP', content: 'Streamable' });
    const headerSets: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }];
    for (const headers of headerSets) {
      const connection = await connectHttp(harness, { headers });
      try {
        const names = (await connection.client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('list_context_cards');
        expect(names).toContain('execute_workflow');
        const result = await connection.client.callTool({ name: 'list_context_cards', arguments: {} });
        expect(result.isError, describeResult(result)).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ count: 1, items: [{ title: 'Over HTTP' }] });
      } finally {
        await connection.close();
      }
    }
  });

  it('shows a key whose only scope is api:sanitiser analyze_prompt, scan_text, get_health, get_account and list_models (any key), and nothing else', async () => {
    const { key } = await harness.expertWithKey({ scopes: ['api:sanitiser'] });
    expect(await toolNames({ key })).toEqual(['analyze_prompt', 'get_account', 'get_health', 'list_models', 'scan_text']);
  });

  it('acts for the account named in X-Porch-Account with a partner key', async () => {
    const owner = await harness.createAccount();
    const member = await harness.core.accounts.createAccount({
      email: `member-${Date.now()}@example.com`,
      plan: 'expert',
      credits: 5,
      organisationId: owner.organisationId,
    });
    await harness.core.contextCards.create(member.id, { title: 'Member card', content: 'x' });
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['api:context-cards'] });
    const connection = await connectHttp(harness, { key: partner.plaintext, headers: { 'x-porch-account': member.id } });
    try {
      const result = await connection.client.callTool({ name: 'list_context_cards', arguments: {} });
      expect(result.structuredContent).toMatchObject({ items: [{ title: 'Member card' }] });
      expect(result._meta).toMatchObject({ 'porch/credits-remaining': 5 });
    } finally {
      await connection.close();
    }
  });
});

describe('X-Porch-Account sent twice', () => {
  it('is refused saying so, as over REST (regression: "must be an account id (a uuid)" for the joined values)', async () => {
    const owner = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId });
    const url = mcpUrl(harness);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // An array value is sent as one header line per value.
      const headers = { ...MCP_HEADERS, 'x-api-key': partner.plaintext, 'x-porch-account': [owner.accountId, owner.accountId] };
      const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end(JSON.stringify(LIST_TOOLS));
    });
    expect(answer.status, answer.body).toBe(400);
    expect(answer.body).toContain('The request has 2 X-Porch-Account headers; send one account id (a uuid), once.');
  });
});

describe('a key that does not work (regression: Inspector hid INVALID_API_KEY behind an OAuth prompt)', () => {
  const UNKNOWN_KEY = 'mdi_unknownunknownunknownunknownunknown000000';

  it('is refused before MCP starts: 401, a Bearer invalid_token challenge and a JSON-RPC error with the request id', async () => {
    const response = await post({ ...LIST_TOOLS, id: 'list-7' }, { 'x-api-key': UNKNOWN_KEY });
    expect(response.status, response.text).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="porch", resource_metadata="${harness.config.publicUrl}/.well-known/oauth-protected-resource/api/public/mcp", error="invalid_token", error_description="The API key is invalid, expired or revoked."`,
    );
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'INVALID_API_KEY: The API key is invalid, expired or revoked. Do not retry; use a valid, unrevoked key.',
        data: { code: 'INVALID_API_KEY' },
      },
      id: 'list-7',
    });
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('is refused the same way when sent as Authorization: Bearer', async () => {
    const response = await post(LIST_TOOLS, { authorization: `Bearer ${UNKNOWN_KEY}` });
    expect(response.status, response.text).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="porch", resource_metadata="[^"]+", error="invalid_token"/);
    expect(response.json).toMatchObject({ error: { data: { code: 'INVALID_API_KEY' } }, id: 1 });
  });

  it('shows the SDK client the error code, not just an HTTP status', async () => {
    await expect(connectHttp(harness, { key: UNKNOWN_KEY })).rejects.toThrow(/INVALID_API_KEY/);
  });

  it('answers id null when the body holds no readable request id', async () => {
    for (const body of ['not json', JSON.stringify([LIST_TOOLS]), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })]) {
      const response = await fetch(mcpUrl(harness), { method: 'POST', headers: { ...MCP_HEADERS, 'x-api-key': UNKNOWN_KEY }, body });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'INVALID_API_KEY' } }, id: null });
    }
  });

  it('emits the Set B code when PORCH_ERROR_CODES=b', async () => {
    await harness.close();
    harness = await createHarness({ env: { PORCH_ERROR_CODES: 'b' } });
    const response = await post(LIST_TOOLS, { 'x-api-key': 'garbage' });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ error: { message: expect.stringMatching(/^UNAUTHORIZED: /), data: { code: 'UNAUTHORIZED' } } });
  });
});

describe('an Authorization header that is not Bearer (regression: it was read as no key, so only public tools showed)', () => {
  it('refuses Basic and a bare key with 401 naming the accepted forms, without quoting the header', async () => {
    const { key } = await harness.expertWithKey();
    for (const authorization of [`Basic ${Buffer.from(`user:${key}`).toString('base64')}`, key]) {
      const response = await post(LIST_TOOLS, { authorization });
      expect(response.status, response.text).toBe(401);
      // RFC 6750 §3.1: a request without a usable Bearer token gets the challenge without an error code.
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer realm="porch", resource_metadata="${harness.config.publicUrl}/.well-known/oauth-protected-resource/api/public/mcp"`,
      );
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'INVALID_API_KEY' } }, id: 1 });
      const message = (response.json as { error: { message: string } }).error.message;
      expect(message).toContain('X-API-Key: mdi_... or Authorization: Bearer mdi_...');
      expect(message).not.toContain(key);
    }
  });

  it('leaves it to a proxy when X-API-Key carries the key', async () => {
    const { key } = await harness.expertWithKey();
    expect(await toolNames({ headers: { 'x-api-key': key, authorization: 'Basic cHJveHk6c2VjcmV0' } })).toContain('list_context_cards');
  });

  it('treats a blank key as no key: the public tools, and a keyed tool is challenged with MISSING_API_KEY', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } },
      { authorization: 'Bearer ' },
    );
    expect(response.status, response.text).toBe(401);
    expect(response.json).toMatchObject({ id: 2, error: { data: { code: 'MISSING_API_KEY' } } });
  });
});

describe('the database out of reach', () => {
  it('refuses a keyed call with 503, Retry-After and -32000, saying once when to retry (regression: no Retry-After, -32603 and a doubled hint)', async () => {
    const { key } = await harness.expertWithKey();
    // What PostgreSQL out of reach makes of the key's lookup (the store's own error for it).
    harness.store.apiKeys.findUsableByHash = async () => {
      throw new StoreUnavailableError('The PostgreSQL database cannot be reached.');
    };
    const response = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_skills', arguments: {} } }, { 'x-api-key': key });
    expect(response.status, response.text).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32000,
        message: 'SERVICE_UNAVAILABLE: The database is unavailable right now; retry shortly.',
        data: { code: 'SERVICE_UNAVAILABLE', retry_after: 1 },
      },
    });
  });
});

describe('idempotent retries', () => {
  it('replays an execution retried with the same Idempotency-Key header, charging once', async () => {
    const { accountId, key } = await harness.expertWithKey();
    const sample = await sampleFor(harness, 'execute_persona', accountId);
    const executePersona = operationNamed('execute_persona');
    const connection = await connectHttp(harness, { key, headers: { 'idempotency-key': 'http-retry-1' } });
    try {
      const first = await connection.client.callTool({ name: 'execute_persona', arguments: toolArguments(executePersona, sample) });
      const second = await connection.client.callTool({ name: 'execute_persona', arguments: toolArguments(executePersona, sample) });
      expect(first.isError, describeResult(first)).toBeFalsy();
      expect(second.structuredContent).toEqual(first.structuredContent);
      expect(await harness.store.usage.listByAccount(accountId)).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });
});

describe('stateless transport', () => {
  it('answers every POST on its own: no session id, and calls work without initialising first', async () => {
    const response = await post(LIST_TOOLS);
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const tools = (response.json as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name).sort();
    expect(tools).toEqual(PUBLIC_TOOLS);
  });

  it('serves concurrent clients with different keys, each seeing its own tools', async () => {
    const sanitiser = await harness.expertWithKey({ scopes: ['api:sanitiser'] });
    const cards = await harness.expertWithKey({ scopes: ['api:context-cards'] });
    const [anonymous, sanitiserTools, cardTools] = await Promise.all([toolNames({}), toolNames({ key: sanitiser.key }), toolNames({ key: cards.key })]);
    expect(anonymous).toEqual(PUBLIC_TOOLS);
    expect(sanitiserTools).toEqual(['analyze_prompt', 'get_account', 'get_health', 'list_models', 'scan_text']);
    expect(cardTools).toContain('create_context_card');
    expect(cardTools).not.toContain('scan_text');
  });

  it('answers each JSON exchange for its own key while servers are reused: interleaved concurrent calls by three keys and none', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => harness.expertWithKey({ scopes: ['api:sanitiser'] })));
    const callers = [...keys.map((key) => ({ key: key.key, accountId: key.accountId })), { key: undefined, accountId: undefined }];
    // Several rounds, each with more requests in flight than keys, so pooled servers change hands between keys.
    for (let round = 0; round < 3; round += 1) {
      const calls = Array.from({ length: 16 }, (_, index) => callers[index % callers.length]).map(async (caller, index) => {
        const body = { jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: 'get_account', arguments: {} } };
        const response = await post(body, caller?.key === undefined ? {} : { 'x-api-key': caller.key });
        return { caller, index, response };
      });
      for (const { caller, index, response } of await Promise.all(calls)) {
        if (caller?.key === undefined) {
          expect(response.status, response.text).toBe(401);
          continue;
        }
        expect(response.status, response.text).toBe(200);
        const answer = response.json as { id: number; result: { structuredContent: { account: { id: string } } } };
        expect(answer.id).toBe(index);
        expect(answer.result.structuredContent.account.id).toBe(caller.accountId);
      }
    }
  });

  it('keeps answering after a client leaves mid-call: the server it left is not handed to a later request', async () => {
    const provider = await createProviderHarness();
    try {
      const { key, accountId } = await provider.expertWithKey();
      const { ids } = await provider.core.bundles.importBundle(accountId, DEMO_BUNDLE);
      provider.fake.setBehaviour({ delayMs: 60_000 });
      const send = (body: unknown, signal?: AbortSignal) =>
        fetch(mcpUrl(provider), { method: 'POST', headers: { ...MCP_HEADERS, 'x-api-key': key }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
      const leaving = new AbortController();
      const execute = { name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input: 'Hello.' } };
      const left = send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: execute }, leaving.signal).then(
        () => 'answered',
        () => 'left',
      );
      await provider.fake.waitForRequests(1);
      leaving.abort();
      expect(await left).toBe('left');
      // Leaving aborted the call (docs/mcp.md, cancelling a call): its run ended without waiting out the upstream's minute.
      await expect
        .poll(async () => (await provider.api<{ items: Array<{ status: string }> }>('GET', '/runs', { key })).body.data.items[0]?.status, { timeout: 10_000 })
        .toMatch(/failed|cancelled/);
      // Rounds of calls in flight together, more than the servers kept idle, so every kept server is handed out.
      for (let round = 0; round < 3; round += 1) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, async (_, index) => {
            const response = await send({ jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: 'get_account', arguments: {} } });
            return { index, status: response.status, text: await response.text() };
          }),
        );
        for (const { index, status, text } of answers) {
          expect(status, text).toBe(200);
          expect((JSON.parse(text) as { id: number }).id).toBe(index);
        }
      }
    } finally {
      await provider.close();
    }
  });

  it("runs on a 2025-era call the SDK client cancels with its AbortSignal (notifications/cancelled, the request left open); closing the transport, or a 2026-07-28 client's cancel, stops it (docs/mcp.md)", async () => {
    const provider = await createProviderHarness();
    try {
      const { key, accountId } = await provider.expertWithKey();
      const { ids } = await provider.core.bundles.importBundle(accountId, DEMO_BUNDLE);
      const execute = { name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input: 'Hello.' } };
      const latestRun = async () =>
        (await provider.api<{ items: Array<{ status: string; credits_charged: number }> }>('GET', '/runs', { key })).body.data.items[0];

      // The SDK client's cancel of a 2025-era call: its promise rejects at once, the call runs to its end and is charged.
      provider.fake.setBehaviour({ delayMs: 1_000 });
      const legacy = await connectHttp(provider, { key });
      const cancelling = new AbortController();
      const cancelled = legacy.client.callTool(execute, { signal: cancelling.signal });
      await provider.fake.waitForRequests(1);
      cancelling.abort('the user cancelled');
      await expect(cancelled).rejects.toThrow(/the user cancelled/);
      await expect.poll(async () => (await latestRun())?.status, { timeout: 10_000 }).toBe('completed');
      expect((await latestRun())?.credits_charged).toBeGreaterThan(0);

      // Closing the transport closes the call's request, which stops the call.
      provider.fake.setBehaviour({ delayMs: 60_000 });
      const closing = legacy.client.callTool(execute).catch(() => 'closed');
      await provider.fake.waitForRequests(2);
      await legacy.close();
      expect(await closing).toBe('closed');
      await expect.poll(async () => (await latestRun())?.status, { timeout: 10_000 }).toMatch(/failed|cancelled/);

      // A 2026-07-28 client cancels by aborting the call's request, which stops the call.
      const modern = await connectHttp(provider, { key, era: 'modern' });
      try {
        const aborting = new AbortController();
        const aborted = modern.client.callTool(execute, { signal: aborting.signal });
        await provider.fake.waitForRequests(3);
        aborting.abort('the user cancelled');
        await expect(aborted).rejects.toThrow(/the user cancelled/);
        await expect.poll(async () => (await latestRun())?.status, { timeout: 10_000 }).toMatch(/failed|cancelled/);
      } finally {
        await modern.close();
      }
    } finally {
      await provider.close();
    }
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(mcpUrl(harness), { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('refuses a body over the 1 MiB limit with 413', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'analyze_prompt', arguments: { prompt: 'x'.repeat(1024 * 1024 + 1) } },
    });
    expect(response.status).toBe(413);
  });
});

describe('JSON-RPC batches and body encodings', () => {
  const PING = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

  it('refuses a batch with -32600 under every revision but 2025-03-26, the only one that had batches (regression: answered as if allowed)', async () => {
    for (const revision of ['2024-10-07', '2024-11-05', '2025-06-18', '2025-11-25']) {
      const response = await post([PING(1), PING(2)], { 'mcp-protocol-version': revision });
      expect(response.status, response.text).toBe(400);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining(revision) } });
    }
    const initializeBatch = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    ];
    expect((await post(initializeBatch)).status).toBe(400);
    // A revision the server does not serve gets the answer a single message gets.
    const unknown = await post([PING(1), PING(2)], { 'mcp-protocol-version': 'abc' });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.text).toMatch(/Unsupported protocol version/i);
  });

  it('still answers every message of a batch under 2025-03-26, and without a revision header (which means 2025-03-26)', async () => {
    for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Array<Record<string, string>>) {
      const response = await post([PING(1), PING(2)], headers);
      expect(response.status, response.text).toBe(200);
      expect(JSON.parse(response.text)).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    }
  });

  it('answers a batch of one request, alone or with a notification, with a one-element array (regression: a bare object)', async () => {
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    for (const batch of [[PING(1)], [PING(1), initialized]]) {
      const response = await post(batch, { 'mcp-protocol-version': '2025-03-26' });
      expect(response.status, response.text).toBe(200);
      expect(JSON.parse(response.text)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    }
    // A batch of notifications only has nothing to answer.
    expect((await post([initialized], { 'mcp-protocol-version': '2025-03-26' })).status).toBe(202);
  });

  it('refuses, before running any of it, a 2025-03-26 batch holding initialize or two requests with one id (regression: one executed unanswered)', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const refusedInitialize = await post([initialize, PING(2)], { 'mcp-protocol-version': '2025-03-26' });
    expect(refusedInitialize.status, refusedInitialize.text).toBe(400);
    expect(refusedInitialize.json).toMatchObject({ error: { code: -32600, message: expect.stringContaining('initialize must be sent alone') } });

    const { key, accountId } = await harness.expertWithKey();
    const card = await harness.core.contextCards.create(accountId, { title: 'Once', content: 'x' });
    const remove = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'delete_context_card', arguments: { id: card.id } } });
    const duplicated = await post([PING(7), remove(7)], { 'mcp-protocol-version': '2025-03-26', 'x-api-key': key });
    expect(duplicated.status, duplicated.text).toBe(400);
    expect(duplicated.json).toMatchObject({ error: { code: -32600, message: expect.stringContaining('the id 7') } });
    // Nothing of the batch ran.
    expect((await harness.api('GET', `/context-cards/${card.id}`, { key })).status).toBe(200);
  });

  it('challenges a keyless 2025-03-26 batch that holds a keyed call with 401, as the call alone is (regression: an isError result in a 200)', async () => {
    const keyed = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } };
    const response = await post([PING(1), keyed], { 'mcp-protocol-version': '2025-03-26' });
    expect(response.status, response.text).toBe(401);
    expect(response.json).toMatchObject({ id: null, error: { data: { code: 'MISSING_API_KEY' } } });
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
    // A keyless batch of what needs no key is still answered.
    expect((await post([PING(1), PING(2)], { 'mcp-protocol-version': '2025-03-26' })).status).toBe(200);
  });

  it('refuses a gzip-compressed body with 415, as REST does (regression: a -32700 parse error that hid the reason)', async () => {
    const compressed = gzipSync(JSON.stringify(LIST_TOOLS));
    const response = await fetch(mcpUrl(harness), { method: 'POST', headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' }, body: compressed });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining('Content-Encoding') } });
  });

  it('answers a body that is not JSON with -32700', async () => {
    const response = await fetch(mcpUrl(harness), { method: 'POST', headers: MCP_HEADERS, body: '{"jsonrpc":' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('answers a body that is not UTF-8 with -32700, rather than read U+FFFD in place of its bytes', async () => {
    const body = Buffer.concat([Buffer.from(JSON.stringify(LIST_TOOLS).slice(0, -1)), Buffer.from(',"x":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await fetch(mcpUrl(harness), { method: 'POST', headers: MCP_HEADERS, body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining('UTF-8') } });
  });

  it('refuses a request under a revision it does not serve with 400, naming every one it does, 2026-07-28 included (regression: the SDK list without it)', async () => {
    const served = '2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07';
    for (const body of [LIST_TOOLS, [LIST_TOOLS], { ...LIST_TOOLS, params: { _meta: { progressToken: 1 } } }]) {
      const response = await post(body, { 'mcp-protocol-version': '1999-01-01' });
      expect(response.status, response.text).toBe(400);
      expect(response.json).toMatchObject({
        id: null,
        error: { code: -32000, message: `Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: ${served})` },
      });
    }
    expect((await post(LIST_TOOLS, { 'mcp-protocol-version': '2025-06-18' })).status).toBe(200);
  });

  it('keeps the transport refusals of a single request: 406 without event streams in Accept, 415 for a body not sent as JSON', async () => {
    const notAccepted = await post(LIST_TOOLS, { accept: 'application/json' });
    expect(notAccepted.status).toBe(406);
    expect(notAccepted.json).toMatchObject({ id: null, error: { code: -32000, message: expect.stringContaining('Not Acceptable') } });
    const notJson = await post(LIST_TOOLS, { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expect(notJson.json).toMatchObject({ id: null, error: { code: -32000, message: expect.stringContaining('Content-Type must be application/json') } });
  });

  it('accepts a notification with 202 and no body', async () => {
    const response = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(response.status).toBe(202);
    expect(response.text).toBe('');
  });
});

describe('Origin and Host validation', () => {
  it('refuses a browser origin that is not allowed with 403, before authentication', async () => {
    const response = await post(LIST_TOOLS, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.text).toContain('https://evil.example');
  });

  it('allows the public URL origin and configured origins, with CORS headers that expose the MCP headers', async () => {
    for (const origin of [new URL(harness.config.publicUrl).origin, 'http://localhost:6274']) {
      const response = await post(LIST_TOOLS, { origin });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
      expect(response.headers.get('access-control-expose-headers')).toContain('Mcp-Protocol-Version');
      expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    }
  });

  it("lets a page read a refusal's rate-limit windows and Retry-After (regression: not exposed, so a browser client could not back off)", async () => {
    const exposed = (await post(LIST_TOOLS, { origin: 'http://localhost:6274' })).headers.get('access-control-expose-headers')?.split(', ') ?? [];
    expect(exposed).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-RateLimit-Daily-Limit',
        'X-RateLimit-Daily-Remaining',
        'Retry-After',
      ]),
    );
  });

  it('accepts the public origin spelled localhost, 127.0.0.1 or [::1] (same scheme and port), as the Host check does', async () => {
    await harness.close();
    harness = await createHarness({ env: { PORCH_PUBLIC_URL: 'http://127.0.0.1:3000' } });
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      const response = await post(LIST_TOOLS, { origin });
      expect(response.status, `${origin}: ${response.text}`).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    }
    // Another port or scheme is another origin, whatever the host.
    for (const origin of ['http://localhost:4000', 'https://localhost:3000', 'http://localhost']) {
      expect((await post(LIST_TOOLS, { origin })).status, origin).toBe(403);
    }
  });

  it('adds no local spellings when the public URL names a real host', async () => {
    await harness.close();
    harness = await createHarness({ env: { PORCH_PUBLIC_URL: 'https://porch.example.com' } });
    expect((await post(LIST_TOOLS, { origin: 'https://porch.example.com' })).status).toBe(200);
    for (const origin of ['https://localhost', 'http://localhost', 'http://127.0.0.1']) {
      expect((await post(LIST_TOOLS, { origin })).status, origin).toBe(403);
    }
  });

  it('answers a CORS preflight from an allowed origin with the methods and headers MCP clients send', async () => {
    const response = await fetch(mcpUrl(harness), {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = response.headers.get('access-control-allow-headers') ?? '';
    // Mcp-Method and Mcp-Name: a 2026-07-28 client sends them on every request (regression: missing, so browsers refused the call).
    for (const header of ['X-API-Key', 'Authorization', 'Mcp-Protocol-Version', 'Content-Type', 'Mcp-Method', 'Mcp-Name', 'traceparent']) {
      expect(allowed).toContain(header);
    }
  });

  it('refuses a Host that is neither the public URL host nor localhost with 403 (DNS rebinding)', async () => {
    const url = mcpUrl(harness);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...MCP_HEADERS, host: `attacker.example:${url.port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(LIST_TOOLS));
    });
    expect(status).toBe(403);
  });
});
