/**
 * The shared security suite, run over every keyed operation: no key, bad key, revoked key,
 * non-Expert account, grace period over, missing scope, another account's id.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KEY_GRACE_PERIOD_MS } from '../../src/core/access/authenticator.js';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn, grantedToAnyKey, type AnyKeyedOperation, type Operation } from '../../src/operations/operation.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { OPERATION_SAMPLES, SAMPLE_BYOK_PROVIDER } from '../helpers/operation-samples.js';

const keyed = exposedOn(operations as readonly Operation[], 'rest').filter((operation): operation is AnyKeyedOperation => operation.access === 'keyed');

let harness: Harness;
let configFolder: string;
beforeAll(async () => {
  // A provider that put_byok_key's sample may store a key for; nothing calls it (echo stays the default model).
  configFolder = await mkdtemp(join(tmpdir(), 'porch-security-'));
  const configPath = join(configFolder, 'porch.config.yaml');
  await writeFile(
    configPath,
    stringify({
      ai: {
        default_model: 'echo/echo',
        providers: [{ id: SAMPLE_BYOK_PROVIDER, base_url: 'http://127.0.0.1:9/v1', api_key_env: 'SAMPLE_PROVIDER_KEY', models: [{ name: 'never-called' }] }],
      },
    }),
  );
  harness = await createHarness({ env: { PORCH_CONFIG: configPath, SAMPLE_PROVIDER_KEY: 'sk-sample-gateway-key' } });
});
afterAll(async () => {
  await harness.close();
  await rm(configFolder, { recursive: true, force: true });
});

/** The operation's sample request, built against `accountId`; a missing sample fails the test that needs it. */
function sampleOf(operation: Operation, accountId: string) {
  const build = OPERATION_SAMPLES[operation.name];
  if (!build) throw new Error(`No sample request for ${operation.name} in operation-samples.ts`);
  return build(harness, accountId);
}

async function call(operation: Operation, key: string | undefined, accountId: string) {
  const sample = await sampleOf(operation, accountId);
  return harness.api(operation.method, sample.path, { key, ...(sample.body === undefined ? {} : { body: sample.body }) });
}

it('has a sample request for every operation', () => {
  expect(operations.filter((operation) => !OPERATION_SAMPLES[operation.name]).map((operation) => operation.name)).toEqual([]);
});

describe.each(keyed.map((operation) => [operation.name, operation] as const))('%s', (_name, operation) => {
  it('answers 401 MISSING_API_KEY without a key', async () => {
    const { accountId } = await harness.createAccount();
    const response = await call(operation, undefined, accountId);
    expect(response.status, describeResponse(response)).toBe(401);
    expect(response.body.error.code).toBe('MISSING_API_KEY');
  });

  it('answers 401 INVALID_API_KEY for an unknown or malformed key', async () => {
    const { accountId } = await harness.createAccount();
    for (const key of ['mdi_thisKeyDoesNotExist0000000000000000000000', 'not-a-key', 'mpk_unknownPartnerKey']) {
      const response = await call(operation, key, accountId);
      expect(response.status, describeResponse(response)).toBe(401);
      expect(response.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('rejects a revoked key on the next request', async () => {
    const { accountId, keyId, key } = await harness.expertWithKey();
    await harness.core.accounts.revokeKey(keyId);
    const response = await call(operation, key, accountId);
    expect(response.status, describeResponse(response)).toBe(401);
    expect(response.body.error.code).toBe('INVALID_API_KEY');
  });

  it('answers 401 API_EXPERT_ONLY for a Builder key and during the grace period', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'builder');
    const response = await call(operation, key, accountId);
    expect(response.status, describeResponse(response)).toBe(401);
    expect(response.body.error.code).toBe('API_EXPERT_ONLY');
  });

  it('revokes keys for good once the grace period is over', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'free');
    harness.clock.advance(KEY_GRACE_PERIOD_MS);
    const response = await call(operation, key, accountId);
    expect(response.status, describeResponse(response)).toBe(401);
    expect(response.body.error.code).toBe('INVALID_API_KEY');
    await harness.core.accounts.setPlan(accountId, 'expert');
    expect((await call(operation, key, accountId)).body.error.code).toBe('INVALID_API_KEY');
  });

  // An operation every scope grants (get_account) cannot be refused for a missing scope: no key lacks every scope.
  it.skipIf(grantedToAnyKey(operation))('answers 403 INSUFFICIENT_PERMISSIONS naming the scopes that would grant it', async () => {
    const { accountId } = await harness.createAccount();
    const other = ALL_SCOPES.filter((scope) => !operation.scopes.includes(scope));
    const { key } = await harness.createKey(accountId, { scopes: other });
    const response = await call(operation, key, accountId);
    expect(response.status, describeResponse(response)).toBe(403);
    expect(response.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    for (const scope of operation.scopes) expect(response.body.error.message).toContain(scope);
  });

  it("answers 404 for another account's resource, exactly like a missing one", async () => {
    const owner = await harness.createAccount();
    const sample = await sampleOf(operation, owner.accountId);
    if (!sample.ownedId) return;
    const intruder = await harness.expertWithKey({ scopes: [...operation.scopes] });
    const response = await harness.api(operation.method, sample.path, { key: intruder.key, ...(sample.body === undefined ? {} : { body: sample.body }) });
    expect(response.status, describeResponse(response)).toBe(404);
    expect(response.body.error.code).toBe('RESOURCE_NOT_FOUND');
    const missing = await harness.api(operation.method, sample.path.replace(sample.ownedId, '0190a4b0-0000-7000-8000-000000000000'), {
      key: intruder.key,
      ...(sample.body === undefined ? {} : { body: sample.body }),
    });
    expect(missing.body.error.message.replace(/[0-9a-f-]{36}/g, 'ID')).toBe(response.body.error.message.replace(/[0-9a-f-]{36}/g, 'ID'));
  });

  it('succeeds with a key that has the scope, and sends the version, rate-limit and credit headers', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId, { scopes: [...operation.scopes] });
    const response = await call(operation, key, accountId);
    expect(response.status, describeResponse(response)).toBe(operation.successStatus);
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('119');
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(harness.clock.now() / 1000);
    const credits = Number(response.headers.get('x-credits-remaining'));
    if (operation.effect === 'execute') expect(credits).toBeLessThanOrEqual(1000);
    else expect(credits).toBe(1000);
  });
});

describe('unusable keys are indistinguishable', () => {
  it('answers unknown, malformed and revoked keys with the same body apart from the request id', async () => {
    const { keyId, key } = await harness.expertWithKey();
    await harness.core.accounts.revokeKey(keyId);
    const bodies = [];
    for (const candidate of [key, 'mdi_unknownunknownunknownunknownunknown000000', 'garbage', 'mpk_notAPartnerKey']) {
      const response = await harness.api('GET', '/context-cards', { key: candidate });
      bodies.push(response.text.replace(/"request_id":"[^"]+"/, ''));
    }
    expect(new Set(bodies).size).toBe(1);
  });
});

describe('partner keys', () => {
  it("act for the organisation's owner by default and for a named member account", async () => {
    const owner = await harness.createAccount();
    const member = await harness.core.accounts.createAccount({
      email: `member-${Date.now()}@example.com`,
      plan: 'expert',
      credits: 5,
      organisationId: owner.organisationId,
    });
    await harness.core.contextCards.create(member.id, { title: 'Member card', content: 'x' });
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['api:context-cards'] });

    const asOwner = await harness.api<{ count: number }>('GET', '/context-cards', { key: partner.plaintext });
    expect(asOwner.status, describeResponse(asOwner)).toBe(200);
    expect(asOwner.body.data.count).toBe(0);

    const asMember = await harness.api<{ items: Array<{ title: string }> }>('GET', '/context-cards', {
      key: partner.plaintext,
      headers: { 'x-porch-account': member.id },
    });
    expect(asMember.body.data.items.map((card) => card.title)).toEqual(['Member card']);
    expect(asMember.headers.get('x-credits-remaining')).toBe('5');
  });

  it('are limited to their product surface and refused for accounts outside their organisation', async () => {
    const owner = await harness.createAccount();
    const stranger = await harness.createAccount();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['api:sanitiser'] });
    const outsideSurface = await harness.api('GET', '/context-cards', { key: partner.plaintext });
    expect(outsideSurface.status).toBe(403);
    expect(outsideSurface.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');

    const wide = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId });
    const foreign = await harness.api('GET', '/context-cards', { key: wide.plaintext, headers: { 'x-porch-account': stranger.accountId } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('ACCESS_DENIED');

    await harness.core.accounts.revokePartnerKey(wide.key.id);
    const revoked = await harness.api('GET', '/context-cards', { key: wide.plaintext });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('INVALID_API_KEY');
  });

  it("acting for an account past its downgrade's grace period are told the plan, not that they are invalid (regression: INVALID_API_KEY)", async () => {
    const owner = await harness.createAccount();
    const member = await harness.core.accounts.createAccount({
      email: `lapsed-${Date.now()}@example.com`,
      plan: 'expert',
      organisationId: owner.organisationId,
    });
    const partner = await harness.core.accounts.createPartnerKey({ organisationId: owner.organisationId, scopes: ['api:context-cards'] });
    await harness.core.accounts.setPlan(member.id, 'builder');
    harness.clock.advance(KEY_GRACE_PERIOD_MS);
    const lapsed = await harness.api('GET', '/context-cards', { key: partner.plaintext, headers: { 'x-porch-account': member.id } });
    expect(lapsed.status, describeResponse(lapsed)).toBe(401);
    expect(lapsed.body.error.code).toBe('API_EXPERT_ONLY');
    // The partner key itself still works for the organisation's other accounts.
    expect((await harness.api('GET', '/context-cards', { key: partner.plaintext })).status).toBe(200);
  });
});

describe('plans', () => {
  it('restores suspended keys unchanged when the account returns to Expert within the grace period', async () => {
    const { accountId, key } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'builder');
    harness.clock.advance(KEY_GRACE_PERIOD_MS - 60_000);
    await harness.core.accounts.setPlan(accountId, 'expert');
    const response = await harness.api('GET', '/context-cards', { key });
    expect(response.status, describeResponse(response)).toBe(200);
  });

  it('lists keys past the grace period as revoked, before any request has revoked them (regression: listed as active)', async () => {
    const { accountId, keyId } = await harness.expertWithKey();
    await harness.core.accounts.setPlan(accountId, 'builder');
    expect((await harness.core.accounts.listKeys(accountId)).find((key) => key.id === keyId)?.status, 'suspended keys are not revoked').toBe('active');
    harness.clock.advance(KEY_GRACE_PERIOD_MS);
    expect((await harness.core.accounts.listKeys(accountId)).find((key) => key.id === keyId)?.status).toBe('revoked');
    expect((await harness.core.accounts.showAccount(accountId)).keys.map((key) => key.status)).toEqual(['revoked']);
  });

  it('refuses to create keys for Free and Builder accounts, and a sixth active key', async () => {
    const builder = await harness.createAccount({ plan: 'builder' });
    await expect(harness.core.accounts.createKey({ accountId: builder.accountId })).rejects.toThrow(/Only Expert accounts/);
    const expert = await harness.createAccount();
    for (let n = 0; n < 5; n += 1) await harness.createKey(expert.accountId);
    await expect(harness.createKey(expert.accountId)).rejects.toThrow(/5 active keys/);
  });

  it('rejects an unknown scope when creating a key', async () => {
    const { accountId } = await harness.createAccount();
    await expect(harness.createKey(accountId, { scopes: ['read:workflow', 'write:everything'] })).rejects.toThrow(/Unknown scope: write:everything/);
  });
});
