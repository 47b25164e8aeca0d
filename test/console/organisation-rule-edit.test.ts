/**
 * Editing a custom sanitiser rule in Settings → Organisation changes only what the admin changed
 * (regression: saving a new severity split the keyword "Smith, John" in two, and a pattern lost
 * its line break in a single-line input). Over real HTTP, posting what a browser sends: every
 * field as the form shows it, a textarea's line breaks as CRLF.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const PAGE = '/console/settings/organisation';

let harness: ProviderHarness;
beforeAll(async () => {
  harness = await createProviderHarness();
});
afterAll(async () => {
  await harness.close();
});

async function admin(): Promise<{ browser: ConsoleBrowser; organisationId: string }> {
  const signedIn = await signedInBrowser(harness);
  const account = await harness.core.accounts.accountByEmail(signedIn.email);
  return { browser: signedIn.browser, organisationId: account.organisationId };
}

const crlf = (text: string) => text.replaceAll('\n', '\r\n');
const selected = (html: string, id: string) => new RegExp(`<select id="${id}"[\\s\\S]*?<option value="([^"]*)" selected`).exec(html)?.[1] ?? '';
const inputValue = (html: string, id: string) => (new RegExp(`<input id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? '').replaceAll('&quot;', '"');
const checked = (html: string, name: string) => new RegExp(`name="${name}" value="on" checked`).test(html);

/** The rule form as the edit page shows it, as a browser would send it back untouched. */
async function openRule(browser: ConsoleBrowser, ruleId: string): Promise<Record<string, string | string[]>> {
  const page = await browser.get(`${PAGE}?edit=${ruleId}`);
  expect(page.status, page.html).toBe(200);
  const form = page.html.slice(page.html.indexOf('id="rule-form"'));
  const base = /name="base" value="([^"]*)"/.exec(form)?.[1]?.replaceAll('&quot;', '"') ?? '';
  expect(base, 'the edit form carries its base').not.toBe('');
  return {
    base,
    rule_id: inputValue(form, 'rule-id'),
    label: inputValue(form, 'rule-label'),
    severity: selected(form, 'rule-severity'),
    kind: selected(form, 'rule-kind'),
    keywords: crlf(textareaText(form, 'id="rule-keywords"')),
    pattern: crlf(textareaText(form, 'id="rule-pattern"')),
    ...(checked(form, 'case_sensitive') ? { case_sensitive: 'on' } : {}),
    ...(checked(form, 'ignore_case') ? { ignore_case: 'on' } : {}),
    enabled: checked(form, 'enabled') ? ['off', 'on'] : 'off',
  };
}

async function storedDefinition(organisationId: string, ruleId: string) {
  return (await harness.core.sanitiser.listRules(organisationId)).find((rule) => rule.rule_id === ruleId)?.definition;
}

describe('editing a custom rule', () => {
  it('keeps keywords holding a comma when only the severity is changed', async () => {
    const { browser, organisationId } = await admin();
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.people',
      label: 'People',
      severity: 'warn',
      kind: 'keywords',
      keywords: ['Smith, John', 'Acme Corp'],
    });
    const form = await openRule(browser, 'custom.people');
    expect(form.keywords).toBe('Smith, John\r\nAcme Corp');
    const saved = await browser.post(`${PAGE}/sanitiser-rules`, { ...form, severity: 'block' });
    expect(saved.html).toContain('Saved the rule custom.people');
    expect(await storedDefinition(organisationId, 'custom.people')).toEqual({
      rule_id: 'custom.people',
      label: 'People',
      severity: 'block',
      enabled: true,
      kind: 'keywords',
      keywords: ['Smith, John', 'Acme Corp'],
      case_sensitive: false,
    });
  });

  it('keeps the line break of a regex pattern when only the label is changed, and shows the pattern whole', async () => {
    const { browser, organisationId } = await admin();
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.secret-block',
      label: 'Secret block',
      severity: 'warn',
      kind: 'regex',
      pattern: 'BEGIN\nSECRET [0-9]+',
    });
    const form = await openRule(browser, 'custom.secret-block');
    expect(form.pattern).toBe('BEGIN\r\nSECRET [0-9]+');
    const saved = await browser.post(`${PAGE}/sanitiser-rules`, { ...form, label: 'Secret' });
    expect(saved.html).toContain('Saved the rule custom.secret-block');
    expect(await storedDefinition(organisationId, 'custom.secret-block')).toMatchObject({ label: 'Secret', pattern: 'BEGIN\nSECRET [0-9]+' });
  });

  it('keeps a keyword holding a line break, which the one-a-line box cannot show, while the box is left alone', async () => {
    const { browser, organisationId } = await admin();
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.address',
      label: 'Address',
      severity: 'info',
      kind: 'keywords',
      keywords: ['1 Main Street\nSpringfield', 'Elm'],
      case_sensitive: true,
    });
    const form = await openRule(browser, 'custom.address');
    await browser.post(`${PAGE}/sanitiser-rules`, { ...form, severity: 'warn' });
    expect(await storedDefinition(organisationId, 'custom.address')).toMatchObject({
      severity: 'warn',
      keywords: ['1 Main Street\nSpringfield', 'Elm'],
      case_sensitive: true,
    });
  });

  it('takes edited keywords one a line, commas kept, and writes line breaks typed in a pattern as LF', async () => {
    const { browser, organisationId } = await admin();
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.edited',
      label: 'Edited',
      severity: 'warn',
      kind: 'keywords',
      keywords: ['A'],
    });
    const form = await openRule(browser, 'custom.edited');
    await browser.post(`${PAGE}/sanitiser-rules`, { ...form, keywords: 'Smith, John\r\nAcme Corp\r\n' });
    expect(await storedDefinition(organisationId, 'custom.edited')).toMatchObject({ keywords: ['Smith, John', 'Acme Corp'] });
    const again = await openRule(browser, 'custom.edited');
    await browser.post(`${PAGE}/sanitiser-rules`, { ...again, kind: 'regex', pattern: 'BEGIN\r\nEND' });
    expect(await storedDefinition(organisationId, 'custom.edited')).toMatchObject({ kind: 'regex', pattern: 'BEGIN\nEND' });
  });

  it('adds a new keyword rule one keyword a line, a comma part of the keyword', async () => {
    const { browser, organisationId } = await admin();
    await browser.get(PAGE);
    await browser.post(`${PAGE}/sanitiser-rules`, {
      rule_id: 'custom.new-people',
      label: 'People',
      severity: 'warn',
      kind: 'keywords',
      keywords: 'Smith, John\r\nAcme Corp',
      pattern: '',
      enabled: ['off', 'on'],
    });
    expect(await storedDefinition(organisationId, 'custom.new-people')).toMatchObject({ keywords: ['Smith, John', 'Acme Corp'] });
  });

  it('keeps a change saved elsewhere meanwhile, refuses one to the same field naming it, and saves nothing when nothing changed', async () => {
    const { browser, organisationId } = await admin();
    const rule = { rule_id: 'custom.shared', label: 'Shared', severity: 'warn', kind: 'keywords', keywords: ['One'] } as const;
    await harness.core.sanitiser.addCustomRule(organisationId, rule);
    const form = await openRule(browser, 'custom.shared');

    const unchanged = await browser.post(`${PAGE}/sanitiser-rules`, form);
    expect(unchanged.html).toContain('Nothing changed, so nothing was saved.');

    await harness.core.sanitiser.addCustomRule(organisationId, { ...rule, keywords: ['One', 'Two'] });
    await browser.post(`${PAGE}/sanitiser-rules`, { ...form, label: 'Renamed' });
    expect(await storedDefinition(organisationId, 'custom.shared')).toMatchObject({ label: 'Renamed', keywords: ['One', 'Two'] });

    const clash = await browser.post(`${PAGE}/sanitiser-rules`, { ...form, keywords: 'Three' });
    expect(clash.status).toBe(409);
    expect(clash.html).toContain('Since you opened this rule, Keywords was changed elsewhere');
    expect(await storedDefinition(organisationId, 'custom.shared')).toMatchObject({ keywords: ['One', 'Two'] });
    // The form now holds the rule as it is with the admin's change over it: saving it keeps theirs.
    const base = /name="base" value="([^"]*)"/.exec(clash.html.slice(clash.html.indexOf('id="rule-form"')))?.[1]?.replaceAll('&quot;', '"') ?? '';
    expect(textareaText(clash.html, 'id="rule-keywords"')).toBe('Three');
    await browser.post(`${PAGE}/sanitiser-rules`, { ...form, label: 'Renamed', keywords: 'Three', base });
    expect(await storedDefinition(organisationId, 'custom.shared')).toMatchObject({ label: 'Renamed', keywords: ['Three'] });
  });
});
