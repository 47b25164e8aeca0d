/**
 * The human pages in a real browser (Debian's Chromium driven by playwright-core): the home page
 * and the Swagger UI API reference render every operation, from this server alone; every docs
 * page, the 404 page and the open search pass axe in both colour schemes and at phone width;
 * links keep 4.5:1 contrast; the sidebar, search and copy buttons work.
 * Run with `npm run test:browser` (scripts/install-browser.sh installs Chromium).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { operationId } from '../../src/operations/operation.js';
import { DOC_SOURCES } from '../../src/rest/discovery/site-pages.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** axe-core's browser build, injected into each page it checks. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The pages Porch writes itself (Swagger UI's page is the npm package's, not ours), and the 404 page. */
const WRITTEN_PAGES = ['/', '/docs', ...DOC_SOURCES.map((source) => `/docs/${source.slug}`), '/no-such-page'];
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
/** WCAG 2 AA for normal text. */
const MINIMUM_LINK_CONTRAST = 4.5;

/** WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** Rendering the reference (1.7 MB of script plus the document) takes about a second; allow headroom. */
const RENDER_TIMEOUT_MS = 20_000;

function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const candidate of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [candidate], { encoding: 'utf8' }).trim();
    } catch {
      // try the next name
    }
  }
  throw new Error('No Chromium found: run scripts/install-browser.sh or set CHROMIUM_PATH.');
}

/** axe's serious and critical violations of WCAG 2 A and AA on the page as it is now. */
async function runAxe(page: Page): Promise<Array<{ id: string; impact: string | null; help: string; nodes: number }>> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async (tags) => {
    // Runs in the page: its globals, typed here.
    const scope = globalThis as unknown as {
      document: unknown;
      axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> };
    };
    const result = await scope.axe.run(scope.document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.length }));
  }, WCAG_TAGS);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

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

/** Evaluated in the page: how far the page scrolls sideways (0 when it does not). */
const SIDEWAYS_OVERFLOW = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';

let harness: Harness;
let browser: Browser;
beforeAll(async () => {
  harness = await createHarness();
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'], timeout: RENDER_TIMEOUT_MS });
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

  describe('every written page', () => {
    // One tab per width and scheme, navigated from page to page: opening a tab took a quarter of
    // a second, as long as loading the page into it, and these are 28 pages in four variants.
    const tabs: Array<{ page: Page; width: number; colorScheme: (typeof SCHEMES)[number] }> = [];
    beforeAll(async () => {
      // bypassCSP: the pages allow only their own scripts, and axe is injected from outside.
      for (const viewport of VIEWPORTS)
        for (const colorScheme of SCHEMES)
          tabs.push({ page: await browser.newPage({ viewport, colorScheme, bypassCSP: true }), width: viewport.width, colorScheme });
    });
    afterAll(async () => {
      for (const { page } of tabs) await page.close();
    });

    it.each(WRITTEN_PAGES)('%s passes axe (WCAG 2 A and AA) in light and dark, and never scrolls sideways at 1280 or 390 px', async (path) => {
      for (const { page, width, colorScheme } of tabs) {
        // axe runs in both schemes and at both widths, once each (wide light, narrow dark): the
        // colours do not change with the width, and all four took two minutes for 28 pages.
        const audited = (width === VIEWPORTS[0]?.width) === (colorScheme === SCHEMES[0]);
        const response = await page.goto(`${harness.url}${path}`, { waitUntil: 'load', timeout: RENDER_TIMEOUT_MS });
        expect(response?.status()).toBe(path === '/no-such-page' ? 404 : 200);
        const where = `${path} at ${width} px, ${colorScheme}`;
        if (audited) expect(await runAxe(page), where).toEqual([]);
        // Wide tables and code scroll inside their own boxes; the page itself never does.
        expect(await page.evaluate<number>(SIDEWAYS_OVERFLOW), where).toBeLessThanOrEqual(0);
      }
    });
  });

  it('keeps every link at 4.5:1 contrast or more against its background, light and dark', async () => {
    const ratios: Record<string, number> = {};
    for (const colorScheme of SCHEMES) {
      let lowest = Number.POSITIVE_INFINITY;
      for (const path of ['/', '/docs/quick-start', '/docs/configuration', '/no-such-page']) {
        const page = await browser.newPage({ viewport: VIEWPORTS[0], colorScheme });
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
    const wide = await browser.newPage({ viewport: VIEWPORTS[0] });
    await wide.goto(`${harness.url}/docs/errors`, { waitUntil: 'load' });
    expect(await wide.locator('nav[aria-label="Documentation"] a[aria-current="page"]').textContent()).toBe('Errors');
    expect(await wide.locator('nav[aria-label="Documentation"] a').count()).toBe(DOC_SOURCES.length + 2);
    expect(await wide.locator('a[rel="next"]').count()).toBe(1);
    await wide.close();

    const phone = await browser.newPage({ viewport: VIEWPORTS[1] });
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
    for (const colorScheme of SCHEMES) {
      const page = await browser.newPage({ viewport: VIEWPORTS[0], colorScheme, bypassCSP: true });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${harness.url}/docs/quick-start`, { waitUntil: 'load' });
      await page.keyboard.press('/');
      await page.keyboard.type('strict byok');
      const first = page.locator('#search-results a').first();
      await first.waitFor({ timeout: RENDER_TIMEOUT_MS });
      expect(await page.locator('#search-status').textContent()).toMatch(/\d+ results?\./);
      expect(await first.getAttribute('href')).toMatch(/^\/docs\/byok/);
      expect(await runAxe(page), `search open, ${colorScheme}`).toEqual([]);
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('href')")).toBe(await first.getAttribute('href'));
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/docs\/byok/);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('says so when nothing matches', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS[1] });
    await page.goto(`${harness.url}/docs`, { waitUntil: 'load' });
    await page.locator('#search-input').fill('zzqxv');
    await page.locator('#search-results .empty').waitFor({ timeout: RENDER_TIMEOUT_MS });
    expect(await page.locator('#search-status').textContent()).toBe('No results.');
    await page.close();
  });

  it('copies a code block to the clipboard with its Copy button', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[0], permissions: ['clipboard-read', 'clipboard-write'] });
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
