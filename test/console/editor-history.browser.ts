/**
 * The catalog editors and the browser's history, in Chromium: Back to an editor restores what was
 * typed only over the base it was typed on, so a later save never undoes another writer's version
 * (regression: the typed text came back beside the newer base, and "Saved as version 3" silently
 * undid version 2). And delete confirmations naming a long resource fit a phone's width.
 */
import type { Browser, Page } from 'playwright-core';
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

const NODES = (text: string) => [{ id: 'a', kind: 'template' as const, template: text }];

/** Makes items through a bundle (which fills in the optional fields) and answers the id of `ref` (`kind:key`). */
async function imported(h: Harness, account: string, ref: string, items: Record<string, unknown[]>): Promise<string> {
  const { ids } = await h.core.bundles.importBundle(account, { version: 1, ...items });
  const id = ids[ref];
  if (id === undefined) throw new Error(`${ref} was not imported`);
  return id;
}

/** Each editor: how to make an item, the field a writer changes, and another writer's save of it. */
const EDITORS = [
  {
    section: 'skills',
    field: 'instructions',
    create: (h: Harness, account: string) => imported(h, account, 'skill:it', { skills: [{ key: 'it', name: 'Back', instructions: 'v1' }] }),
    otherWriter: (h: Harness, account: string, id: string) => h.core.lifecycle.update(null, 'skill', account, id, { instructions: 'B from a client' }),
    typed: 'A typed',
    stored: async (h: Harness, account: string, id: string) => (await h.core.lifecycle.get('skill', account, id)).instructions,
  },
  {
    section: 'compositions',
    field: 'template',
    create: (h: Harness, account: string) => imported(h, account, 'composition:it', { compositions: [{ key: 'it', name: 'Back', template: 'v1 {{a}}' }] }),
    otherWriter: (h: Harness, account: string, id: string) => h.core.lifecycle.update(null, 'composition', account, id, { template: 'B from a client {{a}}' }),
    typed: 'A typed {{a}}',
    stored: async (h: Harness, account: string, id: string) => (await h.core.lifecycle.get('composition', account, id)).template,
  },
  {
    section: 'workflows',
    field: 'definition',
    create: (h: Harness, account: string) => imported(h, account, 'workflow:it', { workflows: [{ key: 'it', name: 'Back', nodes: NODES('v1') }] }),
    otherWriter: (h: Harness, account: string, id: string) => h.core.lifecycle.update(null, 'workflow', account, id, { nodes: NODES('B from a client') }),
    typed: 'nodes:\n  - id: a\n    kind: template\n    template: A typed\n',
    stored: async (h: Harness, account: string, id: string) => JSON.stringify((await h.core.lifecycle.get('workflow', account, id)).nodes),
  },
  {
    section: 'personas',
    field: 'content',
    create: (h: Harness, account: string) => imported(h, account, 'persona:it', { personas: [{ key: 'it', name: 'Back', content: 'v1' }] }),
    otherWriter: (h: Harness, account: string, id: string) => h.core.lifecycle.update(null, 'persona', account, id, { content: 'B from a client' }),
    typed: 'A typed',
    stored: async (h: Harness, account: string, id: string) => (await h.core.lifecycle.get('persona', account, id)).content,
  },
  {
    section: 'context-cards',
    field: 'content',
    create: async (h: Harness, account: string) => (await h.core.contextCards.create(account, { title: 'Back', content: 'v1', tags: [] })).id,
    otherWriter: (h: Harness, account: string, id: string) => h.core.contextCards.update(account, id, { content: 'B from a client' }),
    typed: 'A typed',
    stored: async (h: Harness, account: string, id: string) => (await h.core.contextCards.get(account, id)).content,
  },
] as const;

async function save(page: Page): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.locator('form.editor button[type=submit]').first().click()]);
}

async function awayAndBack(page: Page, meanwhile: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.locator('.breadcrumb a').click()]);
  await meanwhile();
  await page.goBack({ waitUntil: 'load' });
}

describe('Back to an editor', () => {
  it.each(EDITORS)('$section: after another writer saved, shows their text, and a save of another field keeps it', async (editor) => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const id = await editor.create(harness, accountId);
    await page.goto(`${harness.url}/console/${editor.section}/${id}`);
    await page.fill(`#f-${editor.field}`, editor.typed);
    await awayAndBack(page, () => editor.otherWriter(harness, accountId, id));
    expect(await page.inputValue(`#f-${editor.field}`)).toContain('B from a client');
    await page.fill('#f-description', 'a description');
    await save(page);
    expect(await editor.stored(harness, accountId, id)).toContain('B from a client');
    await context.close();
  });

  it('after a save of its own and another writer’s, does not write the older text back', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const id = await imported(harness, accountId, 'skill:it', { skills: [{ key: 'it', name: 'Saved', instructions: 'v1' }] });
    await page.goto(`${harness.url}/console/skills/${id}`);
    await page.fill('#f-instructions', 'A typed');
    await save(page);
    expect(page.url()).toContain('/versions?saved=2');
    await harness.core.lifecycle.update(null, 'skill', accountId, id, { instructions: 'B from a client' });
    await page.goBack({ waitUntil: 'load' });
    await page.fill('#f-description', 'a description');
    await save(page);
    expect(await harness.core.lifecycle.get('skill', accountId, id)).toMatchObject({ instructions: 'B from a client', description: 'a description' });
    await context.close();
  });

  it('when nobody saved meanwhile, still brings back what was typed, and saving it writes it', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const id = await imported(harness, accountId, 'skill:it', { skills: [{ key: 'it', name: 'Kept', instructions: 'v1' }] });
    await page.goto(`${harness.url}/console/skills/${id}`);
    await page.fill('#f-instructions', 'A typed');
    await awayAndBack(page, async () => undefined);
    expect(await page.inputValue('#f-instructions')).toBe('A typed');
    await save(page);
    expect(await harness.core.lifecycle.get('skill', accountId, id)).toMatchObject({ version: 2, instructions: 'A typed' });
    await context.close();
  });
});

describe('a form over the size limit', () => {
  it('says so, and Back returns to the editor with the text typed, as the page promises', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness);
    const id = await imported(harness, accountId, 'skill:big', { skills: [{ key: 'big', name: 'Big', instructions: 'v1' }] });
    await page.goto(`${harness.url}/console/skills/${id}`);
    const typed = 'x'.repeat(1024 * 1024 + 100);
    await page.fill('#f-instructions', typed);
    await save(page);
    expect(await page.locator('main').textContent()).toContain('Go back with the browser’s Back button: the form is still there with what you typed.');
    await page.goBack({ waitUntil: 'load' });
    expect((await page.inputValue('#f-instructions')).length).toBe(typed.length);
    await context.close();
  });
});

describe('delete confirmations at 390 px', () => {
  it('wrap a button naming a resource without spaces instead of scrolling the page sideways (regression)', async () => {
    const { context, page, accountId } = await signInWithChromium(browser, harness, { viewport: { width: 390, height: 844 } });
    const longName = 'W'.repeat(199);
    const workflowId = await imported(harness, accountId, 'workflow:long', { workflows: [{ key: 'long', name: longName, nodes: NODES('x') }] });
    const card = await harness.core.contextCards.create(accountId, { title: longName, content: 'x', tags: [] });
    for (const path of [`/console/workflows/${workflowId}/delete`, `/console/context-cards/${card.id}/delete`]) {
      await page.goto(`${harness.url}${path}`);
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(widths.scroll, path).toBeLessThanOrEqual(widths.client);
    }
    await context.close();
  });
});
