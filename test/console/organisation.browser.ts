/**
 * Settings → Organisation in Chromium: the admin adds a keyword rule and watches the live test box
 * mark it as they type (htmx), stores a BYOK key that the page never shows again, and the page
 * passes axe (no serious or critical WCAG A/AA violation) and is photographed in four variants.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeViolations, launchChromium, screenshotVariants, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const PAGE = '/console/settings/organisation';
const BYOK_KEY = 'sk-browser-byok-secret-9a8b7c6d5e4f';

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

describe('organisation settings in a browser', () => {
  it('adds a rule the live test box marks as the admin types, and stores a BYOK key never shown again', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const account = await harness.store.accounts.findById(accountId);
    if (!account) throw new Error('no account');
    await harness.core.accounts.createAccount({ email: `colleague-${Date.now()}@example.com`, plan: 'builder', organisationId: account.organisationId });

    await page.getByRole('link', { name: 'Organisation' }).click();
    expect(await page.locator('h1').textContent()).toBe('Organisation');
    expect(describeViolations(await seriousViolations(page))).toBe('');

    await page.getByLabel('Rule id').fill('custom.codenames');
    await page.getByLabel('Label').fill('Project codename');
    await page.getByLabel('Keywords', { exact: true }).fill('Bluebird');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Saved the rule custom.codenames').waitFor();

    await page.getByLabel('Text to scan').fill('Ship Bluebird to ada@example.com');
    const marked = page.locator('#scan-result mark', { hasText: 'Bluebird' });
    await marked.waitFor();
    expect(await marked.getAttribute('title')).toBe('Project codename (custom.codenames)');
    expect(await page.locator('#scan-result mark').count()).toBe(2);
    expect(describeViolations(await seriousViolations(page))).toBe('');

    // A text over the form limit is refused (413): the box says so instead of keeping the last
    // text's findings (regression: Bluebird stayed marked for a text without it).
    await page.getByLabel('Text to scan').fill('é'.repeat(200_000));
    await page.locator('#scan-result', { hasText: 'too large to update here' }).waitFor();
    expect(await page.locator('#scan-result mark').count()).toBe(0);
    await page.getByLabel('Text to scan').fill('Ship Bluebird to ada@example.com');
    await marked.waitFor();

    await page.getByLabel('Key', { exact: true }).fill(BYOK_KEY);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('Stored the fake key ...5e4f').waitFor();
    expect(await page.content()).not.toContain(BYOK_KEY);
    expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe('');
    await context.close();
  });

  it('photographs the page, passing axe in every variant', async () => {
    const { context, accountId } = await signInWithChromium(browser, harness);
    const account = await harness.store.accounts.findById(accountId);
    if (!account) throw new Error('no account');
    const organisationId = account.organisationId;
    await harness.core.accounts.createAccount({ email: `colleague-${Date.now()}@example.com`, name: 'Grace Hopper', plan: 'builder', organisationId });
    await harness.core.accounts.setOrganisationPolicy(organisationId, { euOnlyModels: true, guardrailInputs: 'redact' });
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.codenames',
      label: 'Project codename',
      severity: 'block',
      kind: 'keywords',
      keywords: ['Bluebird', 'Falcon'],
    });
    await harness.core.sanitiser.addCustomRule(organisationId, {
      rule_id: 'custom.invoices',
      label: 'Invoice number',
      severity: 'warn',
      kind: 'regex',
      pattern: 'INV-[0-9]{6}',
    });
    await harness.core.sanitiser.setOverride(organisationId, { rule_id: 'pii.ip_address', enabled: false });
    await harness.core.byok.set({ organisationId }, 'fake', BYOK_KEY);
    await screenshotVariants(context, 'organisation', async (page) => {
      await page.goto(`${harness.url}${PAGE}`);
      expect(describeViolations(await seriousViolations(page))).toBe('');
      // Regression: screen-reader-only text in the tables once widened the 390 px page to 755 px.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()?.width ?? 0);
    });
    await context.close();
  });

  it('photographs what a member who is not the admin sees, passing axe', async () => {
    const owner = await harness.createAccount();
    await harness.core.accounts.setOrganisationPolicy(owner.organisationId, { guardrailInputs: 'redact' });
    const { context } = await signInWithChromium(browser, {
      url: harness.url,
      core: harness.core,
      createAccount: async ({ email, plan, credits } = {}) => {
        const account = await harness.core.accounts.createAccount({
          email: email ?? `member-${Date.now()}@example.com`,
          plan: plan ?? 'expert',
          credits: credits ?? 0,
          organisationId: owner.organisationId,
        });
        return { accountId: account.id, organisationId: owner.organisationId };
      },
    });
    await screenshotVariants(context, 'organisation-member', async (page) => {
      const response = await page.goto(`${harness.url}${PAGE}`);
      expect(response?.status()).toBe(403);
      await page.getByText("Only the organisation's admin").waitFor();
      expect(describeViolations(await seriousViolations(page))).toBe('');
    });
    await context.close();
  });
});
