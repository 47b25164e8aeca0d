/**
 * The run pages in Chromium: run a composition in the playground, open its run, run a workflow
 * and read its trace, judge a prompt, scan a text, and see the overview's usage chart drawn (a
 * canvas from uPlot, fed by the page's JSON data block under the content security policy). Every
 * page passes axe and is photographed in four variants.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { describeViolations, launchChromium, screenshotVariants, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

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

async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(describeViolations(await seriousViolations(page)), where).toBe('');
}

/** `fields` by form name: `var.<variable>`, `input`, `context`. */
async function runInPlayground(page: Page, resource: string, fields: Record<string, string>): Promise<void> {
  await page.goto(`${harness.url}/console/playground`);
  await page.getByLabel('Resource').selectOption(resource);
  await page.getByRole('button', { name: 'Open' }).click();
  for (const [name, value] of Object.entries(fields)) await page.locator(`textarea[name="${name}"]`).fill(value);
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('#result').waitFor();
}

const DAY_MS = 86_400_000;
const RELEASE_FIELDS = Object.fromEntries(Object.entries(RELEASE_VARIABLES).map(([name, value]) => [`var.${name}`, value]));
const SCAN_TEXT = 'Hi, I am Ada (ada@example.com, +44 20 7946 0958).\nCard 4111 1111 1111 1111, key AKIAIOSFODNN7EXAMPLE.';

describe('run pages in a browser', () => {
  it('runs a composition, opens its run, runs a workflow, judges, scans, and draws the usage chart; every page passes axe', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;

    await runInPlayground(page, `composition:${ids['composition:release-notes']}`, RELEASE_FIELDS);
    expect(await page.locator('#result pre').first().textContent()).toContain('Write release notes for Porch version 1.2.');
    await expectAccessible(page, 'playground with a result');

    await page.getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    expect(await page.locator('h1').textContent()).toBe('Run of composition Release notes');
    // The operation wraps after its underscore, if at all, never inside a word (regression: "execute_compositio" / "n").
    const operationLines = await page.locator('.facts code', { hasText: 'execute_' }).evaluate((code) =>
      [...code.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => {
          const range = document.createRange();
          range.selectNodeContents(node);
          return { text: node.textContent, lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size };
        }),
    );
    expect(operationLines).toEqual([
      { text: 'execute_', lines: 1 },
      { text: 'composition', lines: 1 },
    ]);
    await expectAccessible(page, 'run detail');

    await runInPlayground(page, `workflow:${ids['workflow:release-announcement']}`, RELEASE_FIELDS);
    expect(await page.locator('#result table caption').textContent()).toBe('Per-node trace');
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByLabel('Kind').selectOption('workflow');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await expectAccessible(page, 'runs list');

    await page.getByRole('link', { name: 'Judge' }).click();
    await page.getByLabel('Prompt').fill('Write a poem.');
    await page.getByRole('button', { name: 'Judge' }).click();
    await page.locator('#result').waitFor();
    await expectAccessible(page, 'judge');

    await page.getByRole('link', { name: 'Sanitiser' }).click();
    await page.getByLabel('Text', { exact: true }).fill(SCAN_TEXT);
    await page.getByLabel('Also show the redacted text').check();
    await page.getByRole('button', { name: 'Scan' }).click();
    expect(await page.locator('mark.finding').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('#redacted-text').textContent()).toContain('[EMAIL_1]');
    await expectAccessible(page, 'sanitiser');

    // The usage range ends now, exclusive; the manual clock has not moved since the runs.
    harness.clock.advance(60_000);
    const cspErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') cspErrors.push(message.text());
    });
    await page.goto(`${harness.url}/console`);
    await page.locator('[data-usage-chart="tokens"] canvas').waitFor();
    await page.locator('[data-usage-chart="credits"] canvas').waitFor();
    expect(cspErrors).toEqual([]);
    await expectAccessible(page, 'overview with chart');
    await context.close();
  });

  it('on a phone, a run brings its result into view with the focus on it, and a reload reopens the resource without running it (regression: below the fold; bare playground)', async () => {
    const viewport = { width: 390, height: 800 };
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport });
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const resource = `composition:${ids['composition:release-notes']}`;
    await runInPlayground(page, resource, RELEASE_FIELDS);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('result-heading');
    const heading = await page.locator('#result-heading').boundingBox();
    expect(heading, 'the result heading is laid out').not.toBeNull();
    expect(heading?.y).toBeGreaterThanOrEqual(0);
    expect(heading?.y).toBeLessThan(viewport.height);
    expect(page.url()).toBe(`${harness.url}/console/playground?resource=${encodeURIComponent(resource)}`);

    // A reload that sent the form again would show a result again.
    await page.reload();
    expect(await page.locator('#result').count()).toBe(0);
    expect(await page.locator('textarea[name="var.product"]').count()).toBe(1);

    // The judge's verdict, below its form too, takes the focus the same way.
    await page.goto(`${harness.url}/console/judge`);
    await page.getByLabel('Prompt').fill('Write a poem.');
    await page.getByRole('button', { name: 'Judge' }).click();
    await page.locator('#result').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('judged-heading');
    await context.close();
  });

  it('photographs the playground, runs, run detail, judge, sanitiser and overview', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    await runInPlayground(page, `workflow:${ids['workflow:release-announcement']}`, RELEASE_FIELDS);
    await page.getByRole('link', { name: 'Open the run' }).click();
    const workflowRun = page.url();
    await runInPlayground(page, `persona:${ids['persona:plain-editor']}`, { input: 'Make this plainer: we leverage synergies.' });
    // A few earlier days of usage over the API, so the chart has bars on more than one day. The
    // clock goes back for them and then returns: moving it days ahead would end the session.
    const { key } = await harness.createKey(accountId);
    const present = harness.clock.now();
    const counts = [3, 1, 4, 2];
    for (const [day, count] of counts.entries()) {
      harness.clock.set(present - (counts.length - day) * DAY_MS);
      for (let run = 0; run <= count; run += 1) {
        const path = run % 2 === 0 ? `/compositions/${ids['composition:release-notes']}/execute` : `/skills/${ids['skill:summarise']}/execute`;
        const body =
          run % 2 === 0
            ? { variables: RELEASE_VARIABLES }
            : { input: `Day ${day}: ${'a longer text to summarise '.repeat(10 * run)}`, variables: { bullets: 3 } };
        expect((await harness.api('POST', path, { key, body })).status).toBe(200);
      }
    }
    harness.clock.set(present + 60_000);

    const shots: Array<[string, (shot: Page) => Promise<void>]> = [
      ['playground', (shot) => runInPlayground(shot, `composition:${ids['composition:release-notes']}`, RELEASE_FIELDS)],
      ['runs', (shot) => shot.goto(`${harness.url}/console/runs`).then(() => undefined)],
      ['run-detail', (shot) => shot.goto(workflowRun).then(() => undefined)],
      [
        'judge',
        async (shot) => {
          await shot.goto(`${harness.url}/console/judge`);
          await shot.getByLabel('Prompt').fill('You are a support agent. Answer the customer in two sentences.');
          await shot.getByRole('button', { name: 'Judge' }).click();
          await shot.locator('#result').waitFor();
        },
      ],
      [
        'sanitiser',
        async (shot) => {
          await shot.goto(`${harness.url}/console/sanitiser`);
          await shot.getByLabel('Text', { exact: true }).fill(SCAN_TEXT);
          await shot.getByLabel('Also show the redacted text').check();
          await shot.getByRole('button', { name: 'Scan' }).click();
          await shot.locator('#result').waitFor();
        },
      ],
      [
        'overview-chart',
        async (shot) => {
          await shot.goto(`${harness.url}/console`);
          await shot.locator('[data-usage-chart="credits"] canvas').waitFor();
        },
      ],
    ];
    for (const [name, open] of shots) {
      await screenshotVariants(context, name, async (shot) => {
        await open(shot);
        await expectAccessible(shot, name);
      });
    }
    await context.close();
  });
});
