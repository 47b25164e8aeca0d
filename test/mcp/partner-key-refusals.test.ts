/**
 * A partner key refused over MCP for the account it names in X-Porch-Account (outside its
 * organisation, not on Expert, a blank or repeated header) is a good key all the same: the request
 * counts against the key's windows and the refusal reports them, a 429 once they are used up, as
 * over REST (test/rest/partner-key-refusals.test.ts). Regression: the MCP endpoint never counted
 * such refusals, so a partner could send them without limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { mcpUrl } from '../helpers/mcp-client.js';
import { sendRaw } from '../helpers/raw-http.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function listCardsCall(id: number) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } };
}

async function post(body: unknown, headers: Record<string, string>) {
  const response = await fetch(mcpUrl(harness), { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as Record<string, unknown> };
}

describe('a partner key refused for the account it names, over MCP HTTP', () => {
  it('counts each refusal against the key and reports its windows, then answers 429 once the minute is used up', async () => {
    const owner = await harness.createAccount();
    const stranger = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, requestsPerMinute: 2 });

    const foreign = await post(listCardsCall(1), { 'x-api-key': partner.plaintext, 'x-porch-account': stranger.accountId });
    expect(foreign.status, foreign.text).toBe(403);
    expect(foreign.json).toMatchObject({ id: 1, error: { code: -32000, data: { code: 'ACCESS_DENIED' } } });
    expect(foreign.headers.get('x-ratelimit-limit')).toBe('2');
    expect(foreign.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(foreign.headers.get('x-ratelimit-daily-remaining')).not.toBeNull();
    // The stranger's balance is not the partner's to read.
    expect(foreign.headers.get('x-credits-remaining')).toBeNull();

    const blank = await post(listCardsCall(2), { 'x-api-key': partner.plaintext, 'x-porch-account': ' ' });
    expect(blank.status, blank.text).toBe(400);
    expect(blank.json).toMatchObject({ id: 2, error: { data: { code: 'VALIDATION_ERROR' } } });
    expect(blank.headers.get('x-ratelimit-remaining')).toBe('0');

    const limited = await post(listCardsCall(3), { 'x-api-key': partner.plaintext, 'x-porch-account': stranger.accountId });
    expect(limited.status, limited.text).toBe(429);
    expect(limited.json).toMatchObject({ id: 3, error: { code: -32000, data: { code: 'RATE_LIMITED', retry_after: expect.any(Number) } } });
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

    // The same windows hold the key's requests for the owner, over either door.
    const asOwner = await harness.api('GET', '/context-cards', { key: partner.plaintext });
    expect(asOwner.status, describeResponse(asOwner)).toBe(429);
  });

  it('counts a request refused for a repeated X-Porch-Account or an account not on Expert, whatever its method', async () => {
    const owner = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, requestsPerMinute: 5 });

    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
    const repeated = await sendRaw(
      harness.url,
      [
        `POST ${mcpUrl(harness).pathname} HTTP/1.1`,
        'host: 127.0.0.1',
        'content-type: application/json',
        'accept: application/json, text/event-stream',
        `x-api-key: ${partner.plaintext}`,
        `x-porch-account: ${owner.accountId}`,
        `x-porch-account: ${owner.accountId}`,
        `content-length: ${Buffer.byteLength(body)}`,
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    expect(repeated.status, repeated.raw).toBe(400);
    expect(JSON.parse(repeated.body)).toMatchObject({ id: 9, error: { data: { code: 'VALIDATION_ERROR' } } });
    expect(repeated.headers.get('x-ratelimit-limit')).toBe('5');
    expect(repeated.headers.get('x-ratelimit-remaining')).toBe('4');

    // initialize is never counted for a key that works; refused, it is counted like any request.
    await harness.core.accounts.setPlan(owner.accountId, 'builder');
    const initialize = {
      jsonrpc: '2.0',
      id: 10,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
    };
    const notExpert = await post(initialize, { 'x-api-key': partner.plaintext });
    expect(notExpert.status, notExpert.text).toBe(401);
    expect(notExpert.json).toMatchObject({ id: 10, error: { data: { code: 'API_EXPERT_ONLY' } } });
    expect(notExpert.headers.get('x-ratelimit-remaining')).toBe('3');
  });
});
