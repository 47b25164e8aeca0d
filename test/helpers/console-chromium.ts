/**
 * Porch's pages in a real browser (Debian's Chromium through playwright-core): launching it,
 * checking a page with axe-core, signing in to the console as a person would, and taking the four
 * screenshots every console page gets (1280 and 390 px wide, light and dark) into
 * docs/screenshots/console/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Harness } from './harness.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
export const SCREENSHOT_FOLDER = join(new URL('../..', import.meta.url).pathname, 'docs', 'screenshots', 'console');
/**
 * Screenshots are written only when asked (`npm run screenshots`), so a test run leaves the
 * committed ones alone; every variant is still opened and checked either way.
 */
const UPDATE_SCREENSHOTS = process.env.PORCH_UPDATE_SCREENSHOTS === '1';
const LAUNCH_TIMEOUT_MS = 20_000;

export const VIEWPORTS = [
  { name: 'wide', width: 1280, height: 900 },
  { name: 'narrow', width: 390, height: 844 },
] as const;
export const COLOR_SCHEMES = ['light', 'dark'] as const;

export function chromiumPath(): string {
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

export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'], timeout: LAUNCH_TIMEOUT_MS });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** The serious and critical WCAG A/AA violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, which the page's content security policy does not
  // govern: a <script> tag would be refused by it (as it should be), and bypassing the policy for
  // the whole page would hide our own violations.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values: tags } })).violations;
  }, WCAG_TAGS);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Human-readable violations for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`)
    .join('\n');
}

/**
 * A browser context signed in as a new account: the operator's invite link, a password chosen on
 * the set-password page, then the sign-in form, all through the real pages.
 */
export async function signInWithChromium(
  browser: Browser,
  harness: Pick<Harness, 'url' | 'core' | 'createAccount'>,
  options: { plan?: 'expert' | 'builder' | 'free'; colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; accountId: string; email: string; password: string }> {
  const email = `chromium-${Math.random().toString(36).slice(2)}@example.com`;
  const password = 'a password long enough';
  const { accountId } = await harness.createAccount({ plan: options.plan ?? 'expert', email, credits: 1000 });
  const link = await harness.core.consoleSessions.issueLink({ account: await harness.core.accounts.accountByEmail(email), purpose: 'invite' });
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${harness.url}/console/set-password?token=${link.token}`);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Repeat it').fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(/\/console\/sign-in/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${harness.url}/console`, { timeout: 5_000 }).catch(async (err: unknown) => {
    throw new Error(`sign-in did not reach the overview (at ${page.url()}): ${(await page.locator('main').textContent()) ?? ''}`, { cause: err });
  });
  return { context, page, accountId, email, password };
}

/**
 * One page in the four variants (checked by `open`), photographed as
 * `<name>-<wide|narrow>-<light|dark>.png` when PORCH_UPDATE_SCREENSHOTS=1; otherwise opened and
 * checked in two (wide light, narrow dark). The files written.
 * `open` brings a fresh page (in a context of the given size and scheme) to the state to capture.
 */
export async function screenshotVariants(context: BrowserContext, name: string, open: (page: Page) => Promise<void>): Promise<string[]> {
  if (UPDATE_SCREENSHOTS) mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const files: string[] = [];
  for (const viewport of VIEWPORTS) {
    for (const scheme of COLOR_SCHEMES) {
      // Without screenshots to take, each scheme and each width is checked once (wide light,
      // narrow dark): the colours do not change with the width, and the suite has a time budget.
      if (!UPDATE_SCREENSHOTS && (viewport.name === 'wide') !== (scheme === 'light')) continue;
      const page = await context.newPage();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.emulateMedia({ colorScheme: scheme });
      await open(page);
      const file = join(SCREENSHOT_FOLDER, `${name}-${viewport.name}-${scheme}.png`);
      if (UPDATE_SCREENSHOTS) {
        await page.screenshot({ path: file, fullPage: true });
        files.push(file);
      }
      await page.close();
    }
  }
  return files;
}
