/**
 * The walk of issue 19, in one go in Chromium, as an account holder does it: the operator's
 * invite link → choose a password → sign in → create a key → call the API with it over HTTP →
 * create and edit a composition → version 2 appears → run it in the playground → promote it to
 * production → roll back → sign out. Each area's own browser test checks its pages in depth.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signInWithChromium } from '../helpers/console-chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';

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

/** Some fifteen page loads and an execution; generous for a busy machine. */
const WALK_TIMEOUT_MS = 120_000;

describe('the account holder walk', () => {
  it(
    'invite → password → sign in → key used over HTTP → composition edited to v2 → run in the playground → promoted → rolled back → signed out',
    async () => {
      const { context, page } = await signInWithChromium(browser, harness);

      await page.getByRole('link', { name: 'API access' }).click();
      await page.getByLabel('Name').fill('walk key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.locator('#new-key').textContent()) ?? '';
      const listed = await harness.api<{ items: unknown[] }>('GET', '/compositions', { key });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.items).toEqual([]);

      await page.getByRole('link', { name: 'Compositions' }).click();
      await page.getByRole('link', { name: 'New composition' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Greeting');
      await page.getByLabel('Template', { exact: true }).fill('Say hello to {{name}}.');
      await page.getByRole('button', { name: 'Create composition' }).click();
      await page.getByText('Created as version 1.').waitFor();
      const compositionId = /\/console\/compositions\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
      await page.getByLabel('Template', { exact: true }).fill('Say a warm hello to {{name}}.');
      await page.getByRole('button', { name: 'Save as a new version' }).click();
      await page.getByText('Saved as version 2.').waitFor();
      expect(await page.getByRole('rowheader', { name: 'v2' }).count()).toBe(1);
      // The API sees what the console wrote.
      const versions = await harness.api<{ items: Array<{ version: number }> }>('GET', `/compositions/${compositionId}/versions`, { key });
      expect(versions.body.data.items.map((item) => item.version).sort()).toEqual([1, 2]);

      await page.goto(`${harness.url}/console/playground`);
      await page.getByLabel('Resource').selectOption(`composition:${compositionId}`);
      await page.getByRole('button', { name: 'Open' }).click();
      await page.locator('textarea[name="var.name"]').fill('Ada');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.locator('#result').waitFor();
      expect(await page.locator('#result pre').first().textContent()).toContain('Say a warm hello to Ada.');

      await page.goto(`${harness.url}/console/compositions/${compositionId}/versions`);
      await page.getByRole('button', { name: 'Promote v2 to production' }).click();
      await page.getByText('production now names version 2').waitFor();
      await page.getByRole('button', { name: 'Roll back production to v1' }).click();
      await page.getByText('production now names version 1').waitFor();
      // An execution without a version now runs version 1 again, over the API too.
      const executed = await harness.api<{ content: string; version: number }>('POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: { name: 'Ada' } },
      });
      expect(executed.status, executed.text).toBe(200);
      expect(executed.body.data.version).toBe(1);
      expect(executed.body.data.content).toContain('Say hello to Ada.');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/console\/sign-in/);
      await page.goto(`${harness.url}/console/compositions`);
      expect(page.url()).toContain('/console/sign-in?next=');
      await context.close();
    },
    WALK_TIMEOUT_MS,
  );
});
