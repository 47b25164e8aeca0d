/**
 * The catalog editors' fields over real HTTP, after a black-box review: the base an editor's form
 * is keyed by, a workflow's YAML refusing keys that are not its definition (the same on create and
 * update), problems inside a field (one tag) shown at that field, a variable's default merged
 * beside another tab's new placeholder, the warning on a persona card's category, the oversized
 * form's advice, and the key form's scope message tied to its checkboxes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPathWithin, messagesAt, shownBelow } from '../../src/console/pages/catalog/form-parts.js';
import { type ConsoleBrowser, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
let browser: ConsoleBrowser;
let accountId: string;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  ({ browser, accountId } = await signedInBrowser(harness));
});
afterAll(async () => {
  await harness.close();
});

/** The hidden base an editor page carries, as a browser sends it back. */
function baseOf(html: string): string {
  const value = /<input type="hidden" name="base" value="([^"]*)"/.exec(html)?.[1];
  if (value === undefined) throw new Error('no base in the editor');
  return value.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

/** The action of the editor's form. */
function actionOf(html: string): string {
  const action = /<form method="post" action="([^"]*)" class="stack editor"/.exec(html)?.[1];
  if (action === undefined) throw new Error('no editor form');
  return action;
}

/** The start tag of the element with this id. */
function tagWithId(html: string, id: string): string {
  return new RegExp(`<[a-z]+ [^>]*id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
}

const NODES = 'nodes:\n  - id: a\n    kind: template\n    template: hi\n';

describe('the key of an editor form (regression: Back restored typed text beside a newer base, and a save undid another writer)', () => {
  it('names the base in the action’s fragment, which changes when someone else saves, and is absent on a new item’s form', async () => {
    const created = await browser.post('/console/skills/new', { name: 'Keyed', instructions: 'v1', intent: 'save' });
    const path = (created.location ?? '').replace('?created=1', '');
    const first = await browser.get(path);
    expect(actionOf(first.html)).toMatch(new RegExp(`^${path}#base-[\\w-]{16}$`));
    expect(actionOf((await browser.get(path)).html)).toBe(actionOf(first.html));
    const id = path.split('/').at(-1) ?? '';
    await harness.core.lifecycle.update(null, 'skill', accountId, id, { instructions: 'v2 from a client' });
    expect(actionOf((await browser.get(path)).html)).not.toBe(actionOf(first.html));
    expect(actionOf((await browser.get('/console/skills/new')).html)).toBe('/console/skills/new');

    await browser.get('/console/context-cards/new');
    const card = await browser.post('/console/context-cards/new', { title: 'Keyed card', content: 'v1', tags: '' });
    const cardPath = (card.location ?? '').replace('?saved=1', '');
    const cardPage = await browser.get(cardPath);
    expect(actionOf(cardPage.html)).toMatch(new RegExp(`^${cardPath}#base-[\\w-]{16}$`));
    await harness.core.contextCards.update(accountId, cardPath.split('/').at(-1) ?? '', { content: 'v2 from a client' });
    expect(actionOf((await browser.get(cardPath)).html)).not.toBe(actionOf(cardPage.html));
  });
});

describe('a workflow definition’s keys (regression: a name: line won on create and was dropped on update)', () => {
  it('refuses name and description lines on create, at the Definition field with their lines, naming the fields to use', async () => {
    await browser.get('/console/workflows/new');
    const before = (await browser.get('/console/workflows')).html;
    const definition = `name: YAML name\ndescription: yaml desc\n${NODES}`;
    const refused = await browser.post('/console/workflows/new', { name: 'Form name', definition, intent: 'save' });
    expect(refused.status, refused.html).toBe(400);
    const errors = /<ul class="field-errors" id="f-definition-errors">([\s\S]*?)<\/ul>/.exec(refused.html)?.[1] ?? '';
    expect(errors).toContain('Line 1, “name” belongs in the Name field above, not in the definition');
    expect(errors).toContain('Line 2, “description” belongs in the Description field above, not in the definition');
    expect(tagWithId(refused.html, 'f-definition')).toContain('aria-invalid="true"');
    expect(refused.html).toContain('Each problem is shown at its field below.');
    expect(textareaText(refused.html, 'name="definition"')).toBe(definition);
    expect((await browser.get('/console/workflows')).html).not.toContain('YAML name');
    expect((await browser.get('/console/workflows')).html).toBe(before);
  });

  it('refuses an unknown key alike on create and update, never as an internal "arguments" message, and writes nothing', async () => {
    const definition = `foo: 1\n${NODES}`;
    const onCreate = await browser.post('/console/workflows/new', { name: 'Unknown key', definition, intent: 'save' });
    expect(onCreate.status).toBe(400);
    expect(onCreate.html).not.toContain('arguments');
    expect(onCreate.html).toContain(
      'Line 1, “foo” is not part of the definition, which holds only variables, nodes and outputs (Name, Description and Category have fields above)',
    );

    const created = await browser.post('/console/workflows/new', { name: 'Upd', description: 'orig', definition: NODES, intent: 'save' });
    const path = (created.location ?? '').replace('?created=1', '');
    const page = await browser.get(path);
    const base = baseOf(page.html);
    for (const typed of [`name: Renamed in yaml\n${NODES.replace('hi', 'changed')}`, `foo: 1\n${NODES.replace('hi', 'changed')}`]) {
      const onUpdate = await browser.post(path, { name: 'Upd', description: 'orig', definition: typed, base, intent: 'save' });
      expect(onUpdate.status, onUpdate.html).toBe(400);
      expect(onUpdate.html).toMatch(/id="f-definition-errors"><li>Line 1, “(name|foo)” (belongs in the Name field|is not part of the definition)/);
    }
    const stored = await harness.core.lifecycle.get('workflow', accountId, path.split('/').at(-1) ?? '');
    expect(stored).toMatchObject({ version: 1, name: 'Upd' });

    // Drawing the graph says the same as a save would.
    const drawn = await browser.post(path, { name: 'Upd', definition, base, intent: 'preview' });
    expect(drawn.html).toContain('Line 1, “foo” is not part of the definition');
  });
});

describe('problems inside a field (regression: a too long tag was shown at no field, though the notice said it was)', () => {
  const longTag = 'x'.repeat(70);
  it.each([
    ['composition', '/console/compositions/new', { name: 'Tagged', template: 'Hi', tags: `ok, ${longTag}`, intent: 'save' }],
    ['persona', '/console/personas/new', { name: 'Tagged', content: 'Hi', tags: `ok, ${longTag}`, intent: 'save' }],
    ['context card', '/console/context-cards/new', { title: 'Tagged', content: 'Hi', tags: `ok, ${longTag}` }],
  ])('a %s shows tags[1]’s message at Tags, marked invalid and described by it', async (_kind, path, fields) => {
    await browser.get(path);
    const refused = await browser.post(path, fields);
    expect(refused.status, refused.html).toBe(400);
    expect(refused.html).toContain('tags[1]: must be at most 64 characters');
    const input = tagWithId(refused.html, 'f-tags');
    expect(input).toContain('aria-invalid="true"');
    expect(input).toMatch(/aria-describedby="[^"]*f-tags-errors/);
    expect(refused.html).toMatch(/id="f-tags-errors"><li>must be at most 64 characters/);
    expect(refused.html).toContain('Each problem is shown at its field below.');
  });

  it('a field shows the problems at its path and inside it, and the notice claims only what is shown', () => {
    const issues = [
      { path: 'tags[1]', message: 'too long' },
      { path: 'tagsmore', message: 'another field' },
      { path: null, message: 'the whole request' },
    ];
    expect(isPathWithin('variables[0].name', 'variables[0]')).toBe(true);
    expect(messagesAt(issues, 'tags')).toEqual(['too long']);
    const shown = (path: string) => isPathWithin(path, 'tags');
    expect(shownBelow(issues.slice(0, 1), shown)).toBe(' Each problem is shown at its field below.');
    expect(shownBelow(issues, shown)).toBe(' 1 of these 3 problems is also shown at its field below.');
    expect(shownBelow(issues.slice(1), shown)).toBe('');
  });
});

describe('variables of a composition edited in two tabs', () => {
  const fields = { name: 'Vars', description: '', tags: '', model: '' };
  async function opened(): Promise<{ path: string; id: string }> {
    await browser.get('/console/compositions/new');
    const created = await browser.post('/console/compositions/new', {
      ...fields,
      template: 'Hi {{a}}',
      'variables[0].name': 'a',
      'variables[0].required': 'on',
      intent: 'save',
    });
    const path = (created.location ?? '').replace('?created=1', '');
    return { path, id: path.split('/').at(-1) ?? '' };
  }

  it('keeps a default set in one tab beside the placeholder the other added to the template (regression: refused as a Variables conflict)', async () => {
    const { path, id } = await opened();
    const tabA = baseOf((await browser.get(path)).html);
    const tabB = baseOf((await browser.get(path)).html);
    const savedA = await browser.post(path, {
      ...fields,
      template: 'Hi {{a}} and {{b}}',
      'variables[0].name': 'a',
      'variables[0].required': 'on',
      base: tabA,
      intent: 'save',
    });
    expect(savedA.status, savedA.html).toBe(303);
    const savedB = await browser.post(path, {
      ...fields,
      template: 'Hi {{a}}',
      'variables[0].name': 'a',
      'variables[0].default': 'DEF',
      base: tabB,
      intent: 'save',
    });
    expect(savedB.status, savedB.html).toBe(303);
    const stored = await harness.core.lifecycle.get('composition', accountId, id);
    expect(stored.template).toBe('Hi {{a}} and {{b}}');
    expect(stored.variables.map((variable) => [variable.name, variable.required, variable.default ?? null])).toEqual([
      ['a', false, 'DEF'],
      ['b', true, null],
    ]);
  });

  it('still refuses, naming the variable, when both tabs changed the same variable', async () => {
    const { path } = await opened();
    const tabA = baseOf((await browser.get(path)).html);
    const tabB = baseOf((await browser.get(path)).html);
    const row = (value: string) => ({ template: 'Hi {{a}}', 'variables[0].name': 'a', 'variables[0].default': value });
    expect((await browser.post(path, { ...fields, ...row('from A'), base: tabA, intent: 'save' })).status).toBe(303);
    const refused = await browser.post(path, { ...fields, ...row('from B'), base: tabB, intent: 'save' });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('version 2 was saved with another variable a;');
    expect(refused.html).toContain('value="from B"');
  });

  it('a variable removed in one tab stays removed when the other changes another variable', async () => {
    await browser.get('/console/compositions/new');
    const created = await browser.post('/console/compositions/new', {
      ...fields,
      template: 'Hi {{a}}',
      'variables[0].name': 'a',
      'variables[1].name': 'spare',
      'variables[1].default': 'x',
      intent: 'save',
    });
    const path = (created.location ?? '').replace('?created=1', '');
    const tabA = baseOf((await browser.get(path)).html);
    const tabB = baseOf((await browser.get(path)).html);
    const both = { 'variables[0].name': 'a', 'variables[1].name': 'spare', 'variables[1].default': 'x' };
    expect((await browser.post(path, { ...fields, template: 'Hi {{a}}', 'variables[0].name': 'a', base: tabA, intent: 'save' })).status).toBe(303);
    const savedB = await browser.post(path, { ...fields, template: 'Hi {{a}}', ...both, 'variables[0].default': 'DEF', base: tabB, intent: 'save' });
    expect(savedB.status, savedB.html).toBe(303);
    const stored = await harness.core.lifecycle.get('composition', accountId, path.split('/').at(-1) ?? '');
    expect(stored.variables.map((variable) => [variable.name, variable.default ?? null])).toEqual([['a', 'DEF']]);
  });
});

describe('a persona card’s category', () => {
  it('warns, at Category, that changing it removes the persona; a card of another category has no warning', async () => {
    await browser.get('/console/context-cards/new');
    const persona = await browser.post('/console/context-cards/new', { title: 'Coach', content: 'You coach.', category: 'persona', tags: '' });
    const personaPath = (persona.location ?? '').replace('?saved=1', '');
    const page = await browser.get(personaPath);
    expect(page.html).toMatch(/id="f-category-hint">Careful: this card is a persona. Changing its category from &quot;persona&quot; removes the persona/);
    expect(tagWithId(page.html, 'f-category')).toContain('aria-describedby="f-category-hint"');
    // Shown again with a refused save of the card.
    const refused = await browser.post(personaPath, {
      title: 'Coach',
      content: 'You coach.',
      category: 'persona',
      tags: 'y'.repeat(70),
      base: baseOf(page.html),
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Careful: this card is a persona.');

    const plain = await browser.post('/console/context-cards/new', { title: 'Tone', content: 'Be brief.', category: 'style', tags: '' });
    expect((await browser.get((plain.location ?? '').replace('?saved=1', ''))).html).not.toContain('Careful: this card is a persona.');
  });
});

describe('a form over the size limit (regression: "Something went wrong" with no advice)', () => {
  it('says the limit in words, that nothing was saved, and that Back returns to the form with its text', async () => {
    await browser.get('/console/skills/new');
    const huge = await browser.post('/console/skills/new', { name: 'Big', instructions: 'x'.repeat(1024 * 1024 + 10), intent: 'save' });
    expect(huge.status).toBe(413);
    expect(huge.html).toContain('The form is larger than the console accepts (1 MB of text in all), so nothing was saved.');
    expect(huge.html).toContain('Go back with the browser’s Back button: the form is still there with what you typed.');
  });
});

describe('the key form’s scopes (regression: the message was tied to no checkbox)', () => {
  it('describes the scopes’ group by the message and marks each box invalid', async () => {
    const { browser: keys } = await signedInBrowser(harness);
    await keys.get('/console/settings/api-access');
    const refused = await keys.post('/console/settings/api-access/keys', { name: 'no scopes' });
    expect(refused.status, refused.html.slice(0, 500)).toBe(400);
    expect(refused.html).toMatch(/id="f-scopes-errors"><li>must name at least one scope/);
    expect(refused.html).toContain('<fieldset aria-describedby="f-scopes-errors">');
    expect(refused.html).toMatch(/<input type="checkbox" name="scopes" value="read:workflow" aria-invalid="true"/);
  });
});
