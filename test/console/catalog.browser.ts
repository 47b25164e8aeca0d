/**
 * The catalog in Chromium: create a composition, edit it (version 2 appears), promote version 2
 * to production, roll production back to version 1; a workflow with its DAG. Every catalog page
 * passes axe (no serious or critical WCAG A/AA violation) and four are photographed in four variants.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeViolations, launchChromium, screenshotVariants, seriousViolations, signInWithChromium } from '../helpers/console-chromium.js';
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

const WORKFLOW_YAML = `variables:
  - name: topic
    required: true
nodes:
  - id: outline
    kind: template
    template: "Outline an article about {{topic}}."
  - id: facts
    kind: template
    template: "Facts about {{topic}}."
  - id: draft
    kind: template
    template: "Write a draft from {{outline}} using {{facts}}."
  - id: title
    kind: template
    template: "A title for {{draft}}"
`;

/** Some twenty pages, each checked by axe (and sixteen screenshots): more than the default budget on a busy machine. */
const WALK_TIMEOUT_MS = 180_000;

async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
  expect(describeViolations(await seriousViolations(page)), where).toBe('');
}

/** Elements that reach past the right edge of the viewport: what makes a phone's page scroll sideways. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return document.documentElement.scrollWidth <= width
      ? []
      : [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > width + 1)
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
  });
}

describe('the catalog at 390 px', () => {
  it('never scrolls the page sideways: not the lists, nor an editor holding a name without spaces (regression)', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: { width: 390, height: 844 } });
    const longName = `Quarterly${'-release'.repeat(20)}`;
    const card = await harness.core.contextCards.create(accountId, { title: longName, content: 'x' });
    const { ids } = await harness.core.bundles.importBundle(accountId, {
      version: 1,
      compositions: [{ key: 'long', name: longName, template: 'Hi {{who}}' }],
      skills: [{ key: 'skill', name: 'Summarise', instructions: 'Summarise.' }],
    });
    for (const path of [
      '/console/compositions',
      '/console/skills',
      '/console/personas',
      '/console/workflows',
      '/console/context-cards',
      `/console/context-cards/${card.id}`,
      `/console/compositions/${ids['composition:long']}`,
    ]) {
      await page.goto(`${harness.url}${path}`);
      expect(await overflowing(page), path).toEqual([]);
    }
    await context.close();
  });

  it('lets a graph wider than the screen scroll from the keyboard (regression: axe scrollable-region-focusable)', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: { width: 390, height: 844 } });
    const branches = Array.from({ length: 12 }, (_, index) => ({ id: `branch${index}`, kind: 'template', template: `Part ${index}` }));
    const join = { id: 'join', kind: 'template', template: branches.map((branch) => `{{${branch.id}}}`).join(' ') };
    const { ids } = await harness.core.bundles.importBundle(accountId, { version: 1, workflows: [{ key: 'wide', name: 'Wide', nodes: [...branches, join] }] });
    await page.goto(`${harness.url}/console/workflows/${ids['workflow:wide']}`);
    const figure = page.locator('.dag-figure');
    expect(await figure.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    await expectNoSeriousViolations(page, 'wide workflow graph');
    await figure.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => figure.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    await context.close();
  });
});

describe('the editor when the session ends', () => {
  it('says so where the live preview would update, keeping what was typed (regression: the preview silently stopped)', async () => {
    const { context, page } = await signInWithChromium(browser, harness);
    await page.goto(`${harness.url}/console/compositions/new`);
    await page.getByLabel('Template', { exact: true }).fill('Hello {{who}}');
    await page.locator('#composition-preview').getByText('Detected variables: who.').waitFor();
    await context.clearCookies();
    await page.getByLabel('Template', { exact: true }).fill('Hello {{who}} and {{whom}}');
    await page.getByText('Your session has ended, so this part stopped updating.').waitFor();
    expect(await page.getByLabel('Template', { exact: true }).inputValue()).toBe('Hello {{who}} and {{whom}}');
    await context.close();
  });
});

describe('the catalog in a browser', () => {
  it(
    'edits a composition, sees version 2, promotes it to production and rolls back, with a workflow DAG; every page passes axe',
    async () => {
      const { context, page } = await signInWithChromium(browser, harness);
      await page.getByRole('link', { name: 'Compositions' }).click();
      await expectNoSeriousViolations(page, 'empty composition list');
      await page.getByRole('link', { name: 'New composition' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Release notes');
      await page.getByLabel('Description', { exact: true }).fill('Notes for a product release, in the house style.');
      await page.getByLabel('Template', { exact: true }).fill('Write release notes for {{product}} version {{version}}.\nKeep them short.');
      // The live preview (htmx) follows the template as it is typed.
      await page.locator('#composition-preview').getByText('Detected variables: product, version.').waitFor();
      await expectNoSeriousViolations(page, 'new composition editor');
      await page.getByRole('button', { name: 'Create composition' }).click();
      await page.getByText('Created as version 1.').waitFor();
      const itemUrl = page.url().replace(/\?.*$/, '');
      await expectNoSeriousViolations(page, 'composition editor');

      await page
        .getByLabel('Template', { exact: true })
        .fill('Write short release notes for {{product}} version {{version}}.\nKeep them short.\nEnd with a thank-you.');
      await page.getByRole('button', { name: 'Save as a new version' }).click();
      await page.getByText('Saved as version 2.').waitFor();
      expect(await page.getByRole('rowheader', { name: 'v2' }).count()).toBe(1);
      expect(await page.locator('table.diff caption').textContent()).toMatch(/Version 1 → version 2: \d+ lines added, \d+ removed/);
      expect(await page.locator('tr.diff-added').filter({ hasText: 'End with a thank-you.' }).count()).toBe(1);
      expect(await page.locator('tr.diff-removed').filter({ hasText: 'Write release notes for' }).count()).toBe(1);
      await expectNoSeriousViolations(page, 'history with diff');

      await page.getByRole('button', { name: 'Promote v2 to production' }).click();
      await page.getByText('production now names version 2').waitFor();
      await page.getByRole('button', { name: 'Roll back production to v1' }).click();
      await page.getByText('production now names version 1').waitFor();
      expect(await page.locator('.label-list').textContent()).toContain('production → v1');
      await expectNoSeriousViolations(page, 'history after roll back');

      await page.getByRole('link', { name: 'View v1' }).click();
      await page.getByText('Release notes, version 1').waitFor();
      await expectNoSeriousViolations(page, 'one version');
      await page.goto(`${itemUrl}/delete`);
      await expectNoSeriousViolations(page, 'delete confirmation');

      await page.goto(`${harness.url}/console/workflows/new`);
      await page.getByLabel('Name', { exact: true }).fill('Article pipeline');
      await page.getByLabel('Description', { exact: true }).fill('Outline, facts, draft and title.');
      await page.getByLabel(/^Definition/).fill(WORKFLOW_YAML);
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await page.getByText('Created as version 1.').waitFor();
      expect(await page.locator('svg[role="img"] title').textContent()).toBe('Workflow graph of Article pipeline');
      expect(await page.locator('.dag-node').count()).toBe(4);
      await expectNoSeriousViolations(page, 'workflow editor with DAG');

      for (const section of ['skills', 'personas', 'workflows', 'context-cards']) {
        await page.goto(`${harness.url}/console/${section}`);
        await expectNoSeriousViolations(page, `${section} list`);
        await page.goto(`${harness.url}/console/${section}/new`);
        await expectNoSeriousViolations(page, `${section} editor`);
      }
      await page.goto(`${harness.url}/console/workflows/new`);
      await page.getByLabel('Name', { exact: true }).fill('Broken pipeline');
      await page.getByLabel(/^Definition/).fill(WORKFLOW_YAML.replace('{{facts}}', '{{fact}}'));
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await page.locator('#f-definition-errors').getByText('nodes[2].template').waitFor();
      await expectNoSeriousViolations(page, 'workflow editor with a validation message');
      await context.close();
    },
    WALK_TIMEOUT_MS,
  );

  it(
    'photographs the list, the composition editor, the workflow editor with its DAG and the history with a diff',
    async () => {
      const { context, page } = await signInWithChromium(browser, harness);
      const create = async (path: string, fields: Record<string, string>, button: string) => {
        await page.goto(`${harness.url}${path}`);
        for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
        await page.getByRole('button', { name: button }).click();
        await page.getByText('Created as version 1.').waitFor();
        return page.url().replace(/\?.*$/, '');
      };
      const composition = await create(
        '/console/compositions/new',
        {
          Name: 'Release notes',
          Description: 'Notes for a product release.',
          Tags: 'docs, release',
          Template: 'Write release notes for {{product}} version {{version}}.',
        },
        'Create composition',
      );
      await create(
        '/console/compositions/new',
        { Name: 'Support reply', Description: 'A friendly answer to a support ticket.', Template: 'Answer {{ticket}} kindly.' },
        'Create composition',
      );
      await page.goto(composition);
      await page.getByLabel('Template', { exact: true }).fill('Write short release notes for {{product}} version {{version}}.\nEnd with a thank-you.');
      await page.getByRole('button', { name: 'Save as a new version' }).click();
      await page.getByText('Saved as version 2.').waitFor();
      await page.getByRole('button', { name: 'Promote v2 to production' }).click();
      await page.getByText('production now names version 2').waitFor();
      const workflow = await create(
        '/console/workflows/new',
        { Name: 'Article pipeline', Description: 'Outline, facts, draft and title.', 'Definition (YAML: variables, nodes, outputs)': WORKFLOW_YAML },
        'Create workflow',
      );

      const shots: Array<[string, string]> = [
        ['catalog-list', '/console/compositions'],
        ['catalog-composition-editor', composition.replace(harness.url, '')],
        ['catalog-workflow-editor', workflow.replace(harness.url, '')],
        ['catalog-history', `${composition.replace(harness.url, '')}/versions`],
      ];
      for (const [name, path] of shots) {
        await screenshotVariants(context, name, async (shot) => {
          await shot.goto(`${harness.url}${path}`);
          await expectNoSeriousViolations(shot, path);
        });
      }
      await context.close();
    },
    WALK_TIMEOUT_MS,
  );
});
