/**
 * Settings → Organisation over real HTTP: the admin sets policies, manages sanitiser rules and
 * overrides (with the live test box), stores and revokes BYOK keys and sees the members; a member
 * who is not the admin is refused with the reason; a BYOK key never comes back in any answer and
 * is stored only encrypted; another organisation's ids answer 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';
import { everyStoredRow } from '../helpers/store-inspection.js';

const PAGE = '/console/settings/organisation';
const BYOK_KEY = 'sk-console-byok-secret-5f1e2d3c4b5a6978';

let harness: ProviderHarness;
beforeAll(async () => {
  harness = await createProviderHarness();
});
afterAll(async () => {
  await harness.close();
});

async function admin(): Promise<{ browser: ConsoleBrowser; accountId: string; organisationId: string }> {
  const signedIn = await signedInBrowser(harness);
  const account = await harness.core.accounts.accountByEmail(signedIn.email);
  return { browser: signedIn.browser, accountId: signedIn.accountId, organisationId: account.organisationId };
}

/** A member of `organisationId` (not its owner), signed in to the console. */
async function member(organisationId: string): Promise<{ browser: ConsoleBrowser; accountId: string }> {
  const signedIn = await signedInBrowser({
    url: harness.url,
    core: harness.core,
    createAccount: async ({ email, plan } = {}) => {
      const account = await harness.core.accounts.createAccount({ email: email ?? `member-${Date.now()}@example.com`, plan: plan ?? 'expert', organisationId });
      return { accountId: account.id, organisationId };
    },
  });
  return { browser: signedIn.browser, accountId: signedIn.accountId };
}

describe('the admin', () => {
  it('sees policies, sanitiser rules, BYOK keys and members, the admin marked', async () => {
    const { browser, organisationId } = await admin();
    const joined = await harness.core.accounts.createAccount({ email: `joined-${Date.now()}@example.com`, plan: 'builder', organisationId });
    const page = await browser.get(PAGE);
    expect(page.status, page.html).toBe(200);
    for (const heading of ['Policies', 'Sanitiser rules', 'BYOK keys', 'Members']) expect(page.html).toContain(`>${heading}</h2>`);
    expect(page.html).toContain(joined.email);
    expect(page.html).toMatch(/badge-success">admin</);
    expect(page.html).toContain('<option value="fake"');
  });

  it('manages the organisation on any plan: the console is not the Expert-only API', async () => {
    const { browser } = await signedInBrowser(harness, { plan: 'free' });
    const page = await browser.get(PAGE);
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain('Save policies');
  });

  it('saves the policies, and unticking a box turns it off again', async () => {
    const { browser, organisationId } = await admin();
    await browser.get(PAGE);
    const saved = await browser.post(`${PAGE}/policies`, {
      eu_only_models: ['off', 'on'],
      strict_byok: ['off', 'on'],
      guardrail_inputs: 'block',
      guardrail_outputs: 'redact',
      guardrail_min_severity: 'block',
    });
    expect(saved.status, saved.html).toBe(200);
    expect(saved.html).toContain('Saved the policies');
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({
      euOnlyModels: true,
      strictByok: true,
      guardrailInputs: 'block',
      guardrailOutputs: 'redact',
      guardrailMinSeverity: 'block',
    });
    await browser.post(`${PAGE}/policies`, {
      eu_only_models: 'off',
      strict_byok: ['off', 'on'],
      guardrail_inputs: 'off',
      guardrail_outputs: 'off',
      guardrail_min_severity: 'warn',
    });
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ euOnlyModels: false, strictByok: true, guardrailInputs: 'off' });
  });

  it('saves only the policies the admin changed, keeping one set elsewhere meanwhile (regression: the form sent every field back)', async () => {
    const { browser, organisationId } = await admin();
    const page = await browser.get(PAGE);
    const base = /name="base" value="([^"]*)"/.exec(page.html)?.[1]?.replaceAll('&quot;', '"') ?? '';
    expect(base).not.toBe('');
    const opened = { eu_only_models: 'off', strict_byok: 'off', guardrail_inputs: 'off', guardrail_outputs: 'off', guardrail_min_severity: 'warn' };
    await harness.core.accounts.setOrganisationPolicy(organisationId, { strictByok: true });
    const saved = await browser.post(`${PAGE}/policies`, { ...opened, guardrail_outputs: 'block', base });
    expect(saved.html).toContain('Saved the policies');
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ strictByok: true, guardrailOutputs: 'block' });
    // Both changed the same policy: refused, naming it, and nothing written.
    await harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailInputs: 'report' });
    const clash = await browser.post(`${PAGE}/policies`, { ...opened, guardrail_outputs: 'block', guardrail_inputs: 'redact', base });
    expect(clash.status).toBe(409);
    expect(clash.html).toContain('Since you opened this page, What is sent to a model was changed elsewhere');
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ guardrailInputs: 'report' });
  });

  it('adds a keyword rule that the live test box then marks, edits it and deletes it', async () => {
    const { browser, organisationId } = await admin();
    await browser.get(PAGE);
    const added = await browser.post(`${PAGE}/sanitiser-rules`, {
      rule_id: 'custom.codenames',
      label: 'Project codename',
      severity: 'block',
      kind: 'keywords',
      keywords: 'Bluebird\nFalcon',
      enabled: ['off', 'on'],
    });
    expect(added.status, added.html).toBe(200);
    expect(added.html).toContain('Saved the rule custom.codenames');

    const scanned = await browser.post(`${PAGE}/sanitiser-test`, { text: 'The Bluebird launch' }, { headers: { 'HX-Request': 'true' } });
    expect(scanned.status, scanned.html).toBe(200);
    expect(scanned.html.startsWith('<div>'), 'an htmx answer is the fragment alone').toBe(true);
    expect(scanned.html).toMatch(/<mark class="finding finding-block" title="Project codename \(custom.codenames\)">Bluebird<\/mark>/);
    // A built-in finding reaching past the rule's keyword is marked whole with it (regression: only the keyword).
    const overlapping = await browser.post(`${PAGE}/sanitiser-test`, { text: 'Mail ops@bluebird.example now' }, { headers: { 'HX-Request': 'true' } });
    expect(overlapping.html).toMatch(/<mark class="finding finding-block" title="[^"]*pii\.email[^"]*custom\.codenames[^"]*">ops@bluebird\.example<\/mark>/);

    const editing = await browser.get(`${PAGE}?edit=custom.codenames`);
    expect(editing.html).toContain('Edit custom.codenames');
    expect(textareaText(editing.html, 'id="rule-keywords"')).toBe('Bluebird\nFalcon');
    await browser.post(`${PAGE}/sanitiser-rules`, {
      rule_id: 'custom.codenames',
      label: 'Codename',
      severity: 'warn',
      kind: 'regex',
      pattern: 'BB-[0-9]{3}',
      enabled: 'off',
    });
    const [stored] = await harness.core.sanitiser.listRules(organisationId);
    expect(stored?.definition).toEqual({
      rule_id: 'custom.codenames',
      label: 'Codename',
      severity: 'warn',
      enabled: false,
      kind: 'regex',
      pattern: 'BB-[0-9]{3}',
    });

    const deleted = await browser.post(`${PAGE}/sanitiser-rules/custom.codenames/delete`, {});
    expect(deleted.html).toContain('Removed custom.codenames');
    expect(await harness.core.sanitiser.listRules(organisationId)).toEqual([]);
  });

  it('shows why a rule is refused, keeping what was typed', async () => {
    const { browser } = await admin();
    await browser.get(PAGE);
    const refused = await browser.post(`${PAGE}/sanitiser-rules`, {
      rule_id: 'custom.lookahead',
      label: 'Look',
      severity: 'warn',
      kind: 'regex',
      pattern: 'a(?=b)',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('lookahead and lookbehind');
    expect(textareaText(refused.html, 'id="rule-pattern"')).toBe('a(?=b)');
    // A field left empty is named as required (regression: "expected string, received undefined").
    const unlabelled = await browser.post(`${PAGE}/sanitiser-rules`, {
      rule_id: 'custom.nolabel',
      label: '',
      severity: 'warn',
      kind: 'keywords',
      keywords: 'x',
    });
    expect(unlabelled.html).toContain('label: is required');
  });

  it('turns a built-in rule off with an override, and resets it', async () => {
    const { browser } = await admin();
    await browser.get(PAGE);
    const before = await browser.post(`${PAGE}/sanitiser-test`, { text: 'mail ada@example.com' }, { headers: { 'HX-Request': 'true' } });
    expect(before.html).toContain('>ada@example.com</mark>');
    const saved = await browser.post(`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: 'off', severity: '' });
    expect(saved.html, saved.html).toContain('Saved the override of pii.email');
    const after = await browser.post(`${PAGE}/sanitiser-test`, { text: 'mail ada@example.com' }, { headers: { 'HX-Request': 'true' } });
    expect(after.html).not.toContain('<mark');
    expect(after.html).toContain('nothing found');
    await browser.post(`${PAGE}/sanitiser-rules/pii.email/delete`, {});
    const reset = await browser.post(`${PAGE}/sanitiser-test`, { text: 'mail ada@example.com' });
    expect(reset.html, 'without htmx the whole page answers').toContain('<h1>Organisation</h1>');
    expect(reset.html).toContain('>ada@example.com</mark>');
  });

  it('keeps the setting an override form leaves as it is (regression: setting the state alone put a blocking rule back on warn)', async () => {
    const { browser, organisationId } = await admin();
    await browser.get(PAGE);
    await browser.post(`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: '', severity: 'block' });
    await browser.post(`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: 'on', severity: '' });
    const rules = await harness.core.sanitiser.listRules(organisationId);
    expect(rules.find((rule) => rule.rule_id === 'pii.email')?.definition).toMatchObject({ enabled: true, severity: 'block' });
    await browser.post(`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: 'off', severity: '' });
    const after = await harness.core.sanitiser.listRules(organisationId);
    expect(after.find((rule) => rule.rule_id === 'pii.email')?.definition).toMatchObject({ enabled: false, severity: 'block' });
  });

  it('stores a BYOK key that no answer ever shows again and the database holds only encrypted', async () => {
    const { browser, organisationId, accountId } = await admin();
    await browser.get(PAGE);
    const stored = await browser.post(`${PAGE}/byok-keys`, { provider: 'fake', key: BYOK_KEY });
    expect(stored.status, stored.html).toBe(200);
    expect(stored.html).toContain('Stored the fake key ...6978');
    const listed = await browser.get(PAGE);
    const refused = await browser.post(`${PAGE}/byok-keys`, { provider: 'nowhere', key: BYOK_KEY });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Unknown provider');
    for (const page of [stored, listed, refused]) {
      expect(page.html).not.toContain(BYOK_KEY);
      expect(page.html).not.toContain(BYOK_KEY.slice(3, -4));
    }
    const [record] = await harness.store.byokKeys.list({ organisationId });
    expect(record?.encryptedKey).not.toContain(BYOK_KEY.slice(3));
    expect(everyStoredRow(harness.store)).not.toContain(BYOK_KEY.slice(3, -4));
    // Stored for the organisation, and what its calls to the provider would use.
    const account = await harness.store.accounts.findById(accountId);
    expect(account && (await harness.core.byok.activeKeyFor(account, 'fake'))).toBe(BYOK_KEY);

    const revoked = await browser.post(`${PAGE}/byok-keys/${record?.id}/revoke`, {});
    expect(revoked.html).toContain('Revoked the fake key ...6978');
    expect((await harness.store.byokKeys.list({ organisationId }))[0]?.revokedAt).not.toBeNull();
  });

  it('says what revoking a BYOK key does under strict BYOK: calls are refused, not sent through the shared gateway (regression)', async () => {
    const { browser, organisationId } = await admin();
    await harness.core.byok.set({ organisationId }, 'fake', BYOK_KEY);
    const open = await browser.get(PAGE);
    expect(open.html).toContain('Then calls go through the shared gateway.');
    await harness.core.accounts.setOrganisationPolicy(organisationId, { strictByok: true });
    const strict = await browser.get(PAGE);
    expect(strict.html).toContain('Then calls to that provider are refused (strict BYOK).');
    expect(strict.html).not.toContain('shared gateway');
  });

  it("answers 404 for another organisation's BYOK key and leaves it alone", async () => {
    const other = await harness.createAccount();
    const theirs = await harness.core.byok.set({ organisationId: other.organisationId }, 'fake', BYOK_KEY);
    const { browser } = await admin();
    await browser.get(PAGE);
    const refused = await browser.post(`${PAGE}/byok-keys/${theirs.id}/revoke`, {});
    expect(refused.status).toBe(404);
    expect(refused.html).toContain(`No BYOK key with id ${theirs.id}`);
    expect((await harness.store.byokKeys.list({ organisationId: other.organisationId }))[0]?.revokedAt).toBeNull();
  });
});

describe('every organisation route', () => {
  const ACTIONS = [
    [`${PAGE}/policies`, { eu_only_models: 'on' }],
    [`${PAGE}/sanitiser-rules`, { rule_id: 'custom.x', label: 'X', severity: 'warn', kind: 'keywords', keywords: 'x' }],
    [`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: 'off' }],
    [`${PAGE}/sanitiser-rules/pii.email/delete`, {}],
    [`${PAGE}/sanitiser-test`, { text: 'ada@example.com' }],
    [`${PAGE}/byok-keys`, { provider: 'fake', key: BYOK_KEY }],
    [`${PAGE}/byok-keys/0190a4b0-0000-7000-8000-000000000000/revoke`, {}],
  ] as const;

  it('sends a visitor without a session to sign in, and refuses their posts', async () => {
    const anonymous = consoleBrowser(harness);
    const page = await anonymous.get(PAGE);
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/console/sign-in?next=${encodeURIComponent(PAGE)}`);
    for (const [path, fields] of ACTIONS) expect((await anonymous.post(path, fields, { csrf: 'none' })).status, path).toBe(401);
  });

  it('refuses every change without the CSRF token or with a wrong one, changing nothing', async () => {
    const { browser, organisationId } = await admin();
    await browser.get(PAGE);
    for (const [path, fields] of ACTIONS) {
      expect((await browser.post(path, fields, { csrf: null })).status, path).toBe(403);
      expect((await browser.post(path, fields, { csrf: 'forged' })).status, path).toBe(403);
    }
    expect(await harness.store.organisations.findById(organisationId)).toMatchObject({ euOnlyModels: false });
    expect(await harness.core.sanitiser.listRules(organisationId)).toEqual([]);
    expect(await harness.store.byokKeys.list({ organisationId })).toEqual([]);
  });
});

describe('a member who is not the admin', () => {
  it('is told why on the page and refused every change, which leaves the organisation as it was', async () => {
    const owner = await harness.createAccount();
    await harness.core.accounts.setOrganisationPolicy(owner.organisationId, { guardrailInputs: 'redact', guardrailMinSeverity: 'block' });
    const { browser } = await member(owner.organisationId);
    const page = await browser.get(PAGE);
    expect(page.status).toBe(403);
    expect(page.html).toContain("Only the organisation's admin (the account that owns it)");
    expect(page.html).toContain('EU-only models: off');
    // The guardrails apply to the member's calls too (regression: the page left them out).
    expect(page.html).toContain('Guardrails on what is sent to a model: redact findings');
    expect(page.html).toContain('Guardrails on what a model answers: off');
    expect(page.html).toContain('The guardrails act on findings of severity block and above');
    expect(page.html).not.toContain('Save policies');

    const attempts = [
      [`${PAGE}/policies`, { eu_only_models: 'on' }],
      [`${PAGE}/sanitiser-rules`, { rule_id: 'custom.x', label: 'X', severity: 'warn', kind: 'keywords', keywords: 'x' }],
      [`${PAGE}/overrides`, { rule_id: 'pii.email', enabled: 'off' }],
      [`${PAGE}/byok-keys`, { provider: 'fake', key: BYOK_KEY }],
    ] as const;
    for (const [path, fields] of attempts) {
      const refused = await browser.post(path, fields);
      expect(refused.status, path).toBe(403);
      expect(refused.html).not.toContain(BYOK_KEY);
    }
    expect(await harness.store.organisations.findById(owner.organisationId)).toMatchObject({ euOnlyModels: false });
    expect(await harness.core.sanitiser.listRules(owner.organisationId)).toEqual([]);
    expect(await harness.store.byokKeys.list({ organisationId: owner.organisationId })).toEqual([]);
  });
});
