/**
 * A save that writes nothing after someone else saved the item, in every editor (compositions,
 * skills, personas, workflows, context cards): the form then shows the item as stored, and is
 * based on it, with a notice that says so (regression: "Nothing changed since version 2, so no
 * version was written." above a Description still holding version 1's text). The forms are sent
 * back as a browser sends them, every field as the page holds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { type ConsoleBrowser, type ConsolePage, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
let browser: ConsoleBrowser;
let key: string;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  const signedIn = await signedInBrowser(harness);
  browser = signedIn.browser;
  ({ key } = await harness.createKey(signedIn.accountId, { scopes: [...ALL_SCOPES] }));
});
afterAll(async () => {
  await harness.close();
});

function decoded(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
}

function attributesOf(tag: string): Map<string, string> {
  return new Map([...tag.matchAll(/\s([\w:.[\]-]+)(?:="([^"]*)")?/g)].map((match) => [match[1] ?? '', decoded(match[2] ?? '')]));
}

/** What the editor's form sends as it stands: its inputs (a checkbox when ticked), textareas and selects; no button. */
function editorForm(html: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*" class="stack editor">([\s\S]*?)<\/form>/.exec(html)?.[1];
  if (form === undefined) throw new Error('no editor form');
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input\b[^>]*>/g)) {
    const attributes = attributesOf(tag);
    const name = attributes.get('name');
    if (name === undefined || name === '_csrf' || (attributes.get('type') === 'checkbox' && !attributes.has('checked'))) continue;
    fields[name] = attributes.get('value') ?? '';
  }
  for (const [, name] of form.matchAll(/<textarea\b[^>]*\sname="([^"]*)"/g)) if (name !== undefined) fields[name] = textareaText(form, `name="${name}"`);
  for (const [, name, options] of form.matchAll(/<select\b[^>]*\sname="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    if (name === undefined || options === undefined) continue;
    const chosen = /<option\b[^>]*\sselected[^>]*>/.exec(options)?.[0] ?? /<option\b[^>]*>/.exec(options)?.[0] ?? '';
    fields[name] = attributesOf(chosen).get('value') ?? '';
  }
  return fields;
}

function successNotice(page: ConsolePage): string {
  return decoded(/<div class="notice notice-success"[^>]*>([\s\S]*?)<\/div>/.exec(page.html)?.[1] ?? '');
}

interface Editor {
  /** The console's section and the API's collection. */
  section: string;
  /** The fields a new one is created with in the console. */
  create: Record<string, string>;
  /** Where the console redirects after creating one. */
  created: RegExp;
  /** The field a colleague changes through the API, and one the author changes after. */
  field: string;
  other: string;
  /** The notice of a save that writes nothing after another edit. */
  notice: (version: number) => string;
}

const CATALOG_NOTICE = (version: number) =>
  `Nothing you changed differs from version ${version}, saved by another edit meanwhile, so no version was written; the form now shows version ${version}.`;
const EDITORS: Editor[] = [
  {
    section: 'compositions',
    create: { name: 'Noop composition', description: 'original', template: 'Hi {{x}}', 'variables[0].name': 'x', intent: 'save' },
    created: /^\/console\/compositions\/([0-9a-f-]{36})\?created=1$/,
    field: 'description',
    other: 'name',
    notice: CATALOG_NOTICE,
  },
  {
    section: 'skills',
    create: { name: 'Noop skill', description: 'original', instructions: 'Do {{x}}', intent: 'save' },
    created: /^\/console\/skills\/([0-9a-f-]{36})\?created=1$/,
    field: 'description',
    other: 'name',
    notice: CATALOG_NOTICE,
  },
  {
    section: 'personas',
    create: { name: 'Noop persona', description: 'original', content: 'You are terse.', intent: 'save' },
    created: /^\/console\/personas\/([0-9a-f-]{36})\?created=1$/,
    field: 'description',
    other: 'name',
    notice: CATALOG_NOTICE,
  },
  {
    section: 'workflows',
    create: { name: 'Noop workflow', description: 'original', definition: 'nodes:\n  - id: a\n    kind: template\n    template: hi\n', intent: 'save' },
    created: /^\/console\/workflows\/([0-9a-f-]{36})\?created=1$/,
    field: 'description',
    other: 'name',
    notice: CATALOG_NOTICE,
  },
  {
    section: 'context-cards',
    create: { title: 'Noop card', description: 'original', content: 'Facts.', tags: '' },
    created: /^\/console\/context-cards\/([0-9a-f-]{36})\?saved=1$/,
    field: 'description',
    other: 'title',
    notice: () => 'Nothing you changed differs from the card as saved by another edit meanwhile, so nothing was saved; the form now shows the card as saved.',
  },
];

async function create(editor: Editor): Promise<string> {
  await browser.get(`/console/${editor.section}/new`);
  const created = await browser.post(`/console/${editor.section}/new`, editor.create);
  const id = editor.created.exec(created.location ?? '')?.[1];
  if (id === undefined) throw new Error(`creating in ${editor.section} answered ${created.status}: ${created.html.slice(0, 500)}`);
  return id;
}

async function colleagueSets(editor: Editor, id: string, value: string): Promise<void> {
  const changed = await harness.api('PATCH', `/${editor.section}/${id}`, { key, body: { [editor.field]: value } });
  expect(changed.status, describeResponse(changed)).toBe(200);
}

describe('a save that writes nothing after another edit', () => {
  for (const editor of EDITORS) {
    it(`shows the ${editor.section} item as stored, based on it, and says so`, async () => {
      const id = await create(editor);
      const path = `/console/${editor.section}/${id}`;
      const opened = editorForm((await browser.get(path)).html);
      await colleagueSets(editor, id, 'changed by a colleague');

      const untouched = await browser.post(path, { ...opened, intent: 'save' });
      expect(untouched.status, untouched.html).toBe(200);
      expect(successNotice(untouched)).toBe(editor.notice(2));
      const shown = editorForm(untouched.html);
      expect(shown[editor.field]).toBe('changed by a colleague');
      if (editor.section !== 'context-cards') expect(untouched.html).toContain('Version 2, saved');

      // The form is based on what it shows: the colleague's next change is no conflict for an edit of another field, and stays.
      await colleagueSets(editor, id, 'changed again');
      const saved = await browser.post(path, { ...shown, [editor.other]: `Renamed ${editor.section}`, intent: 'save' });
      expect(saved.status, saved.html).toBe(303);
      const stored = await harness.api<Record<string, unknown>>('GET', `/${editor.section}/${id}`, { key });
      expect(stored.body.data[editor.field]).toBe('changed again');
      expect(stored.body.data[editor.other]).toBe(`Renamed ${editor.section}`);
    });
  }

  it('writes no version when the author’s change is the one another edit saved meanwhile, and shows that version', async () => {
    const skills = EDITORS.find((editor) => editor.section === 'skills');
    if (skills === undefined) throw new Error('no skills editor');
    const id = await create(skills);
    const path = `/console/skills/${id}`;
    const opened = editorForm((await browser.get(path)).html);
    await colleagueSets(skills, id, 'the same words');
    const same = await browser.post(path, { ...opened, description: 'the same words', intent: 'save' });
    expect(same.status, same.html).toBe(200);
    expect(successNotice(same)).toBe(CATALOG_NOTICE(2));
    const versions = await harness.api<{ items: unknown[] }>('GET', `/skills/${id}/versions`, { key });
    expect(versions.body.data.items).toHaveLength(2);
  });

  it('still says only that nothing changed when nobody else saved', async () => {
    const skills = EDITORS.find((editor) => editor.section === 'skills');
    if (skills === undefined) throw new Error('no skills editor');
    const id = await create(skills);
    const path = `/console/skills/${id}`;
    const untouched = await browser.post(path, { ...editorForm((await browser.get(path)).html), intent: 'save' });
    expect(successNotice(untouched)).toBe('Nothing changed since version 1, so no version was written.');
  });
});
