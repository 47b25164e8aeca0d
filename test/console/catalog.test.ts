/**
 * The console's catalog pages over real HTTP: lists with search, create, edit (a new version),
 * diff, labels, roll back, delete, validation messages at the field they name, and another
 * account's items answering 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { PorchError } from '../../src/core/errors.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
let browser: ConsoleBrowser;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  ({ browser } = await signedInBrowser(harness));
});
afterAll(async () => {
  await harness.close();
});

const COMPOSITION = {
  name: 'Release notes',
  description: 'Notes for a release',
  tags: 'docs, release',
  template: 'Write release notes for {{product}} version {{version}}.',
  'variables[0].name': 'product',
  'variables[0].required': 'on',
  'variables[1].name': 'version',
  'variables[1].default': '1.0',
};

/** Creates a composition through the editor and answers its id. */
async function createComposition(fields: Record<string, string> = COMPOSITION): Promise<string> {
  await browser.get('/console/compositions/new');
  const created = await browser.post('/console/compositions/new', { ...fields, intent: 'save' });
  expect(created.status, created.html).toBe(303);
  const id = /\/console\/compositions\/([0-9a-f-]{36})\?created=1$/.exec(created.location ?? '')?.[1];
  if (id === undefined) throw new Error(`no id in ${created.location}`);
  return id;
}

describe('composition editor', () => {
  it('creates a composition as version 1 and lists it, found by search', async () => {
    const id = await createComposition();
    const page = await browser.get(`/console/compositions/${id}?created=1`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Created as version 1.');
    expect(page.html).toContain('Write release notes for {{product}}');
    const list = await browser.get('/console/compositions?q=release');
    expect(list.html).toContain(`/console/compositions/${id}`);
    // One is counted in the singular (regression: "1 compositions").
    expect((await browser.get('/console/compositions')).html).toMatch(/<caption class="muted">\s*1 composition\s*<\/caption>/);
    const miss = await browser.get('/console/compositions?q=nothing-matches-this');
    expect(miss.html).not.toContain(`/console/compositions/${id}`);
    expect(miss.html).toContain('No compositions match');
  });

  it('editing writes version 2, shown in the history with a diff of added and removed lines', async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}`);
    const saved = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'Write short release notes for {{product}}.', intent: 'save' });
    expect(saved.status, saved.html).toBe(303);
    expect(saved.location).toBe(`/console/compositions/${id}/versions?saved=2`);
    const history = await browser.get(saved.location ?? '');
    expect(history.html).toContain('Saved as version 2.');
    expect(history.html).toMatch(/<th scope="row" role="rowheader">v2<\/th>/);
    expect(history.html).toContain('Version 1 → version 2: 1 line added, 1 removed');
    expect(history.html).toMatch(/diff-removed[\s\S]*Removed[\s\S]*Write release notes for \{\{product\}\} version/);
    expect(history.html).toMatch(/diff-added[\s\S]*Added[\s\S]*Write short release notes/);
  });

  it("stores a textarea's CRLF line breaks (as browsers send them) as LF", async () => {
    const id = await createComposition({ ...COMPOSITION, template: 'Line one {{product}}\r\nLine two {{version}}' });
    const page = await browser.get(`/console/compositions/${id}/versions`);
    expect(page.status).toBe(200);
    const { accountId } = { accountId: (await harness.core.accounts.accountByEmail(emailOf(page.html))).id };
    const stored = await harness.core.lifecycle.get('composition', accountId, id);
    expect(stored.template).toBe('Line one {{product}}\nLine two {{version}}');
  });

  it('keeps the line breaks of text nobody touched: stored CRLFs and a leading blank line survive a save of another field (regression: rewritten on every save)', async () => {
    const id = await createComposition();
    const page = await browser.get(`/console/compositions/${id}`);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf(page.html))).id;
    const template = '\n\nWrite release notes\r\nfor {{product}} version {{version}}.';
    const description = '\nNotes\r\nfor a release';
    await harness.core.lifecycle.update(null, 'composition', accountId, id, { template, description });

    const editor = await browser.get(`/console/compositions/${id}`);
    // What a browser reads from the page, and sends back with its line breaks as CRLF.
    const shown = (attribute: string) => textareaText(editor.html, attribute).replace(/\r?\n/g, '\r\n');
    expect(textareaText(editor.html, 'name="template"')).toBe(template);
    const fields = { ...COMPOSITION, template: shown('name="template"'), description: shown('name="description"'), base: baseOf(editor.html) };
    const untouched = await browser.post(`/console/compositions/${id}`, { ...fields, intent: 'save' });
    expect(untouched.html).toContain('Nothing changed since version 2, so no version was written.');

    const renamed = await browser.post(`/console/compositions/${id}`, { ...fields, name: 'Renamed notes', intent: 'save' });
    expect(renamed.status, renamed.html).toBe(303);
    expect(await harness.core.lifecycle.get('composition', accountId, id)).toMatchObject({ version: 3, name: 'Renamed notes', template, description });
  });

  it('keeps the edits of an item deleted since its page was opened, in a form that creates it again (regression: an error page, the edits lost)', async () => {
    const id = await createComposition();
    const editor = await browser.get(`/console/compositions/${id}`);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf(editor.html))).id;
    await harness.core.lifecycle.delete('composition', accountId, id);
    const saved = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, name: 'Rescued notes', base: baseOf(editor.html), intent: 'save' });
    expect(saved.status).toBe(404);
    expect(saved.html).toContain('This composition no longer exists');
    expect(saved.html).toContain('value="Rescued notes"');
    expect(saved.html).toContain('action="/console/compositions/new"');
  });

  it('an emptied Model field puts the composition back on the default model (regression: the old model stayed)', async () => {
    const id = await createComposition({ ...COMPOSITION, model: 'echo/echo' });
    await browser.get(`/console/compositions/${id}`);
    const saved = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, model: '', intent: 'save' });
    expect(saved.status, saved.html).toBe(303);
    const page = await browser.get(`/console/compositions/${id}/versions`);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf(page.html))).id;
    const version = (number: number) => harness.core.lifecycle.getVersion('composition', accountId, id, number);
    expect((await version(1)).definition).toMatchObject({ model: 'echo/echo' });
    expect((await version(2)).definition).not.toHaveProperty('model');
  });

  it("shows one version's definition; a version that does not exist answers the operation's 404", async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}`);
    await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'Second {{product}}', intent: 'save' });
    const first = await browser.get(`/console/compositions/${id}/versions/1`);
    expect(first.status).toBe(200);
    expect(first.html).toContain('Release notes, version 1');
    expect(first.html).toContain('template: Write release notes for {{product}} version {{version}}.');
    const missing = await browser.get(`/console/compositions/${id}/versions/9`);
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('its versions are 1 to 2');
    // A comparison of versions it does not have names them and compares the default pair (regression: the page was a 404).
    const compared = await browser.get(`/console/compositions/${id}/versions?from=abc&to=99`);
    expect(compared.status).toBe(200);
    expect(compared.html).toContain('There is no version “abc” or “99” of this composition (versions 1 to 2); comparing v1 and v2 instead.');
    expect(compared.html).toContain('Version 1 → version 2');
  });

  it('says a version compared with itself is the same one, and offers it beside its neighbour (regression: "only one version")', async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}`);
    await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'Second {{product}}', intent: 'save' });
    const same = await browser.get(`/console/compositions/${id}/versions?from=2&to=2`);
    expect(same.status).toBe(200);
    expect(same.html).not.toContain('Only one version');
    expect(same.html).toContain('From and To are both v2: pick two different versions above');
    expect(same.html).toContain(`href="/console/compositions/${id}/versions?from=1&amp;to=2"`);
    const first = await browser.get(`/console/compositions/${id}/versions?from=1&to=1`);
    expect(first.html).toContain(`href="/console/compositions/${id}/versions?from=1&amp;to=2"`);
    // An item with one version still says so.
    const single = await browser.get(`/console/compositions/${await createComposition()}/versions`);
    expect(single.html).toContain('Only one version to show: save a change to compare.');
  });

  it('detects undeclared variables and previews the template with sample values', async () => {
    await browser.get('/console/compositions/new');
    const preview = await browser.post('/console/compositions/new', {
      name: 'Greeting',
      template: 'Hello {{who}}, welcome to {{place}}.',
      'variables[0].name': 'who',
      'variables[0].sample': 'Ada',
      intent: 'preview',
    });
    expect(preview.status).toBe(200);
    expect(preview.html).toContain('Detected variables: who, place.');
    expect(preview.html).toContain('Hello Ada, welcome to ‹place›.');
    expect(preview.html).toContain('name="variables[1].name" value="place"');
    const live = await browser.post('/console/compositions/preview', { template: 'Hi {{who}}', 'variables[0].name': 'who', 'variables[0].sample': 'Grace' });
    expect(live.status).toBe(200);
    expect(live.html).not.toContain('<html');
    expect(live.html).toContain('Hi Grace');
  });

  it('drops, on detecting, the rows of variables the template no longer uses, and flags them until then (regression: kept and still required)', async () => {
    const edited = { name: 'Greeting', template: 'Only {{who}} now', 'variables[0].name': 'who', 'variables[1].name': 'what', 'variables[1].required': 'on' };
    const saved = await browser.post('/console/compositions/new', { ...edited, intent: 'save' });
    const page = await browser.get(new URL(saved.location ?? '', 'http://x').pathname);
    expect(page.html).toContain('not in the template');
    const detected = await browser.post('/console/compositions/new', { ...edited, intent: 'preview' });
    expect(detected.html).toContain('name="variables[0].name" value="who"');
    expect(detected.html).not.toContain('value="what"');
    expect(detected.html).not.toContain('not in the template');
  });

  it('shows a validation message at the field it names and keeps what was typed', async () => {
    await browser.get('/console/compositions/new');
    const refused = await browser.post('/console/compositions/new', { ...COMPOSITION, name: '', 'variables[0].name': '9bad', intent: 'save' });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/<input type="text" value id="f-name" name="name"[^>]*aria-invalid="true"[^>]*aria-describedby="f-name-errors"/);
    expect(refused.html).toMatch(/<ul class="field-errors" id="f-name-errors"><li>must not be empty<\/li>/);
    expect(refused.html).toMatch(/id="f-variables-0-name-errors"><li>must start with a letter/);
    expect(refused.html).toContain('Write release notes for {{product}}');
  });
});

describe('labels, roll back and delete', () => {
  it('promotes version 2 to production, then rolls production back to version 1', async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}`);
    await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, description: 'changed', intent: 'save' });
    await browser.get(`/console/compositions/${id}/versions`);
    const promoted = await browser.post(`/console/compositions/${id}/labels`, { label: 'production', version: '2' });
    expect(promoted.status, promoted.html).toBe(200);
    expect(promoted.html).toContain('production now names version 2.');
    expect((await harness.core.lifecycle.get('composition', (await harness.core.accounts.accountByEmail(emailOf(promoted.html))).id, id)).labels).toMatchObject(
      {
        production: 2,
      },
    );
    const rolledBack = await browser.post(`/console/compositions/${id}/rollback`, { version: '1' });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.html).toContain('production now names version 1');
    expect(rolledBack.html).toContain('production → v1');
    const moved = await browser.post(`/console/compositions/${id}/labels`, { label: 'staging', version: '2' });
    expect(moved.html).toContain('staging → v2');
    const removed = await browser.post(`/console/compositions/${id}/labels/staging/remove`, {});
    expect(removed.html).toContain('Removed the label staging.');
    expect(removed.html).not.toContain('staging → v2');
  });

  it('refuses a bad label name with the operation’s message', async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}/versions`);
    await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'Second {{product}}', intent: 'save' });
    await browser.get(`/console/compositions/${id}/versions`);
    const refused = await browser.post(`/console/compositions/${id}/labels`, { label: 'Not A Label', version: '1' });
    expect(refused.status).toBe(400);
    // At the field, with what was typed and the version chosen kept (regression: both reset).
    expect(refused.html).toMatch(/id="label-name-errors"><li>must be 1-32 lowercase letters/);
    expect(refused.html).toContain('value="Not A Label"');
    expect(refused.html).toMatch(/<option value="1" selected>v1<\/option>/);
    // The page's own address replaces the action's, so a reload reads the page (regression: it sent the form again).
    expect(refused.html).toContain(`data-address="/console/compositions/${id}/versions"`);
    const set = await browser.post(`/console/compositions/${id}/labels`, { label: 'beta', version: '1' });
    expect(set.html).toContain(`data-address="/console/compositions/${id}/versions"`);
  });

  it('deletes after the confirmation page; the item then answers 404', async () => {
    const id = await createComposition();
    const confirm = await browser.get(`/console/compositions/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Delete Release notes?');
    const deleted = await browser.post(`/console/compositions/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe('/console/compositions?deleted=1');
    expect((await browser.get(deleted.location ?? '')).html).toContain('Deleted the composition.');
    expect((await browser.get(`/console/compositions/${id}`)).status).toBe(404);
    // The notice is a flag: words in the address never reach the page (regression: any text shown as a success).
    const spoofed = await browser.get('/console/compositions?deleted=your%20account.%20Sign%20in%20at%20evil.example');
    expect(spoofed.html).not.toContain('evil.example');
    expect(spoofed.html).not.toContain('Deleted');
  });

  it("another account's composition answers the 404 page, and its actions change nothing", async () => {
    const id = await createComposition();
    const other = (await signedInBrowser(harness)).browser;
    const page = await other.get(`/console/compositions/${id}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('was not found');
    expect((await other.get(`/console/compositions/${id}/versions`)).status).toBe(404);
    await other.get('/console/compositions');
    expect((await other.post(`/console/compositions/${id}/delete`, {})).status).toBe(404);
    expect((await other.post(`/console/compositions/${id}/labels`, { label: 'production', version: '1' })).status).toBe(404);
    expect((await browser.get(`/console/compositions/${id}`)).status).toBe(200);
  });
});

describe('workflows', () => {
  const WORKFLOW_YAML = `variables:
  - name: topic
    required: true
nodes:
  - id: outline
    kind: template
    template: "Outline {{topic}}"
  - id: draft
    kind: template
    template: "Draft from {{outline}}"
`;

  it('creates a workflow from YAML and draws its DAG with a title, a description and the edges as text', async () => {
    await browser.get('/console/workflows/new');
    const created = await browser.post('/console/workflows/new', { name: 'Article', definition: WORKFLOW_YAML, intent: 'save' });
    expect(created.status, created.html).toBe(303);
    const page = await browser.get(created.location ?? '');
    expect(page.html).toMatch(/<svg role="img" aria-labelledby="dag-title dag-desc"/);
    expect(page.html).toContain('<title id="dag-title">Workflow graph of Article</title>');
    expect(page.html).toContain('2 nodes and 1 edges');
    expect(page.html).toMatch(/<li><code>outline<\/code> → <code>draft<\/code><\/li>/);
  });

  it('draws the graph of a draft without saving it', async () => {
    await browser.get('/console/workflows/new');
    const drawn = await browser.post('/console/workflows/new', { name: 'Draft only', definition: WORKFLOW_YAML, intent: 'preview' });
    expect(drawn.status).toBe(200);
    expect(drawn.html).toContain('<title id="dag-title">Workflow graph of Draft only</title>');
    expect((await browser.get('/console/workflows?q=draft only')).html).toContain('No workflows match');
  });

  it('draws nothing for an invalid definition but says why, at its field and line, as a save would (regression: no message until saving)', async () => {
    await browser.get('/console/workflows/new');
    const broken = WORKFLOW_YAML.replace('Draft from {{outline}}', 'Draft from {{outlin}}');
    const drawn = await browser.post('/console/workflows/new', { name: 'Broken', definition: broken, intent: 'preview' });
    expect(drawn.html).toMatch(/<li>Line 10, <code>nodes\[1\]\.template<\/code>: [^<]*outlin/);
    const notYaml = await browser.post('/console/workflows/new', { name: 'Broken', definition: 'nodes: [', intent: 'preview' });
    expect(notYaml.html).toMatch(/id="f-definition-errors"><li>not valid YAML/);
    expect((await browser.get('/console/workflows?q=broken')).html).toContain('No workflows match');
  });

  it('shows the validation message of a node at its path, with its YAML line', async () => {
    await browser.get('/console/workflows/new');
    const broken = WORKFLOW_YAML.replace('Draft from {{outline}}', 'Draft from {{outlin}}');
    const refused = await browser.post('/console/workflows/new', { name: 'Broken', definition: broken, intent: 'save' });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/<li>Line 10, <code>nodes\[1\]\.template<\/code>: [^<]*outlin/);
    expect(refused.html).toMatch(/<textarea[^>]*aria-invalid="true"[^>]*aria-describedby="[^"]*f-definition-errors"/);
    const notYaml = await browser.post('/console/workflows/new', { name: 'Broken', definition: 'nodes: [', intent: 'save' });
    expect(notYaml.status).toBe(400);
    expect(notYaml.html).toMatch(/id="f-definition-errors"><li>not valid YAML/);
    // Where, then what, as one sentence (regression: cut after "at line 3, column 1:").
    const misaligned = await browser.post('/console/workflows/new', { name: 'Broken', definition: 'nodes:\n  - id: a\n kind: template\n', intent: 'save' });
    expect(misaligned.html).toContain('not valid YAML. Line 3, column 1: all mapping items must start at the same column.');
  });
});

describe('skills, personas and context cards', () => {
  it('creates and edits a skill (version 2) and a persona', async () => {
    await browser.get('/console/skills/new');
    const skill = await browser.post('/console/skills/new', { name: 'Summarise', instructions: 'Summarise the input.', intent: 'save' });
    expect(skill.status, skill.html).toBe(303);
    const skillPath = (skill.location ?? '').replace('?created=1', '');
    await browser.get(skillPath);
    const edited = await browser.post(skillPath, { name: 'Summarise', instructions: 'Summarise the input in one line.', intent: 'save' });
    expect(edited.location).toBe(`${skillPath}/versions?saved=2`);
    await browser.get('/console/personas/new');
    const persona = await browser.post('/console/personas/new', { name: 'Pirate', content: 'You talk like a pirate.', emoji: '🏴‍☠️', intent: 'save' });
    expect(persona.status, persona.html).toBe(303);
    expect((await browser.get('/console/personas?q=pirate')).html).toContain('Pirate');
  });

  it('creates, edits, searches and deletes a context card', async () => {
    await browser.get('/console/context-cards/new');
    const refused = await browser.post('/console/context-cards/new', { title: 'Style guide', content: '' });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="f-content-errors"><li>must not be empty/);
    const created = await browser.post('/console/context-cards/new', { title: 'Style guide', content: 'Use British spelling.', tags: 'style' });
    expect(created.status, created.html).toBe(303);
    const path = (created.location ?? '').replace('?saved=1', '');
    await browser.get(path);
    const saved = await browser.post(path, { title: 'House style', content: 'Use British spelling.', tags: 'style' });
    expect(saved.status).toBe(303);
    expect((await browser.get('/console/context-cards?q=house')).html).toContain('House style');
    const deleted = await browser.post(`${path}/delete`, {});
    expect(deleted.location).toBe('/console/context-cards?deleted=1');
    expect((await browser.get(deleted.location ?? '')).html).toContain('Deleted the context card.');
    expect((await browser.get('/console/context-cards?deleted=evil.example')).html).not.toContain('evil.example');
    expect((await browser.get(path)).status).toBe(404);
  });
});

/** The hidden base an editor page carries, as a browser sends it back. */
function baseOf(html: string): string {
  const value = /<input type="hidden" name="base" value="([^"]*)"/.exec(html)?.[1];
  if (value === undefined) throw new Error('no base in the editor');
  return value.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

describe('two editors of one item (regression: the second save undid the first)', () => {
  it('keeps both changes when each tab changed a different field', async () => {
    const id = await createComposition();
    const tabA = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const tabB = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const templateB = 'B wrote this for {{product}} {{version}}.';
    expect((await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: templateB, base: tabB, intent: 'save' })).status).toBe(303);
    const savedA = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, description: 'A wrote this', base: tabA, intent: 'save' });
    expect(savedA.status, savedA.html).toBe(303);
    expect(savedA.location).toBe(`/console/compositions/${id}/versions?saved=3`);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf((await browser.get('/console')).html))).id;
    const newest = await harness.core.lifecycle.get('composition', accountId, id);
    expect(newest).toMatchObject({ version: 3, template: templateB, description: 'A wrote this' });
  });

  it('refuses, naming the field, when both changed the same field; the refused edit is kept and a second save keeps it', async () => {
    const id = await createComposition();
    const tabA = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const tabB = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'B: {{product}} {{version}}', base: tabB, intent: 'save' });
    const refused = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'A: {{product}} {{version}}', base: tabA, intent: 'save' });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('Since you opened this page, version 2 was saved with another Template; saving yours would undo that change.');
    expect(refused.html).toContain('A: {{product}} {{version}}');
    const again = await browser.post(`/console/compositions/${id}`, {
      ...COMPOSITION,
      template: 'A: {{product}} {{version}}',
      base: baseOf(refused.html),
      intent: 'save',
    });
    expect(again.location).toBe(`/console/compositions/${id}/versions?saved=3`);
  });

  it('keeps another tab’s change of a variable when this one only adds a placeholder to the template (regression: a false Variables conflict)', async () => {
    const id = await createComposition();
    const tabA = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const tabB = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const savedA = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, 'variables[1].default': '2.0', base: tabA, intent: 'save' });
    expect(savedA.status, savedA.html).toBe(303);
    const template = 'Write release notes for {{product}} version {{version}}. Ref {{ref}}.';
    const savedB = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template, base: tabB, intent: 'save' });
    expect(savedB.status, savedB.html).toBe(303);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf((await browser.get('/console')).html))).id;
    const newest = await harness.core.lifecycle.get('composition', accountId, id);
    expect(newest.template).toBe(template);
    expect(newest.variables.map((variable) => [variable.name, variable.default ?? null])).toEqual([
      ['product', null],
      ['version', '2.0'],
      ['ref', null],
    ]);
  });

  it('writes no version when nothing changed', async () => {
    const id = await createComposition();
    const base = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const unchanged = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, base, intent: 'save' });
    expect(unchanged.status).toBe(200);
    expect(unchanged.html).toContain('Nothing changed since version 1, so no version was written.');
    expect((await browser.get(`/console/compositions/${id}/versions`)).html).not.toMatch(/<th scope="row" role="rowheader">v2<\/th>/);
  });

  it('merges a workflow whose YAML one tab changed and whose description the other did', async () => {
    await browser.get('/console/workflows/new');
    const definition = 'nodes:\n  - id: a\n    kind: template\n    template: "one"\n';
    const created = await browser.post('/console/workflows/new', { name: 'Pair', definition, intent: 'save' });
    const path = (created.location ?? '').replace('?created=1', '');
    const tabA = baseOf((await browser.get(path)).html);
    const page = await browser.get(path);
    const tabB = baseOf(page.html);
    const shownYaml = textareaText(page.html, 'name="definition"');
    expect(
      (await browser.post(path, { name: 'Pair', definition: shownYaml.replace('template: one', 'template: two'), base: tabB, intent: 'save' })).status,
    ).toBe(303);
    const savedA = await browser.post(path, { name: 'Pair', description: 'from A', definition: shownYaml, base: tabA, intent: 'save' });
    expect(savedA.status, savedA.html).toBe(303);
    const html = (await browser.get(path)).html;
    expect(html).toContain('from A');
    expect(html).toContain('template: two');
  });

  it('keeps both changes to a context card, which has no versions', async () => {
    await browser.get('/console/context-cards/new');
    const created = await browser.post('/console/context-cards/new', { title: 'Tone', content: 'Original content', tags: 'style' });
    const path = (created.location ?? '').replace('?saved=1', '');
    const tabA = baseOf((await browser.get(path)).html);
    const tabB = baseOf((await browser.get(path)).html);
    expect((await browser.post(path, { title: 'Tone', content: 'Content from B', tags: 'style', base: tabB })).status).toBe(303);
    expect((await browser.post(path, { title: 'Tone', description: 'From A', content: 'Original content', tags: 'style', base: tabA })).status).toBe(303);
    const html = (await browser.get(path)).html;
    expect(html).toContain('Content from B');
    expect(html).toContain('From A');
    const conflict = await browser.post(path, { title: 'Tone', content: 'A again', tags: 'style', base: tabA });
    expect(conflict.status).toBe(409);
    expect(conflict.html).toContain('Since you opened this page, the card was saved with another Content');
  });

  it('keeps the edits of a context card deleted since its page was opened, in the new card form', async () => {
    await browser.get('/console/context-cards/new');
    const created = await browser.post('/console/context-cards/new', { title: 'Fleeting', content: 'Soon gone', tags: '' });
    const path = (created.location ?? '').replace('?saved=1', '');
    const page = await browser.get(path);
    const base = baseOf(page.html);
    expect((await browser.post(`${path}/delete`, {})).status).toBe(303);
    const saved = await browser.post(path, { title: 'Fleeting', content: 'Kept after all', tags: '', base });
    expect(saved.status).toBe(404);
    expect(saved.html).toContain('This card no longer exists');
    expect(saved.html).toContain('Kept after all');
    expect(saved.html).toContain('action="/console/context-cards/new"');
  });

  it('keeps a context card’s form, with the message, when a save goes over the quota (regression: the error page)', async () => {
    await browser.get('/console/context-cards/new');
    const created = await browser.post('/console/context-cards/new', { title: 'Big', content: 'small', tags: '' });
    const path = (created.location ?? '').replace('?saved=1', '');
    const base = baseOf((await browser.get(path)).html);
    // The console's calls reach the cards as its caller (forCaller), so that is where the update is replaced.
    const cards = harness.core.contextCards;
    const forCaller = cards.forCaller;
    cards.forCaller = (caller) => ({
      ...forCaller(caller),
      update: async () => {
        throw new PorchError('QUOTA_EXCEEDED', 'Context cards are limited to 3,000 bytes; this would make 4,512.');
      },
    });
    try {
      const refused = await browser.post(path, { title: 'Big', content: 'x'.repeat(4_500), tags: '', base });
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('Context cards are limited to 3,000 bytes');
      expect(refused.html).toContain('x'.repeat(4_500));
    } finally {
      cards.forCaller = forCaller;
    }
  });

  it('after a refusal shows the fields the author did not touch as they are now, so saving again keeps the other change (regression: undid it)', async () => {
    await browser.get('/console/context-cards/new');
    const created = await browser.post('/console/context-cards/new', { title: 'Voice', content: 'Original content', tags: 'style' });
    const path = (created.location ?? '').replace('?saved=1', '');
    const tabA = baseOf((await browser.get(path)).html);
    const tabB = baseOf((await browser.get(path)).html);
    expect((await browser.post(path, { title: 'Voice', description: 'From B', content: 'Content from B', tags: 'style', base: tabB })).status).toBe(303);
    const refused = await browser.post(path, { title: 'Voice', description: '', content: 'Content from A', tags: 'style', base: tabA });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('value="From B" id="f-description"');
    expect(refused.html).toContain('Content from A');
    // Sent back as shown: the author's content, B's description.
    const again = await browser.post(path, { title: 'Voice', description: 'From B', content: 'Content from A', tags: 'style', base: baseOf(refused.html) });
    expect(again.status).toBe(303);
    const html = (await browser.get(path)).html;
    expect(html).toContain('Content from A');
    expect(html).toContain('From B');

    // The same for a composition: B changed the description and the template, A the template.
    const id = await createComposition();
    const compositionA = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const compositionB = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    await browser.post(`/console/compositions/${id}`, {
      ...COMPOSITION,
      description: 'Described by B',
      template: 'B: {{product}} {{version}}',
      base: compositionB,
      intent: 'save',
    });
    const clash = await browser.post(`/console/compositions/${id}`, {
      ...COMPOSITION,
      template: 'A: {{product}} {{version}}',
      base: compositionA,
      intent: 'save',
    });
    expect(clash.status).toBe(409);
    expect(clash.html).toContain('Described by B');
    expect(clash.html).toContain('A: {{product}} {{version}}');
  });

  it('merges again when another save lands between its read of the item and its update (regression: that save was undone)', async () => {
    const id = await createComposition();
    const base = baseOf((await browser.get(`/console/compositions/${id}`)).html);
    const accountId = (await harness.core.accounts.accountByEmail(emailOf((await browser.get('/console')).html))).id;
    // Another tab's save of the same field, landing after this save read version 1 and merged.
    const lifecycle = harness.core.lifecycle;
    const update = lifecycle.update;
    lifecycle.update = async (...args) => {
      lifecycle.update = update;
      await update(null, 'composition', accountId, id, { template: 'Other: {{product}} {{version}}' });
      return update(...args);
    };
    try {
      const clash = await browser.post(`/console/compositions/${id}`, { ...COMPOSITION, template: 'Mine: {{product}} {{version}}', base, intent: 'save' });
      expect(clash.status, clash.html).toBe(409);
      expect(clash.html).toContain('Since you opened this page, version 2 was saved with another Template');
    } finally {
      lifecycle.update = update;
    }
    expect(await harness.core.lifecycle.get('composition', accountId, id)).toMatchObject({ version: 2, template: 'Other: {{product}} {{version}}' });

    // The same for a context card, whose other save changed another field: both are kept.
    await browser.get('/console/context-cards/new');
    const created = await browser.post('/console/context-cards/new', { title: 'Pace', content: 'Original content', tags: 'style' });
    const path = (created.location ?? '').replace('?saved=1', '');
    const cardId = path.split('/').at(-1) ?? '';
    const cardBase = baseOf((await browser.get(path)).html);
    const cards = harness.core.contextCards;
    const forCaller = cards.forCaller;
    cards.forCaller = (caller) => {
      const own = forCaller(caller);
      return {
        ...own,
        update: async (...args) => {
          cards.forCaller = forCaller;
          await cards.update(accountId, cardId, { description: 'From the other tab' });
          return own.update(...args);
        },
      };
    };
    try {
      expect((await browser.post(path, { title: 'Pace', content: 'Mine', tags: 'style', base: cardBase })).status).toBe(303);
    } finally {
      cards.forCaller = forCaller;
    }
    expect(await harness.core.contextCards.get(accountId, cardId)).toMatchObject({ version: 3, content: 'Mine', description: 'From the other tab' });
  });
});

function emailOf(html: string): string {
  const email = /<span class="email">([^<]+)<\/span>/.exec(html)?.[1];
  if (email === undefined) throw new Error('no email in the page');
  return email;
}

describe('sessions and CSRF on every catalog route', () => {
  const SECTIONS = ['compositions', 'skills', 'personas', 'workflows'] as const;
  const NIL_ID = '00000000-0000-4000-8000-000000000000';

  it('sends a visitor without a session to sign-in (pages) or refuses with 401 (actions)', async () => {
    const anonymous = consoleBrowser(harness);
    for (const section of [...SECTIONS, 'context-cards']) {
      for (const path of [`/console/${section}`, `/console/${section}/new`, `/console/${section}/${NIL_ID}`, `/console/${section}/${NIL_ID}/delete`]) {
        const page = await anonymous.get(path);
        expect(page.status, path).toBe(303);
        expect(page.location, path).toBe(`/console/sign-in?next=${encodeURIComponent(path)}`);
      }
      for (const path of [`/console/${section}/new`, `/console/${section}/${NIL_ID}`, `/console/${section}/${NIL_ID}/delete`]) {
        expect((await anonymous.post(path, {}, { csrf: null })).status, path).toBe(401);
      }
    }
    for (const section of SECTIONS) {
      for (const action of ['labels', 'rollback', 'labels/production/remove']) {
        expect((await anonymous.post(`/console/${section}/${NIL_ID}/${action}`, {}, { csrf: null })).status).toBe(401);
      }
    }
  });

  it('refuses every catalog action with a missing or forged CSRF token, changing nothing', async () => {
    const id = await createComposition();
    await browser.get(`/console/compositions/${id}/versions`);
    const actions: Array<[string, Record<string, string>]> = [
      ['/console/compositions/new', { ...COMPOSITION, intent: 'save' }],
      [`/console/compositions/${id}`, { ...COMPOSITION, name: 'Forged', intent: 'save' }],
      [`/console/compositions/${id}/labels`, { label: 'production', version: '1' }],
      [`/console/compositions/${id}/rollback`, { version: '1' }],
      [`/console/compositions/${id}/delete`, {}],
      ['/console/context-cards/new', { title: 'Forged', content: 'x' }],
    ];
    for (const [path, fields] of actions) {
      expect((await browser.post(path, fields, { csrf: null })).status, path).toBe(403);
      expect((await browser.post(path, fields, { csrf: 'forged' })).status, path).toBe(403);
    }
    const history = await browser.get(`/console/compositions/${id}/versions`);
    expect(history.status).toBe(200);
    expect(history.html).not.toContain('<th scope="row" role="rowheader">v2</th>');
    expect(history.html).not.toContain('production →');
  });

  it('an id that is not a uuid answers 400 with the operation’s message, never a 500', async () => {
    const page = await browser.get('/console/workflows/not-a-uuid');
    expect(page.status).toBe(400);
    expect(page.html).toContain('must be a uuid');
  });

  it('a builder account (no API access) still reaches every catalog list: the console is not the API', async () => {
    const builder = (await signedInBrowser(harness, { plan: 'builder' })).browser;
    for (const section of [...SECTIONS, 'context-cards']) {
      const page = await builder.get(`/console/${section}`);
      expect(page.status, `${section}: ${page.html.slice(0, 200)}`).toBe(200);
    }
  });
});
