/**
 * Step-up authorization (MCP authorization, "Scope Challenge Handling"): an OAuth token whose
 * scopes do not grant the tool it calls is answered 403 with an `insufficient_scope` challenge
 * naming the scopes, so the host can ask its user for them; an API key, whose holder cannot step
 * up, keeps the isError result. The token comes from the MCP SDK's own OAuth client, approved on
 * the console's consent page over HTTP.
 */
import { auth } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult, mcpUrl, resultText } from '../helpers/mcp-client.js';
import { MemoryOAuthHost } from '../helpers/oauth-host.js';

let harness: Harness;
beforeEach(async () => {
  // The SDK follows the URLs the metadata names, so the public URL must be the one listening.
  harness = await createHarness({ publicPort: true });
});
afterEach(() => harness.close());

/** An access token of a new Expert account's app, approved with `scopes`. */
async function accessToken(scopes: string[]): Promise<{ token: string; accountId: string }> {
  const serverUrl = mcpUrl(harness);
  const provider = new MemoryOAuthHost('Step-up Host');
  expect(await auth(provider, { serverUrl, scope: scopes.join(' ') })).toBe('REDIRECT');
  const authorizationUrl = provider.authorizationUrl;
  if (!authorizationUrl) throw new Error('the SDK did not redirect');
  const { browser, accountId } = await signedInBrowser(harness);
  const started = await browser.get(authorizationUrl.pathname + authorizationUrl.search);
  const consentPath = new URL(started.location ?? '', harness.url).pathname;
  const approved = await browser.post(consentPath, { decision: 'approve', scope: scopes });
  const resumed = await browser.get(new URL(approved.location ?? '', harness.url).pathname);
  const callback = new URL(resumed.location ?? '');
  const code = callback.searchParams.get('code') ?? '';
  expect(await auth(provider, { serverUrl, authorizationCode: code, iss: callback.searchParams.get('iss') ?? undefined })).toBe('AUTHORIZED');
  return { token: provider.saved?.access_token ?? '', accountId };
}

async function callTool(token: string, name: string) {
  const response = await fetch(mcpUrl(harness), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name, arguments: {} } }),
  });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), remaining: response.headers.get('x-ratelimit-remaining'), text };
}

it('answers an OAuth token calling a tool its scopes do not grant with 403 insufficient_scope naming the scopes (regression: a 200 isError result)', async () => {
  const { token } = await accessToken(['read:workflow']);
  const refused = await callTool(token, 'list_context_cards');
  expect(refused.status, refused.text).toBe(403);
  // An authenticated credential's answer reports its windows, a refusal included (regression: none).
  expect(refused.remaining).toMatch(/^\d+$/);
  expect(refused.challenge).toBe(
    `Bearer realm="porch", resource_metadata="${harness.config.publicUrl}/.well-known/oauth-protected-resource/api/public/mcp", error="insufficient_scope", error_description="This token lacks the scope for list_context_cards; it needs one of: api:context-cards, api:expert.", scope="api:context-cards api:expert"`,
  );
  expect(JSON.parse(refused.text)).toMatchObject({
    jsonrpc: '2.0',
    id: 4,
    error: {
      code: -32000,
      message: expect.stringMatching(/^INSUFFICIENT_PERMISSIONS: This token lacks the scope/),
      data: { code: 'INSUFFICIENT_PERMISSIONS' },
    },
  });

  // What the token's scopes grant is served as before.
  const granted = await callTool(token, 'list_workflows');
  expect(granted.status, granted.text).toBe(200);
  expect(granted.text).not.toContain('"isError":true');
});

it('words a resources/read or prompts/get its scopes do not grant for the token, as tools/call does (regression: "This key lacks the scope")', async () => {
  const { token } = await accessToken(['read:workflow']);
  const requests = [
    ['resources/read', { uri: 'porch://context-cards/0190a4b0-0000-7000-8000-000000000000' }, 'get_context_card'],
    ['prompts/get', { name: 'release-notes', arguments: {} }, 'get_prompt'],
  ] as const;
  for (const [method, params, operation] of requests) {
    const response = await fetch(mcpUrl(harness), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method, params }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text), text).toMatchObject({
      id: 6,
      error: {
        code: -32000,
        message: expect.stringMatching(new RegExp(`^INSUFFICIENT_PERMISSIONS: This token lacks the scope for ${operation}; it needs one of: `)),
      },
    });
  }
});

it('keeps the isError result for a tool a token may never call whatever its scopes: more scopes would not help', async () => {
  const { token } = await accessToken(['read:workflow']);
  const refused = await callTool(token, 'create_key');
  expect(refused.status, refused.text).toBe(200);
  expect(refused.challenge).toBeNull();
  expect(refused.text).toContain('ACCESS_DENIED: Connected apps cannot');
});

it('keeps the isError result for an API key without the scope: its holder cannot step up', async () => {
  const { key } = await harness.expertWithKey({ scopes: ['read:workflow'] });
  const connection = await connectHttp(harness, { key });
  try {
    const result = await connection.client.callTool({ name: 'list_context_cards', arguments: {} });
    expect(result.isError, describeResult(result)).toBe(true);
    expect(resultText(result)).toMatch(/^INSUFFICIENT_PERMISSIONS: This key lacks the scope for list_context_cards/);
  } finally {
    await connection.close();
  }
});

it("tells an OAuth token's caller in get_account that it is a connected app (regression: read as an account API key)", async () => {
  const { token } = await accessToken(['read:workflow']);
  const answer = await callTool(token, 'get_account');
  expect(answer.status, answer.text).toBe(200);
  const { result } = JSON.parse(answer.text) as { result: { structuredContent: { key: { kind: string; connected_app: boolean } } } };
  expect(result.structuredContent.key).toMatchObject({ kind: 'api_key', connected_app: true });
});
