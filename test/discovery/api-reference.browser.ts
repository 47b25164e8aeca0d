/**
 * The human pages in a real browser (Debian's Chromium driven by playwright-core): the home page
 * and the Swagger UI API reference render every operation, from this server alone.
 * Run with `npm run test:browser` (scripts/install-browser.sh installs Chromium).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { operationId } from '../../src/operations/operation.js';
import { DOC_SOURCES } from '../../src/rest/discovery/site-pages.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** axe-core's browser build, injected into each page it checks. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The pages Porch writes itself (Swagger UI's page is the npm package's, not ours). */
const WRITTEN_PAGES = ['/', '/docs', ...DOC_SOURCES.map((source) => `/docs/${source.slug}`)];

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

  it.each(WRITTEN_PAGES)('%s passes axe (WCAG 2 A and AA) at 1280 and 390 px, light and dark', async (path) => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ])
      for (const colorScheme of ['light', 'dark'] as const) {
        // bypassCSP: the pages allow only their own scripts, and axe is injected from outside.
        const page = await browser.newPage({ viewport, colorScheme, bypassCSP: true });
        const response = await page.goto(`${harness.url}${path}`, { waitUntil: 'load', timeout: RENDER_TIMEOUT_MS });
        expect(response?.status()).toBe(200);
        await page.addScriptTag({ path: AXE_SCRIPT });
        const violations = await page.evaluate(async (tags) => {
          // Runs in the page: its globals, typed here (the test's own TypeScript has no DOM library).
          const scope = globalThis as unknown as {
            document: unknown;
            axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> };
          };
          const result = await scope.axe.run(scope.document, { runOnly: { type: 'tag', values: tags } });
          return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.length }));
        }, WCAG_TAGS);
        expect(violations, `${path} at ${viewport.width} px, ${colorScheme}`).toEqual([]);
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
