/**
 * The shared security suite, run through MCP over every keyed tool: no key, bad key, revoked
 * key, non-Expert account, grace period over, missing scope, another account's id. In-process
 * connections re-check the key on every request (as stdio does), so refusals arrive as isError
 * results; over Streamable HTTP a key that does not work is refused with 401, a Bearer
 * challenge and a JSON-RPC error naming the code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_GRACE_PERIOD_MS } from '../../src/core/access/authenticator.js';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, grantedToAnyKey, type AnyKeyedOperation, type Operation } from '../../src/operations/operation.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectInMemory, describeResult, mcpUrl, resultText, sampleFor, toolArguments } from '../helpers/mcp-client.js';

const keyed = exposedOn(operations as readonly Operation[], 'mcp-tool').filter((operation): operation is AnyKeyedOperation => operation.access === 'keyed');

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

const UNUSABLE_KEYS = ['mdi_thisKeyDoesNotExist0000000000000000000000', 'not-a-key', 'mpk_unknownPartnerKey'];

/** Calls the operation's tool with its sample arguments, built against `accountId`; answers the result and the tools listed. */
async function call(operation: Operation, key: string | undefined, accountId: string, options: { beforeCall?: () => Promise<unknown> } = {}) {
  const sample = await sampleFor(harness, operation.name, accountId);
  const connection = await connectInMemory(harness, key === undefined ? {} : { key });
  try {
    await options.beforeCall?.();
    const result = await connection.client.callTool({ name: operation.name, arguments: toolArguments(operation, sample) });
    return { result, text: resultText(result), sample };
  } finally {
    await connection.close();
  }
}

async function listedTools(key: string | undefined): Promise<string[]> {
  const connection = await connectInMemory(harness, key === undefined ? {} : { key });
  try {
    return (await connection.client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await connection.close();
  }
}

/** A raw tools/call over Streamable HTTP, to see the HTTP status and body the endpoint answers. */
async function httpToolCall(operation: Operation, key: string, args: Record<string, unknown>) {
  const response = await fetch(mcpUrl(harness), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: operation.name, arguments: args } }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string; data: { code: string } } },
  };
}

describe.each(keyed.map((operation) => [operation.name, operation] as const))('%s', (name, operation) => {
  it('is not listed without a key, and a call is refused with MISSING_API_KEY', async () => {
    const { accountId } = await harness.createAccount();
    expect(await listedTools(undefined)).not.toContain(name);
    const { result, text } = await call(operation, undefined, accountId);
    expect(result.isError, describeResult(result)).toBe(true);
    expect(text).toMatch(/^MISSING_API_KEY: /);
  });

  it('refuses an unknown or malformed key with INVALID_API_KEY (HTTP: 401 with a JSON-RPC error)', async () => {
    const { accountId } = await harness.createAccount();
    for (const key of UNUSABLE_KEYS) {
      const { result, text, sample } = await call(operation, key, accountId);
      expect(result.isError, describeResult(result)).toBe(true);
      expect(text).toMatch(/^INVALID_API_KEY: /);
      const http = await httpToolCall(operation, key, toolArguments(operation, sample));
      expect(http.status).toBe(401);
      expect(http.headers.get('www-authenticate')).toMatch(/^Bearer realm="porch", resource_metadata="[^"]+", error="invalid_token"/);
      expect(http.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000, data: { code: 'INVALID_API_KEY' } } });
      expect(http.body.error.message).toMatch(/^INVALID_API_KEY: /);
    }
  });

  it('refuses a key revoked during a session on the next call', async () => {
    const { accountId, keyId, key } = await harness.expertWithKey();
    const { result, text, sample } = await call(operation, key, accountId, { beforeCall: () => harness.core.accounts.revokeKey(keyId) });
    expect(result.isError, describeResult(result)).toBe(true);
    expect(text).toMatch(/^INVALID_API_KEY: /);
    expect((await httpToolCall(operation, key, toolArguments(operation, sample))).status).toBe(401);
  });

  it('refuses a Builder key with API_EXPERT_ONLY', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'builder');
    const { result, text, sample } = await call(operation, key, accountId);
    expect(result.isError, describeResult(result)).toBe(true);
    expect(text).toMatch(/^API_EXPERT_ONLY: /);
    const http = await httpToolCall(operation, key, toolArguments(operation, sample));
    expect(http.status).toBe(401);
    expect(http.headers.get('www-authenticate')).toBe(
      `Bearer realm="porch", resource_metadata="${harness.config.publicUrl}/.well-known/oauth-protected-resource/api/public/mcp", error="invalid_token", error_description="The API is available on the Expert plan only; this account is not on Expert."`,
    );
    expect(http.body.error.data.code).toBe('API_EXPERT_ONLY');
  });

  it('refuses keys for good once the grace period is over', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'free');
    harness.clock.advance(KEY_GRACE_PERIOD_MS);
    expect((await call(operation, key, accountId)).text).toMatch(/^INVALID_API_KEY: /);
    await harness.core.accounts.setPlan(accountId, 'expert');
    expect((await call(operation, key, accountId)).text).toMatch(/^INVALID_API_KEY: /);
  });

  // An operation every scope grants (get_account) cannot be refused for a missing scope: no key lacks every scope.
  it.skipIf(grantedToAnyKey(operation))('is not listed for a key without its scope, and a call names the scopes that would grant it', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { scopes: ALL_SCOPES.filter((scope) => !operation.scopes.includes(scope)) });
    expect(await listedTools(key)).not.toContain(name);
    const { result, text } = await call(operation, key, accountId);
    expect(result.isError, describeResult(result)).toBe(true);
    expect(text).toMatch(/^INSUFFICIENT_PERMISSIONS: /);
    for (const scope of operation.scopes) expect(text).toContain(scope);
  });

  it("answers another account's resource exactly like a missing one", async () => {
    const owner = await harness.createAccount();
    const sample = await sampleFor(harness, name, owner.accountId);
    if (!sample.ownedId) return;
    const intruder = await harness.expertWithKey({ scopes: [...operation.scopes] });
    const connection = await connectInMemory(harness, { key: intruder.key });
    try {
      const foreign = await connection.client.callTool({ name, arguments: toolArguments(operation, sample) });
      const missingSample = { ...sample, path: sample.path.replace(sample.ownedId, '0190a4b0-0000-7000-8000-000000000000') };
      const missing = await connection.client.callTool({ name, arguments: toolArguments(operation, missingSample) });
      expect(foreign.isError, describeResult(foreign)).toBe(true);
      expect(resultText(foreign)).toMatch(/^RESOURCE_NOT_FOUND: /);
      expect(resultText(foreign).replace(/[0-9a-f-]{36}/g, 'ID')).toBe(resultText(missing).replace(/[0-9a-f-]{36}/g, 'ID'));
    } finally {
      await connection.close();
    }
  });

  it('is listed for a partner key holding every scope exactly when it does not refuse partner keys, and a call agrees', async () => {
    const { accountId, organisationId } = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId, scopes: [...ALL_SCOPES] });
    const refused = operation.refuses?.includes('partner_key') === true;
    expect((await listedTools(partner.plaintext)).includes(name)).toBe(!refused);
    const { result, text } = await call(operation, partner.plaintext, accountId);
    if (refused) expect(text, describeResult(result)).toMatch(/^ACCESS_DENIED: Partner keys cannot/);
    else expect(text, describeResult(result)).not.toMatch(/Partner keys cannot/);
  });

  it('is listed for a key with its scope, and succeeds, counted against the rate limit', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { scopes: [...operation.scopes] });
    expect(await listedTools(key)).toContain(name);
    const { result } = await call(operation, key, accountId);
    expect(result.isError, describeResult(result)).toBeFalsy();
    expect(result._meta).toMatchObject({ 'porch/rate-limit': { limit: 120, remaining: 119 } });
  });
});
