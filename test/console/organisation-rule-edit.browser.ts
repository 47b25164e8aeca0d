/**
 * Editing a custom sanitiser rule in Chromium, which sends a textarea's line breaks as CRLF and
 * drops those of a single-line input: changing the severity alone leaves the keywords and the
 * pattern exactly as stored (regression: "Smith, John" was split in two, and a pattern's line
 * break was lost).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signInWithChromium } from '../helpers/console-chromium.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const PAGE = '/console/settings/organisation';

let harness: ProviderHarness;
let browser: Browser;
beforeAll(async () => {
  harness = await createProviderHarness();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('editing a custom rule in a browser', () => {
  it('changes the severity alone, keeping keywords with commas and a pattern with a line break as stored', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const account = await harness.store.accounts.findById(accountId);
    if (!account) throw new Error('no account');
    const organisationId = account.organisationId;
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.people',
      label: 'People',
      severity: 'warn',
      kind: 'keywords',
      keywords: ['Smith, John', 'Acme Corp'],
    });
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.secret-block',
      label: 'Secret block',
      severity: 'warn',
      kind: 'regex',
      pattern: 'BEGIN\nSECRET [0-9]+',
    });
    const stored = async (ruleId: string) => (await harness.core.sanitiser.listRules(organisationId)).find((rule) => rule.rule_id === ruleId)?.definition;

    for (const ruleId of ['custom.people', 'custom.secret-block']) {
      await page.goto(`${harness.url}${PAGE}?edit=${ruleId}`);
      if (ruleId === 'custom.secret-block') expect(await page.locator('#rule-pattern').inputValue()).toBe('BEGIN\nSECRET [0-9]+');
      await page.locator('#rule-severity').selectOption('block');
      await page.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText(`Saved the rule ${ruleId}`).waitFor();
    }
    expect(await stored('custom.people')).toMatchObject({ severity: 'block', keywords: ['Smith, John', 'Acme Corp'] });
    expect(await stored('custom.secret-block')).toMatchObject({ severity: 'block', pattern: 'BEGIN\nSECRET [0-9]+' });
    await context.close();
  });
});
