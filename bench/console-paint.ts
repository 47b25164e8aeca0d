/**
 * How fast the console paints on loopback (issue target: first meaningful paint under 1 s).
 * Starts Porch as `npm start` does (from dist/), signs in through the real pages in Chromium, then
 * loads each page in a fresh browser context (nothing cached) and in a warm one, reading the
 * browser's own First Contentful Paint and load timings. The very first console request of a
 * process (which loads the console door) is reported on its own.
 *
 * Run: npm run build && tsx bench/console-paint.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { benchPorchEnv, children, PORCH_READY, startProcess, stopProcess } from './bench-processes.js';

const LOADS_PER_PAGE = 10;
const PAGES = ['/console/sign-in', '/console', '/console/settings/api-access'] as const;

function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
}

async function paintTimings(page: Page): Promise<{ fcp: number; load: number }> {
  return page.evaluate(async () => {
    // The paint entry may be delivered after the load event: wait for it (buffered) a little.
    const fcp = await new Promise<number>((resolve) => {
      new PerformanceObserver((list) => {
        const entry = list.getEntriesByName('first-contentful-paint')[0];
        if (entry) resolve(entry.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => resolve(Number.NaN), 3_000);
    });
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    return { fcp, load: navigation?.loadEventEnd ?? Number.NaN };
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(0)}`;

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'porch-console-paint-'));
  const configPath = join(directory, 'porch.config.yaml');
  writeFileSync(configPath, '{}\n');
  const env = benchPorchEnv(directory, 'porch.db', configPath, 'unused');
  const porch = (...args: string[]) => execFileSync(process.execPath, ['dist/cli/index.js', ...args], { env, encoding: 'utf8' });
  porch('db', 'init');
  porch('account', 'create', '--email', 'paint@example.com', '--plan', 'expert', '--credits', '10');
  const server = await startProcess(process.execPath, ['--max-semi-space-size=8', 'dist/cli/index.js', 'serve'], env, PORCH_READY);
  const link = (JSON.parse(porch('account', 'invite', 'paint@example.com', '--json')) as { url: string }).url.replace(/^https?:\/\/[^/]+/, server.url);
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
  try {
    // The first console request of the process loads the door (pages, assets, their compression).
    const first = await browser.newPage();
    const firstStarted = performance.now();
    await first.goto(`${server.url}/console/sign-in`, { waitUntil: 'load' });
    const firstLoadMs = performance.now() - firstStarted;
    const firstTimings = await paintTimings(first);
    await first.close();

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('New password').fill('a password long enough');
    await page.getByLabel('Repeat it').fill('a password long enough');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/sign-in/);
    await page.getByLabel('Email').fill('paint@example.com');
    await page.getByLabel('Password').fill('a password long enough');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/console`);
    const cookies = await context.cookies();

    const rows: string[] = [];
    for (const path of PAGES) {
      const cold: number[] = [];
      const coldLoad: number[] = [];
      const warm: number[] = [];
      for (let load = 0; load < LOADS_PER_PAGE; load++) {
        // Cold: a new context has no cache, so every asset is fetched (compressed) again.
        const fresh = await browser.newContext();
        await fresh.addCookies(cookies);
        const coldPage = await fresh.newPage();
        await coldPage.goto(`${server.url}${path}`, { waitUntil: 'load' });
        const timings = await paintTimings(coldPage);
        cold.push(timings.fcp);
        coldLoad.push(timings.load);
        await fresh.close();
        await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
        warm.push((await paintTimings(page)).fcp);
      }
      rows.push(
        `| \`${path}\` | ${ms(percentile(cold, 50))} / ${ms(percentile(cold, 90))} | ${ms(percentile(coldLoad, 50))} | ${ms(percentile(warm, 50))} / ${ms(percentile(warm, 90))} |`,
      );
    }
    console.log(`First console page of a new process (loads the door): ${firstLoadMs.toFixed(0)} ms to load, FCP ${ms(firstTimings.fcp)} ms\n`);
    console.log(`| Page | FCP cold p50 / p90 (ms) | load cold p50 (ms) | FCP warm p50 / p90 (ms) |`);
    console.log('|---|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await browser.close();
    await stopProcess(server.process);
    for (const child of children) child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
