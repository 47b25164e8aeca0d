/**
 * A partner key refused for what it asked rather than for itself: the account it names in
 * X-Porch-Account (empty, repeated, outside its organisation), and the operations only the
 * account holder may call whatever the key's scopes. The key is good, so its answers count
 * against its limits and report them like any other authenticated answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { sendRaw } from '../helpers/raw-http.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

describe('X-Porch-Account sent but unusable', () => {
  it("refuses an empty or blank X-Porch-Account with 400 instead of acting for the organisation's owner", async () => {
    const owner = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId });
    for (const value of ['', '   ']) {
      const response = await harness.api('GET', '/account', { key: partner.plaintext, headers: { 'x-porch-account': value } });
      expect(response.status, describeResponse(response)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toContain('X-Porch-Account is empty');
    }
    // Without the header the partner key still acts for the owner.
    const asOwner = await harness.api<{ account: { id: string } }>('GET', '/account', { key: partner.plaintext });
    expect(asOwner.body.data.account.id, describeResponse(asOwner)).toBe(owner.accountId);
  });

  it('refuses X-Porch-Account sent twice saying so (regression: "must be an account id (a uuid)")', async () => {
    const owner = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId });
    const request = [
      'GET /api/public/v1/account HTTP/1.1',
      'host: 127.0.0.1',
      `x-api-key: ${partner.plaintext}`,
      `x-porch-account: ${owner.accountId}`,
      `x-porch-account: ${owner.accountId}`,
      'connection: close',
      '',
      '',
    ].join('\r\n');
    const response = await sendRaw(harness.url, request);
    expect(response.status, response.raw).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: 'The request has 2 X-Porch-Account headers; send one account id (a uuid), once.' },
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
  });
});

describe('an account outside the organisation', () => {
  it('counts the 403 ACCESS_DENIED against the partner key and reports its windows, then answers 429 (regression: never counted, no headers)', async () => {
    const owner = await harness.createAccount();
    const stranger = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, requestsPerMinute: 2 });
    const foreign = { key: partner.plaintext, headers: { 'x-porch-account': stranger.accountId } };

    const first = await harness.api('GET', '/context-cards', foreign);
    expect(first.status, describeResponse(first)).toBe(403);
    expect(first.body.error.code).toBe('ACCESS_DENIED');
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(first.headers.get('x-ratelimit-daily-remaining')).not.toBeNull();
    // The stranger's balance is not the partner's to read.
    expect(first.headers.get('x-credits-remaining')).toBeNull();

    const second = await harness.api('GET', '/context-cards', foreign);
    expect(second.status, describeResponse(second)).toBe(403);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');

    const third = await harness.api('GET', '/context-cards', foreign);
    expect(third.status, describeResponse(third)).toBe(429);
    expect(third.body.error.code).toBe('RATE_LIMITED');
    expect(third.headers.get('retry-after')).not.toBeNull();
    // The same window holds the key's requests for the owner.
    expect((await harness.api('GET', '/context-cards', { key: partner.plaintext })).status).toBe(429);
  });
});

describe('operations only the account holder may call', () => {
  it('answer a partner key 403 ACCESS_DENIED whatever its scopes (regression: INSUFFICIENT_PERMISSIONS without manage:* scopes)', async () => {
    const owner = await harness.createAccount();
    const narrow = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['api:sanitiser'] });
    const wide = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['manage:keys', 'manage:organisation'] });
    for (const path of ['/keys', '/connected-apps', '/organisation']) {
      for (const partner of [narrow, wide]) {
        const response = await harness.api('GET', path, { key: partner.plaintext });
        expect(response.status, `${path}: ${describeResponse(response)}`).toBe(403);
        expect(response.body.error.code, path).toBe('ACCESS_DENIED');
        expect(response.body.error.message, path).toMatch(/^Partner keys cannot/);
        expect(response.headers.get('x-ratelimit-limit'), path).not.toBeNull();
      }
    }
  });
});
