/**
 * Tables on a phone (390 px wide) in Chromium. A table wider than the screen scrolls sideways in
 * its region; its caption starts at the region's start and stays there while the table scrolls
 * (regression: centred over the whole table, it started off-screen). The Sessions table fits, its
 * long user agents clipped, so the times and the "this browser" marker are in view (regression:
 * the user agent pushed them out).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeViolations, launchChromium, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';

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

describe('tables on a 390 px screen', () => {
  it('keep a scrolling table’s caption in view, scrolled or not', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: PHONE });
    await harness.createKey(accountId);
    await page.goto(`${harness.url}/console/settings/api-access`);
    const region = page.locator('.table-wrap', { has: page.locator('caption', { hasText: 'Your API keys' }) });
    expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    for (const scrollLeft of [0, 400]) {
      await region.evaluate((element, left) => element.scrollTo({ left }), scrollLeft);
      const text = await captionText(page, 'Your API keys');
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
});
