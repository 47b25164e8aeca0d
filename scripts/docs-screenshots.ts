/**
 * Screenshots of the docs site for docs/screenshots/: a page at 1280 and 390 px wide in both
 * colour schemes, the search with results open, and the 404 page. Uses the same Chromium as
 * `npm run test:browser` (CHROMIUM_PATH, else /usr/bin/chromium).
 *   npx tsx scripts/docs-screenshots.ts
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { PACKAGE_ROOT } from '../src/rest/discovery/package-root.js';
import { createHarness } from '../test/helpers/harness.js';

const OUTPUT = join(PACKAGE_ROOT, 'docs', 'screenshots');
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;

interface Shot {
  name: string;
  path: string;
  viewport: keyof typeof WIDTHS;
  scheme: 'light' | 'dark';
  search?: string;
  openSidebar?: boolean;
}

const SHOTS: Shot[] = [
  { name: 'docs-configuration-1280-light', path: '/docs/configuration', viewport: 'desktop', scheme: 'light' },
  { name: 'docs-configuration-1280-dark', path: '/docs/configuration', viewport: 'desktop', scheme: 'dark' },
  { name: 'docs-quick-start-390-light', path: '/docs/quick-start', viewport: 'phone', scheme: 'light' },
  { name: 'docs-errors-390-dark', path: '/docs/errors', viewport: 'phone', scheme: 'dark' },
  { name: 'docs-sidebar-390-dark', path: '/docs/byok', viewport: 'phone', scheme: 'dark', openSidebar: true },
  { name: 'docs-search-1280-dark', path: '/docs/quick-start', viewport: 'desktop', scheme: 'dark', search: 'strict byok' },
  { name: 'docs-search-390-light', path: '/docs', viewport: 'phone', scheme: 'light', search: 'backup' },
  { name: 'docs-404-1280-light', path: '/no-such-page', viewport: 'desktop', scheme: 'light' },
];

mkdirSync(OUTPUT, { recursive: true });
const harness = await createHarness();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  for (const shot of SHOTS) {
    const page = await browser.newPage({ viewport: WIDTHS[shot.viewport], colorScheme: shot.scheme });
    await page.goto(`${harness.url}${shot.path}`, { waitUntil: 'networkidle' });
    if (shot.openSidebar) await page.locator('details.sidebar summary').click();
    if (shot.search) {
      await page.locator('#search-input').fill(shot.search);
      await page.locator('#search-results li').first().waitFor();
    }
    await page.screenshot({ path: join(OUTPUT, `${shot.name}.png`) });
    process.stdout.write(`wrote docs/screenshots/${shot.name}.png\n`);
    await page.close();
  }
} finally {
  await browser.close();
  await harness.close();
}
