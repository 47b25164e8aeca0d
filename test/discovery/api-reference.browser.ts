/**
 * The site in a real browser (Debian's Chromium driven by playwright-core): the home page and the
 * Swagger UI API reference render every operation, from this server alone; links keep 4.5:1
 * contrast; the sidebar, search and copy buttons work. Every written page's axe and width checks
 * are in doc-pages.browser.ts, so the two halves run side by side.
 * Run with `npm run test:browser` (scripts/install-browser.sh installs Chromium).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { operationId } from '../../src/operations/operation.js';
import { headingSlug } from '../../src/rest/discovery/html-layout.js';
import { DOC_SOURCES } from '../../src/rest/discovery/site-pages.js';
import { COLOR_SCHEMES, describeViolations, launchChromium, seriousViolations, VIEWPORTS } from '../helpers/console-chromium.js';
import { defined } from '../helpers/defined.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const [WIDE, NARROW] = VIEWPORTS.map(({ width, height }) => ({ width, height }));
/** WCAG 2 AA for normal text. */
const MINIMUM_LINK_CONTRAST = 4.5;

/** Rendering the reference (1.7 MB of script plus the document) takes about a second; allow headroom. */
const RENDER_TIMEOUT_MS = 20_000;

interface LinkContrast {
  text: string;
  color: string;
  background: string;
  ratio: number;
}

/**
 * Evaluated in the page (as text: this file is compiled without the DOM library): each visible
 * link's text colour against the first opaque background behind it, as a WCAG contrast ratio.
 */
const MEASURE_LINK_CONTRAST = `(() => {
  const channels = (value) => (value.match(/[\\d.]+/g) ?? []).map(Number);
  const luminance = (value) => {
    const [r = 0, g = 0, b = 0] = channels(value).map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const backgroundOf = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const background = getComputedStyle(node).backgroundColor;
      if (background !== 'transparent' && channels(background)[3] !== 0) return background;
    }
    return getComputedStyle(document.documentElement).backgroundColor;
  };
  return [...document.querySelectorAll('a')]
    .filter((link) => link.getClientRects().length > 0 && getComputedStyle(link).visibility !== 'hidden' && !link.classList.contains('skip'))
    .map((link) => {
      const color = getComputedStyle(link).color;
      const background = backgroundOf(link);
      const [lighter, darker] = [luminance(color), luminance(background)].sort((a, b) => b - a);
      return { text: (link.textContent ?? '').trim().slice(0, 40), color, background, ratio: (lighter + 0.05) / (darker + 0.05) };
    });
})()`;

/** Whether the element's top is on screen (Swagger UI scrolls to an operation with an animation). */
async function isInView(page: Page, element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= -1 && box.y < height / 2;
}

let harness: Harness;
let browser: Browser;
beforeAll(async () => {
  harness = await createHarness();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

async function openPage(path: string) {
  const page = await browser.newPage();
  const foreignRequests: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(harness.url) && !request.url().startsWith('data:')) foreignRequests.push(request.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const response = await page.goto(`${harness.url}${path}`, { waitUntil: 'load', timeout: RENDER_TIMEOUT_MS });
  return { page, response, foreignRequests, errors };
}

describe('in a browser', () => {
  it('renders the home page with every operation', async () => {
    const { page, response, foreignRequests, errors } = await openPage('/');
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').first().textContent()).toBe('Porch');
    const rows = await page.locator('table tbody tr').allTextContents();
    for (const operation of exposedOn(operations, 'discovery'))
      expect(
        rows.some((row) => row.includes(operation.path) && row.includes(operation.title)),
        operation.name,
      ).toBe(true);
    expect(foreignRequests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps every link at 4.5:1 contrast or more against its background, light and dark', async () => {
    const ratios: Record<string, number> = {};
    for (const colorScheme of COLOR_SCHEMES) {
      let lowest = Number.POSITIVE_INFINITY;
      for (const path of ['/', '/docs/quick-start', '/docs/configuration', '/no-such-page']) {
        const page = await browser.newPage({ viewport: WIDE, colorScheme });
        await page.goto(`${harness.url}${path}`, { waitUntil: 'load', timeout: RENDER_TIMEOUT_MS });
        const measured = await page.evaluate<LinkContrast[]>(MEASURE_LINK_CONTRAST);
        for (const link of measured) {
          expect(link.ratio, `${path} ${colorScheme}: "${link.text}" ${link.color} on ${link.background}`).toBeGreaterThanOrEqual(MINIMUM_LINK_CONTRAST);
          lowest = Math.min(lowest, link.ratio);
        }
        await page.close();
      }
      ratios[colorScheme] = Math.round(lowest * 100) / 100;
    }
    // The lowest ratio measured in each scheme, for the record.
    console.info('lowest link contrast', ratios);
  });

  it('marks the current page in the sidebar, which folds into "Pages" on a phone and opens', async () => {
    const wide = await browser.newPage({ viewport: WIDE });
    await wide.goto(`${harness.url}/docs/errors`, { waitUntil: 'load' });
    expect(await wide.locator('nav[aria-label="Documentation"] a[aria-current="page"]').textContent()).toBe('Errors');
    expect(await wide.locator('nav[aria-label="Documentation"] a').count()).toBe(DOC_SOURCES.length + 2);
    expect(await wide.locator('a[rel="next"]').count()).toBe(1);
    await wide.close();

    const phone = await browser.newPage({ viewport: NARROW });
    await phone.goto(`${harness.url}/docs/errors`, { waitUntil: 'load' });
    const link = phone.locator('nav[aria-label="Documentation"] a', { hasText: 'Webhooks' });
    await phone.waitForFunction("document.querySelector('details.sidebar')?.hasAttribute('open') === false");
    expect(await link.isVisible()).toBe(false);
    await phone.locator('details.sidebar summary').click();
    expect(await link.isVisible()).toBe(true);
    await link.click();
    await phone.waitForURL(`${harness.url}/docs/webhooks`);
    await phone.close();
  });

  it('finds pages with the search box, by keyboard, and passes axe with the results open', async () => {
    for (const colorScheme of COLOR_SCHEMES) {
      const page = await browser.newPage({ viewport: WIDE, colorScheme });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${harness.url}/docs/quick-start`, { waitUntil: 'load' });
      await page.keyboard.press('/');
      await page.keyboard.type('strict byok');
      const first = page.locator('#search-results a').first();
      await first.waitFor({ timeout: RENDER_TIMEOUT_MS });
      expect(await page.locator('#search-status').textContent()).toMatch(/\d+ results?\./);
      expect(await first.getAttribute('href')).toMatch(/^\/docs\/byok/);
      const violations = await seriousViolations(page);
      expect(violations, `search open, ${colorScheme}: ${describeViolations(violations)}`).toEqual([]);
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('href')")).toBe(await first.getAttribute('href'));
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/docs\/byok/);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('says so when nothing matches', async () => {
    const page = await browser.newPage({ viewport: NARROW });
    await page.goto(`${harness.url}/docs`, { waitUntil: 'load' });
    await page.locator('#search-input').fill('zzqxv');
    await page.locator('#search-results .empty').waitFor({ timeout: RENDER_TIMEOUT_MS });
    expect(await page.locator('#search-status').textContent()).toBe('No results.');
    await page.close();
  });

  it('copies a code block to the clipboard with its Copy button', async () => {
    const context = await browser.newContext({ viewport: WIDE, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${harness.url}/docs/quick-start`, { waitUntil: 'load' });
    const block = page.locator('.code-block').first();
    const code = await block.locator('pre').textContent();
    await block.locator('button.copy').click();
    await page.locator('.code-block button.copy', { hasText: 'Copied' }).first().waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(code);
    expect(await page.locator('button.copy').count()).toBe(await page.locator('main pre').count());
    await context.close();
  });

  it('opens the operation a search result names and scrolls to it, from another page and on the reference itself (regression: landed at the top, nothing opened)', async () => {
    const page = await browser.newPage({ viewport: WIDE });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${harness.url}/docs/errors`, { waitUntil: 'load' });
    for (const name of ['execute_persona', 'cancel_run']) {
      const operation = defined(
        operations.find((candidate) => candidate.name === name),
        name,
      );
      // The search index and the docs link to the anchor of the no-script version of the page.
      await page.locator('#search-input').fill(operation.title);
      const first = page.locator('#search-results a').first();
      await first.waitFor({ timeout: RENDER_TIMEOUT_MS });
      expect(await first.getAttribute('href')).toBe(`/docs/api-reference#${headingSlug(operation.title)}`);
      await first.click();
      const block = page.locator(`#operations-${operation.tag.replace(/ /g, '_')}-${operationId(operation)}`);
      await page.waitForURL(`${harness.url}/docs/api-reference#/${encodeURIComponent(operation.tag)}/${operationId(operation)}`, {
        timeout: RENDER_TIMEOUT_MS,
      });
      await block.and(page.locator('.is-open')).waitFor({ timeout: RENDER_TIMEOUT_MS });
      await expect.poll(() => isInView(page, block), { timeout: RENDER_TIMEOUT_MS }).toBe(true);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('scrolls to a tag’s section at its no-script anchor, and keeps the no-script page’s anchors working without script', async () => {
    const page = await browser.newPage({ viewport: WIDE });
    await page.goto(`${harness.url}/docs/api-reference#context-cards`, { waitUntil: 'load' });
    await expect.poll(() => isInView(page, page.locator('#operations-tag-Context_cards')), { timeout: RENDER_TIMEOUT_MS }).toBe(true);
    expect(page.url()).toBe(`${harness.url}/docs/api-reference#/Context%20cards`);
    await page.close();

    const context = await browser.newContext({ viewport: WIDE, javaScriptEnabled: false });
    const noScript = await context.newPage();
    await noScript.goto(`${harness.url}/docs/api-reference#talk-to-a-persona`, { waitUntil: 'load' });
    expect(await isInView(noScript, noScript.locator('#talk-to-a-persona'))).toBe(true);
    expect(noScript.url()).toBe(`${harness.url}/docs/api-reference#talk-to-a-persona`);
    await context.close();
  });

  it('renders every operation at an address whose fragment is no valid percent-encoding (regression: URIError, a blank page)', async () => {
    const documented = exposedOn(operations, 'discovery');
    for (const fragment of ['#50%', '#%E2']) {
      const { page, errors } = await openPage(`/docs/api-reference${fragment}`);
      await page
        .locator('.opblock')
        .nth(documented.length - 1)
        .waitFor({ timeout: RENDER_TIMEOUT_MS });
      expect(await page.locator('.opblock').count(), fragment).toBe(documented.length);
      expect(errors, fragment).toEqual([]);
      await page.close();
    }
  });

  it('renders the API reference (Swagger UI from the npm package) with every operation, offline', async () => {
    const documented = exposedOn(operations, 'discovery');
    const { page, response, foreignRequests, errors } = await openPage('/docs/api-reference');
    expect(response?.status()).toBe(200);
    await page
      .locator('.opblock')
      .nth(documented.length - 1)
      .waitFor({ timeout: RENDER_TIMEOUT_MS });
    expect(await page.locator('.opblock').count()).toBe(documented.length);
    const ids = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id));
    for (const operation of documented)
      expect(
        ids.some((id) => id.endsWith(`-${operationId(operation)}`)),
        operation.name,
      ).toBe(true);
    expect(await page.locator('.info .title').textContent()).toContain('Porch API');
    expect(foreignRequests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
