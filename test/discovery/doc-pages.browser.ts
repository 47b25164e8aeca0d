/**
 * Every page Porch writes itself (the home page, the docs, the 404 page; Swagger UI's page is the
 * npm package's) in a real browser: axe finds no serious or critical WCAG 2 A/AA violation in
 * either colour scheme, and no page scrolls sideways at 1280 or 390 px. The site's behaviour is in
 * api-reference.browser.ts; this half has a file of its own so the two run side by side.
 * Run with `npm run test:browser` (scripts/install-browser.sh installs Chromium).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOC_SOURCES } from '../../src/rest/discovery/site-pages.js';
import { COLOR_SCHEMES, describeViolations, launchChromium, seriousViolations, VIEWPORTS } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const WRITTEN_PAGES = ['/', '/docs', ...DOC_SOURCES.map((source) => `/docs/${source.slug}`), '/no-such-page'];
const PAGE_TIMEOUT_MS = 20_000;

/** Evaluated in the page: how far the page scrolls sideways (0 when it does not). */
const SIDEWAYS_OVERFLOW = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';

let harness: Harness;
let browser: Browser;
// One tab per width and scheme, navigated from page to page: opening a tab took a quarter of a
// second, as long as loading the page into it, and these are 28 pages in four variants.
const tabs: Array<{ page: Page; where: string; audited: boolean }> = [];
beforeAll(async () => {
  harness = await createHarness();
  browser = await launchChromium();
  for (const { name, width, height } of VIEWPORTS)
    for (const colorScheme of COLOR_SCHEMES)
      tabs.push({
        page: await browser.newPage({ viewport: { width, height }, colorScheme }),
        where: `${width} px, ${colorScheme}`,
        // axe runs in both schemes and at both widths, once each (wide light, narrow dark): the
        // colours do not change with the width, and all four took two minutes for 28 pages.
        audited: (name === 'wide') === (colorScheme === 'light'),
      });
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('every written page in a browser', () => {
  it.each(WRITTEN_PAGES)('%s passes axe (WCAG 2 A and AA) in light and dark, and never scrolls sideways at 1280 or 390 px', async (path) => {
    for (const { page, where, audited } of tabs) {
      const response = await page.goto(`${harness.url}${path}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
      expect(response?.status()).toBe(path === '/no-such-page' ? 404 : 200);
      if (audited) {
        const violations = await seriousViolations(page);
        expect(violations, `${path} at ${where}: ${describeViolations(violations)}`).toEqual([]);
      }
      // Wide tables and code scroll inside their own boxes; the page itself never does.
      expect(await page.evaluate<number>(SIDEWAYS_OVERFLOW), `${path} at ${where}`).toBeLessThanOrEqual(0);
    }
  });
});
