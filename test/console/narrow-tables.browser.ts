/**
 * Tables on a phone (390 px wide) in Chromium. A table wider than the screen scrolls sideways in
 * its region; its caption starts at the region's start and stays there while the table scrolls
 * (regression: centred over the whole table, it started off-screen). The Sessions table fits, its
 * long user agents clipped, so the times and the "this browser" marker are in view (regression:
 * the user agent pushed them out). A table of records with actions (API keys, versions, webhook
 * endpoints) shows each row as a card, its actions and dates in view and a key's many scopes
 * counted (regression: the keys table was 974 px wide in a 356 px region, its Revoke button at
 * x=991 and a key's 20 scopes one per line; the versions table hid Promote and Roll back and cut
 * its dates); at 1280 px both stay tables. Such a table's parts state their table roles, which
 * WebKit drops from parts CSS displays as blocks.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { describeViolations, launchChromium, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { defined } from '../helpers/defined.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { OPERATION_SAMPLES } from '../helpers/operation-samples.js';

const PHONE = { width: 390, height: 844 };
/** What a phone's Safari sends: long, and with few places to break. */
const LONG_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1 ExtraLongToken/0123456789abcdef0123456789abcdef';

let harness: Harness;
let browser: Browser;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

/** Where a caption's text is, relative to the screen. */
async function captionText(page: Page, caption: string): Promise<{ left: number; right: number; viewport: number }> {
  return page.locator('.table-wrap caption', { hasText: caption }).evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const box = range.getBoundingClientRect();
    return { left: box.left, right: box.right, viewport: window.innerWidth };
  });
}

/** Whether each element is within the screen's width, and shows its text whole (not cut by its box). */
async function outOfView(elements: Locator, width: number): Promise<string[]> {
  return elements.evaluateAll(
    (found, screen) =>
      found.flatMap((element) => {
        const box = element.getBoundingClientRect();
        const cut = element.scrollWidth > element.clientWidth + 1;
        return box.left < 0 || box.right > screen || cut
          ? [`${element.textContent?.trim()} at ${Math.round(box.left)}-${Math.round(box.right)}${cut ? ', cut' : ''}`]
          : [];
      }),
    width,
  );
}

/** A composition named "Support reply", answering its id. */
async function supportReply(accountId: string): Promise<string> {
  const imported = await harness.core.bundles.importBundle(accountId, {
    version: 1,
    compositions: [{ key: 'reply', name: 'Support reply', template: 'Answer v1' }],
  });
  return imported.ids['composition:reply'] ?? '';
}

/**
 * The parts of the page's stacked tables without their table role stated (`<td> "Created" role=null`),
 * and the cells counted. Chromium keeps a table's roles whatever its display, so the attributes are
 * what is checked: they are what WebKit reads.
 */
async function unstatedRoles(page: Page): Promise<{ regions: string[]; cells: number; unstated: string[] }> {
  return page.locator('.table-wrap.stacked').evaluateAll((regions) => {
    const roles = [
      ['table', 'table'],
      ['thead, tbody', 'rowgroup'],
      ['tr', 'row'],
      ['thead th', 'columnheader'],
      ['tbody th', 'rowheader'],
      ['td', 'cell'],
    ] as const;
    return {
      regions: regions.map((region) => region.getAttribute('aria-label') ?? ''),
      cells: regions.reduce((count, region) => count + region.querySelectorAll('td').length, 0),
      unstated: regions.flatMap((region) =>
        roles.flatMap(([selector, role]) =>
          [...region.querySelectorAll(selector)]
            .filter((part) => part.getAttribute('role') !== role)
            .map(
              (part) =>
                `${region.getAttribute('aria-label')}: <${part.localName}> "${part.textContent?.trim().slice(0, 30)}" role=${part.getAttribute('role')}`,
            ),
        ),
      ),
    };
  });
}

/** How far a region scrolls sideways (0: not at all). */
function sidewaysScroll(region: Locator): Promise<number> {
  return region.evaluate((element) => element.scrollWidth - element.clientWidth);
}

describe('tables on a 390 px screen', () => {
  it('keep a scrolling table’s caption in view, scrolled or not', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE });
    await harness.core.bundles.importBundle(accountId, {
      version: 1,
      compositions: [
        {
          key: 'notes',
          name: 'Release notes',
          description: 'Notes for a product release, written for customers who read them on a phone.',
          tags: ['docs', 'release', 'customers'],
          template: 'Write release notes.',
        },
      ],
    });
    await page.goto(`${harness.url}/console/compositions`);
    const region = page.locator('.table-wrap', { has: page.locator('caption', { hasText: '1 composition' }) });
    expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    for (const scrollLeft of [0, 400]) {
      await region.evaluate((element, left) => element.scrollTo({ left }), scrollLeft);
      const text = await captionText(page, '1 composition');
      expect(text.left, `scrolled ${scrollLeft}`).toBeGreaterThanOrEqual(0);
      expect(text.right, `scrolled ${scrollLeft}`).toBeLessThanOrEqual(text.viewport);
    }
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });

  it('show the Sessions table whole: the times and the "this browser" marker in view beside a long user agent', async () => {
    const { context: first, email, password } = await signInWithChromium(browser, harness, { viewport: PHONE });
    await first.close();
    // Signed in on the phone too: its session records the long user agent and is "this browser".
    const phone = await browser.newContext({ viewport: PHONE, userAgent: LONG_USER_AGENT });
    const page = await phone.newPage();
    await page.goto(`${harness.url}/console/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${harness.url}/console`);
    await page.goto(`${harness.url}/console/settings/sessions`);
    expect(await page.locator('tbody tr').count()).toBe(2);
    const region = page.locator('.table-wrap');
    expect(await region.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    const marker = await page.getByText('this browser', { exact: true }).boundingBox();
    expect(marker?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect((marker?.x ?? Number.POSITIVE_INFINITY) + (marker?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    const lastCell = await page.locator('tbody tr td').last().boundingBox();
    expect((lastCell?.x ?? Number.POSITIVE_INFINITY) + (lastCell?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    // The user agent is clipped on screen, and whole for assistive technology and in its title.
    expect(await page.locator('.user-agent', { hasText: 'iPhone' }).getAttribute('title')).toBe(LONG_USER_AGENT);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await phone.close();
  });

  it('show the API keys as cards: each key’s actions and dates in view, its many scopes counted, nothing scrolled sideways', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE });
    const { key } = await harness.createKey(accountId, { scopes: [...ALL_SCOPES] });
    await harness.createKey(accountId);
    // A key rotated with a grace period: its status grows, and it keeps only Revoke.
    const rotated = await harness.createKey(accountId, { scopes: ['execute:composition'] });
    expect((await harness.api('POST', `/keys/${rotated.id}/rotate`, { key, body: { grace_seconds: 3_600 } })).status).toBe(201);
    await page.goto(`${harness.url}/console/settings/api-access`);
    const region = page.locator('.table-wrap', { has: page.locator('caption', { hasText: 'Your API keys' }) });
    expect(await sidewaysScroll(region)).toBeLessThanOrEqual(0);
    expect(await region.locator('tbody tr').count()).toBe(4);
    const actions = region.locator('button, select.grace');
    expect(await actions.count()).toBe(3 * 3 + 1);
    expect(await outOfView(actions, PHONE.width)).toEqual([]);
    expect(await outOfView(region.locator('td[data-label="Created"], td[data-label="Last used"]'), PHONE.width)).toEqual([]);
    // Each cell is named by its column, as the header would.
    expect(
      await region
        .locator('td[data-label="Created"]')
        .first()
        .evaluate((cell) => getComputedStyle(cell, '::before').content),
    ).toContain('Created');
    // Every scope is one line, a count, until opened; opened, the list wraps within the card.
    const scopes = region.locator('details.scopes');
    expect(await scopes.locator('summary').allInnerTexts()).toEqual(['all 20 scopes', 'the 12 default scopes']);
    const summary = await scopes.first().boundingBox();
    expect(summary?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(40);
    await scopes.first().locator('summary').click();
    const opened = await scopes.first().boundingBox();
    expect((opened?.x ?? -1) >= 0 && (opened?.x ?? 0) + (opened?.width ?? Number.POSITIVE_INFINITY) <= PHONE.width).toBe(true);
    expect(opened?.height ?? 0).toBeGreaterThan(3 * (summary?.height ?? Number.POSITIVE_INFINITY));
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });

  it('show a resource’s versions as cards: View, Changes, Promote and Roll back in view, dates whole', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE, colorScheme: 'dark' });
    const created = { id: await supportReply(accountId) };
    for (let version = 2; version <= 7; version++) {
      await harness.core.lifecycle.update(null, 'composition', accountId, created.id, { template: `Answer v${version}` });
    }
    await harness.core.lifecycle.setLabel('composition', accountId, created.id, 'production', 5);
    await harness.core.lifecycle.setLabel('composition', accountId, created.id, 'staging', 6);
    await page.goto(`${harness.url}/console/compositions/${created.id}/versions`);
    const region = page.locator('.table-wrap[aria-label="Versions"]');
    expect(await sidewaysScroll(region)).toBeLessThanOrEqual(0);
    expect(await outOfView(region.locator('.actions a, .actions button'), PHONE.width)).toEqual([]);
    expect(await region.getByRole('button', { name: 'Roll back production to v4' }).isVisible()).toBe(true);
    expect(await region.getByRole('button', { name: 'Promote v7 to production' }).isVisible()).toBe(true);
    const dates = region.locator('td[data-label="Written"]');
    expect(await dates.count()).toBe(7);
    expect(await outOfView(dates, PHONE.width)).toEqual([]);
    expect((await dates.first().textContent())?.trim()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await context.close();
  });

  // Regression: the stacked tables had only their elements' own roles, which WebKit (VoiceOver on
  // an iPhone) drops once CSS displays the parts as blocks, so each cell was read with no column.
  it('state the table roles of every part of every stacked table, and pass axe', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE });
    await harness.createKey(accountId);
    // The samples of these operations connect an app and register a webhook endpoint for the account.
    await defined(OPERATION_SAMPLES.revoke_connected_app, 'a connected app sample')(harness, accountId);
    await defined(OPERATION_SAMPLES.get_webhook, 'a webhook endpoint sample')(harness, accountId);
    const created = { id: await supportReply(accountId) };
    await harness.core.lifecycle.update(null, 'composition', accountId, created.id, { template: 'Answer v2' });
    const seen: string[] = [];
    for (const path of ['/console/settings/api-access', `/console/compositions/${created.id}/versions`, '/console/settings/webhooks']) {
      await page.goto(`${harness.url}${path}`);
      const { regions, cells, unstated } = await unstatedRoles(page);
      expect(cells, path).toBeGreaterThan(0);
      expect(unstated, path).toEqual([]);
      expect(describeViolations(await seriousViolations(page)), path).toBe('');
      seen.push(...regions);
    }
    expect(seen).toEqual(['API keys', 'Connected apps', 'Versions', 'Webhook endpoints']);
    await context.close();
  });

  it('keep the keys and versions tables as tables at 1280 px, whole', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    await harness.createKey(accountId, { scopes: [...ALL_SCOPES] });
    const created = { id: await supportReply(accountId) };
    await harness.core.lifecycle.update(null, 'composition', accountId, created.id, { template: 'Answer v2' });
    for (const [path, label] of [
      ['/console/settings/api-access', 'API keys'],
      [`/console/compositions/${created.id}/versions`, 'Versions'],
    ] as const) {
      await page.goto(`${harness.url}${path}`);
      const region = page.locator(`.table-wrap[aria-label="${label}"]`);
      expect(await region.locator('table').evaluate((table) => getComputedStyle(table).display), path).toBe('table');
      expect(await region.locator('thead th').first().isVisible(), path).toBe(true);
      expect(await sidewaysScroll(region), path).toBeLessThanOrEqual(0);
    }
    await context.close();
  });
});
