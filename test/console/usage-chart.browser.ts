/**
 * The overview's usage chart in Chromium set to time zones away from UTC: its days are UTC days,
 * as its captions and tables say, so every date tick sits on a UTC midnight (where the bars are)
 * and names that UTC day. Regression: the axis was drawn in the browser's zone, so in
 * America/Los_Angeles each bar sat before its day's tick and in Pacific/Kiritimati the labels
 * named the next day.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { describeViolations, launchChromium, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

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

/** What the test reads of each uPlot drawn on the page: the x axis's ticks (Unix seconds) and their labels. */
interface DrawnAxis {
  ticks: number[];
  labels: string[];
}

describe('the usage chart’s date axis', () => {
  it('is drawn in UTC whatever the browser’s time zone (regression: ticks a day off west and east of UTC)', async () => {
    const { context: signInContext, accountId } = await signInWithChromium(browser, harness);
    const cookies = await signInContext.cookies();
    await signInContext.close();
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    // Usage on three earlier days: the clock goes back for them and returns (days ahead would end the session).
    const { key } = await harness.createKey(accountId);
    const present = harness.clock.now();
    for (const daysAgo of [5, 3, 1]) {
      harness.clock.set(present - daysAgo * DAY_MS);
      const ran = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
      expect(ran.status).toBe(200);
    }
    harness.clock.set(present + 60_000);

    for (const timezoneId of ['America/Los_Angeles', 'Pacific/Kiritimati']) {
      const context = await browser.newContext({ timezoneId, viewport: { width: 1280, height: 900 } });
      await context.addCookies(cookies);
      // Keeps each uPlot the page makes, to read its axis (the page's script has no handle to give).
      await context.addInitScript(() => {
        const kept: unknown[] = [];
        let original: unknown;
        Object.defineProperty(window, 'uPlot', {
          configurable: true,
          get: () => original,
          set(value: new (...args: unknown[]) => unknown) {
            const wrapped = function (this: unknown, ...args: unknown[]) {
              const plot = new value(...args);
              kept.push(plot);
              return plot;
            };
            Object.assign(wrapped, value);
            original = wrapped;
          },
        });
        Object.defineProperty(window, 'keptPlots', { value: kept });
      });
      const page = await context.newPage();
      await page.goto(`${harness.url}/console`);
      await page.locator('[data-usage-chart="credits"] canvas').waitFor();
      const axes = await page.evaluate(() => {
        const plots = (window as unknown as { keptPlots: Array<{ axes: Array<{ _splits: number[]; _values: string[] }> }> }).keptPlots;
        return plots.map((plot) => ({ ticks: [...(plot.axes[0]?._splits ?? [])], labels: [...(plot.axes[0]?._values ?? [])] }));
      });
      expect(axes.length, timezoneId).toBe(2);
      for (const axis of axes as DrawnAxis[]) {
        expect(axis.ticks.length, timezoneId).toBeGreaterThan(0);
        axis.ticks.forEach((tick, index) => {
          const utc = new Date(tick * 1000);
          expect(tick % DAY_S, `${timezoneId}: tick ${utc.toISOString()} is not a UTC midnight`).toBe(0);
          expect(axis.labels[index], `${timezoneId}: the label of ${utc.toISOString()}`).toMatch(
            new RegExp(`^${utc.getUTCMonth() + 1}/${utc.getUTCDate()}(\\n|$)`),
          );
        });
      }
      expect(describeViolations(await seriousViolations(page)), timezoneId).toBe('');
      await context.close();
    }
  });
});
