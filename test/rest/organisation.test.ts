/**
 * The organisation operations over REST (each answer checked against the OpenAPI document by the
 * harness): the owner with manage:organisation reads and changes the organisation; a member who
 * is not the owner, and a partner key, are refused whatever their scopes; a BYOK key is never
 * answered back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { getOrganisation } from '../../src/operations/get-organisation.js';
import type { listByokKeys } from '../../src/operations/list-byok-keys.js';
import type { listSanitiserRules } from '../../src/operations/list-sanitiser-rules.js';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const BYOK_KEY = 'sk-rest-byok-secret-0a1b2c3d4e5f6789';

let harness: ProviderHarness;
beforeAll(async () => {
  harness = await createProviderHarness();
});
afterAll(async () => {
  await harness.close();
});

async function owner() {
  const account = await harness.createAccount();
  const { key } = await harness.createKey(account.accountId, { scopes: ['manage:organisation', 'api:sanitiser'] });
  return { ...account, key };
}

describe('the owner with manage:organisation', () => {
  it('reads the organisation with its policies and members, the owner marked as admin', async () => {
    const { key, accountId, organisationId } = await owner();
    const joined = await harness.core.accounts.createAccount({ email: `joined-${Date.now()}@example.com`, plan: 'free', organisationId });
    const response = await harness.api<OperationOutput<typeof getOrganisation>>('GET', '/organisation', { key });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({
      id: organisationId,
      owner_account_id: accountId,
      policies: { eu_only_models: false, strict_byok: false, guardrails: { inputs: 'off', outputs: 'off', min_severity: 'warn' } },
    });
    expect(response.body.data.members.map((member) => [member.id, member.plan, member.admin])).toEqual([
      [accountId, 'expert', true],
      [joined.id, 'free', false],
    ]);
  });

  it('changes only the policies sent, and refuses an empty change', async () => {
    const { key, organisationId } = await owner();
    const changed = await harness.api<OperationOutput<typeof getOrganisation>>('PATCH', '/organisation/policies', {
      key,
      body: { strict_byok: true, guardrails: { outputs: 'block' } },
    });
    expect(changed.status, describeResponse(changed)).toBe(200);
    expect(changed.body.data.policies).toEqual({
      eu_only_models: false,
      strict_byok: true,
      guardrails: { inputs: 'off', outputs: 'block', min_severity: 'warn' },
    });
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ strictByok: true, guardrailOutputs: 'block' });
    const empty = await harness.api('PATCH', '/organisation/policies', { key, body: {} });
    expect(empty.status, describeResponse(empty)).toBe(400);
    expect(empty.body.error.message).toContain('at least one of');
    const bad = await harness.api('PATCH', '/organisation/policies', { key, body: { guardrails: { inputs: 'shout' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('guardrails.inputs');
  });

  it('adds a custom rule and an override that the next scan applies, lists them and removes them', async () => {
    const { key } = await owner();
    const rule = { rule_id: 'custom.invoices', label: 'Invoice number', severity: 'block', kind: 'regex', pattern: 'INV-[0-9]{6}' };
    const added = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: rule });
    expect(added.status, describeResponse(added)).toBe(200);
    expect(added.body.data).toMatchObject({ rule_id: 'custom.invoices', kind: 'custom', definition: { ...rule, enabled: true } });
    const override = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: { rule_id: 'pii.email', enabled: false } });
    expect(override.status, describeResponse(override)).toBe(200);

    const scan = await harness.api<{ findings: Array<{ rule_id: string }> }>('POST', '/sanitiser/scan', {
      key,
      body: { text: 'INV-123456 to ada@example.com' },
    });
    expect(scan.body.data.findings.map((finding) => finding.rule_id)).toEqual(['custom.invoices']);

    const listed = await harness.api<OperationOutput<typeof listSanitiserRules>>('GET', '/organisation/sanitiser-rules', { key });
    expect(listed.body.data.items.map((item) => [item.rule_id, item.kind])).toEqual([
      ['custom.invoices', 'custom'],
      ['pii.email', 'override'],
    ]);
    expect(listed.body.data.built_in_rules.find((builtIn) => builtIn.rule_id === 'pii.email')).toMatchObject({ enabled: false, overridden: true });

    for (const id of ['custom.invoices', 'pii.email']) {
      const removed = await harness.api('DELETE', `/organisation/sanitiser-rules/${id}`, { key });
      expect(removed.status, describeResponse(removed)).toBe(204);
    }
    const gone = await harness.api('DELETE', '/organisation/sanitiser-rules/custom.invoices', { key });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('refuses a rule that could stall a scan or overrides an unknown rule, naming why', async () => {
    const { key } = await owner();
    const lookaround = await harness.api('POST', '/organisation/sanitiser-rules', {
      key,
      body: { rule_id: 'custom.look', label: 'Look', severity: 'warn', kind: 'regex', pattern: '(a+)+(?=b)' },
    });
    expect(lookaround.status).toBe(400);
    expect(lookaround.body.error.message).toContain('lookahead');
    const unknown = await harness.api('POST', '/organisation/sanitiser-rules', { key, body: { rule_id: 'pii.nothing', enabled: false } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('not a built-in rule');
  });

  it('stores a BYOK key it never answers back, lists only its last characters, and revokes it', async () => {
    const { key, organisationId } = await owner();
    const stored = await harness.api<{ id: string; key_hint: string }>('POST', '/organisation/byok-keys', { key, body: { provider: 'fake', key: BYOK_KEY } });
    expect(stored.status, describeResponse(stored)).toBe(201);
    expect(stored.body.data.key_hint).toBe('...6789');
    const listed = await harness.api<OperationOutput<typeof listByokKeys>>('GET', '/organisation/byok-keys', { key });
    expect(listed.body.data.providers).toEqual(['fake']);
    expect(listed.body.data.items.map((item) => [item.provider, item.status])).toEqual([['fake', 'active']]);
    const unknown = await harness.api('POST', '/organisation/byok-keys', { key, body: { provider: 'elsewhere', key: BYOK_KEY } });
    expect(unknown.status).toBe(400);
    const tooLong = await harness.api('POST', '/organisation/byok-keys', { key, body: { provider: 'fake', key: `${BYOK_KEY}${'x'.repeat(1_000)}` } });
    expect(tooLong.status).toBe(400);
    // Regression: accepted, then every call failed with a retryable 500 (fetch refuses such a header).
    const unsendable = [];
    for (const bad of [`${BYOK_KEY}-ключ`, `${BYOK_KEY}\nsecond-line`, `Bearer ${BYOK_KEY}`]) {
      const response = await harness.api('POST', '/organisation/byok-keys', { key, body: { provider: 'fake', key: bad } });
      expect(response.status, describeResponse(response)).toBe(400);
      expect(response.body.error.message).toContain('characters an HTTP header cannot carry');
      unsendable.push(response);
    }
    for (const response of [stored, listed, unknown, tooLong, ...unsendable]) expect(response.text).not.toContain(BYOK_KEY.slice(3, -4));
    const [record] = await harness.store.byokKeys.list({ organisationId });
    expect(record?.encryptedKey).not.toContain(BYOK_KEY.slice(3));

    const revoked = await harness.api<{ status: string }>('POST', `/organisation/byok-keys/${stored.body.data.id}/revoke`, { key });
    expect(revoked.status, describeResponse(revoked)).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
  });

  it("answers another organisation's BYOK key exactly like a missing one", async () => {
    const { key } = await owner();
    const other = await harness.createAccount();
    const theirs = await harness.core.byok.set({ organisationId: other.organisationId }, 'fake', BYOK_KEY);
    const response = await harness.api('POST', `/organisation/byok-keys/${theirs.id}/revoke`, { key });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe(`No BYOK key with id ${theirs.id}.`);
    expect((await harness.store.byokKeys.list({ organisationId: other.organisationId }))[0]?.revokedAt).toBeNull();
  });

  it("cannot reach another organisation's rule of the same id: rule ids are each organisation's own", async () => {
    const { key } = await owner();
    const other = await harness.createAccount();
    await harness.core.sanitiser.addCustomRule(other.organisationId, {
      rule_id: 'custom.theirs',
      label: 'Theirs',
      severity: 'warn',
      kind: 'keywords',
      keywords: ['x'],
    });
    const response = await harness.api('DELETE', '/organisation/sanitiser-rules/custom.theirs', { key });
    expect(response.status, describeResponse(response)).toBe(404);
    expect((await harness.core.sanitiser.listRules(other.organisationId)).map((rule) => rule.rule_id)).toEqual(['custom.theirs']);
  });
});

describe('everyone else', () => {
  it('a member who is not the owner is refused 403 ACCESS_DENIED, even with manage:organisation', async () => {
    const { organisationId } = await owner();
    const member = await harness.core.accounts.createAccount({ email: `member-${Date.now()}@example.com`, plan: 'expert', organisationId });
    const { key } = await harness.createKey(member.id, { scopes: ['manage:organisation'] });
    const requests = [
      ['GET', '/organisation', undefined],
      ['PATCH', '/organisation/policies', { eu_only_models: true }],
      ['GET', '/organisation/sanitiser-rules', undefined],
      ['POST', '/organisation/sanitiser-rules', { rule_id: 'pii.email', enabled: false }],
      ['DELETE', '/organisation/sanitiser-rules/pii.email', undefined],
      ['GET', '/organisation/byok-keys', undefined],
      ['POST', '/organisation/byok-keys', { provider: 'fake', key: BYOK_KEY }],
    ] as const;
    for (const [method, path, body] of requests) {
      const response = await harness.api(method, path, { key, ...(body === undefined ? {} : { body }) });
      expect(response.status, `${method} ${path}: ${describeResponse(response)}`).toBe(403);
      expect(response.body.error.code).toBe('ACCESS_DENIED');
      expect(response.body.error.message).toContain("Only the organisation's admin");
      expect(response.text).not.toContain(BYOK_KEY);
    }
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ euOnlyModels: false });
    expect(await harness.store.byokKeys.list({ organisationId })).toEqual([]);
  });

  it('a partner key is refused even when it acts for the owner with manage:organisation', async () => {
    const { organisationId } = await owner();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId, scopes: ['manage:organisation'] });
    const response = await harness.api('GET', '/organisation', { key: partner.plaintext });
    expect(response.status, describeResponse(response)).toBe(403);
    expect(response.body.error.code).toBe('ACCESS_DENIED');
    expect(response.body.error.message).toContain('Partner keys cannot manage the organisation');
  });

  it("a partner key cannot list, create, rotate or revoke the account's keys, nor its connected apps", async () => {
    // Regression: POST /keys minted a key of the owner with manage:organisation, which then
    // managed the organisation and outlived the partner key's revocation.
    const { organisationId, accountId } = await owner();
    const partner = await harness.core.accounts.createPartnerKey({ organisationId, scopes: ['manage:keys', 'manage:organisation'] });
    const keysBefore = (await harness.core.accounts.listKeys(accountId)).map((key) => key.id);
    const ownKeyId = keysBefore[0] ?? '';
    const calls: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', '/keys'],
      ['POST', '/keys', { name: 'escalated', scopes: ['manage:organisation'] }],
      ['POST', `/keys/${ownKeyId}/rotate`, {}],
      ['POST', `/keys/${ownKeyId}/revoke`, {}],
      ['GET', '/connected-apps'],
    ];
    for (const [method, path, body] of calls) {
      const response = await harness.api(method, path, { key: partner.plaintext, ...(body === undefined ? {} : { body }) });
      expect(response.status, `${method} ${path}: ${describeResponse(response)}`).toBe(403);
      expect(response.body.error.code).toBe('ACCESS_DENIED');
      expect(response.body.error.message).toContain('Partner keys cannot');
    }
    expect((await harness.core.accounts.listKeys(accountId)).map((key) => key.id)).toEqual(keysBefore);
  });

  it('a new key never holds manage:organisation unless asked for', async () => {
    const { accountId } = await harness.createAccount();
    const { key } = await harness.createKey(accountId);
    const response = await harness.api('GET', '/organisation', { key });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(response.body.error.message).toContain('manage:organisation');
  });
});
