/**
 * The playground's form is the selected version's: a resource whose `production` label names an
 * older version with other variables runs by default with that version's variables, a version
 * picked by number or label gets its own form, and a skill's placeholders are all required, as
 * execute requires them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
let browser: ConsoleBrowser;
let accountId: string;
let compositionId: string;
let workflowId: string;

beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  ({ browser, accountId } = await signedInBrowser(harness));
  const imported = await harness.core.bundles.importBundle(accountId, {
    version: 1,
    compositions: [
      {
        key: 'greeting',
        name: 'Greeting',
        template: 'Hi {{a}} and {{b}}',
        variables: [
          { name: 'a', required: true },
          { name: 'b', required: true },
        ],
      },
    ],
    workflows: [
      {
        key: 'scanner',
        name: 'Scanner',
        variables: [{ name: 'first', required: true }],
        nodes: [{ id: 'scan', kind: 'sanitise', text: '{{first}}' }],
        outputs: { findings: 'scan' },
      },
    ],
  });
  const composition = { id: imported.ids['composition:greeting'] ?? '' };
  const workflow = { id: imported.ids['workflow:scanner'] ?? '' };
  await harness.core.lifecycle.update(null, 'composition', accountId, composition.id, {
    template: 'Hi {{a}} then {{c}}',
    variables: [
      { name: 'a', required: true },
      { name: 'c', required: true },
    ],
  });
  await harness.core.lifecycle.setLabel('composition', accountId, composition.id, 'production', 1);
  compositionId = composition.id;
  await harness.core.lifecycle.update(null, 'workflow', accountId, workflow.id, {
    variables: [{ name: 'second', required: true }],
    nodes: [{ id: 'scan', kind: 'sanitise', text: '{{second}}' }],
  });
  await harness.core.lifecycle.setLabel('workflow', accountId, workflow.id, 'production', 1);
  workflowId = workflow.id;
});
afterAll(async () => {
  await harness.close();
});

describe('playground versions (regression: the form was always the newest version’s)', () => {
  it('builds the default form from the version production names, and runs it', async () => {
    const resource = `composition:${compositionId}`;
    const form = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}`);
    expect(form.status, form.html).toBe(200);
    expect(form.html).toContain('Default: production (version 1)');
    expect(form.html).toContain('name="var.a"');
    expect(form.html).toContain('name="var.b"');
    expect(form.html).not.toContain('name="var.c"');
    const ran = await browser.post('/console/playground', { resource, selector: '', shown_variables: 'a b', 'var.a': 'Ann', 'var.b': 'Bob' });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toContain('Hi Ann and Bob');
  });

  it('builds the form of a version picked by number, and runs it', async () => {
    const resource = `composition:${compositionId}`;
    const form = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=version:1`);
    expect(form.html).toContain('name="var.b"');
    expect(form.html).toMatch(/<option value="version:1" selected/);
    const ran = await browser.post('/console/playground', { resource, selector: 'version:1', shown_variables: 'a b', 'var.a': 'Ann', 'var.b': 'Bob' });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toContain('Hi Ann and Bob');
    const newest = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=label:latest`);
    expect(newest.html).toContain('name="var.c"');
    expect(newest.html).not.toContain('name="var.b"');
  });

  it('opens the selected version’s form, keeping shared values, instead of running a form filled in for another version', async () => {
    const resource = `composition:${compositionId}`;
    await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}`);
    const reopened = await browser.post('/console/playground', { resource, selector: 'version:2', shown_variables: 'a b', 'var.a': 'Ann', 'var.b': 'Bob' });
    expect(reopened.status, reopened.html).toBe(200);
    expect(reopened.html).toContain('Version 2 takes other inputs');
    expect(reopened.html).toContain('name="var.c"');
    expect(reopened.html).toMatch(/name="var\.a"[^>]*>\s*Ann</);
    expect(reopened.html).not.toContain('id="result-heading"');
    expect(reopened.html).toContain(`data-address="/console/playground?resource=${encodeURIComponent(resource)}&amp;selector=version%3A2"`);
  });

  it('says a label or version the address names is not the resource’s, naming those it has, and opens the default’s form (regression: the default, silently)', async () => {
    const resource = `composition:${compositionId}`;
    const removed = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=label:nope`);
    expect(removed.status, removed.html).toBe(200);
    expect(removed.html).toMatch(
      /class="notice notice-error"[^>]*>Composition “Greeting” has no label “nope”; its labels are latest \(version 2\), production \(version 1\)\. The form below runs the default, production \(version 1\)\.</,
    );
    expect(removed.html).toMatch(/<option value selected>Default: production \(version 1\)</);
    expect(removed.html).toContain('name="var.b"');
    expect(removed.html).not.toContain('name="var.c"');
    const version = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=version:9`);
    expect(version.html).toContain(
      'Composition “Greeting” has no version 9; its versions are 1 to 2. The form below runs the default, production (version 1).',
    );
    const garbled = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=production`);
    expect(garbled.html).toContain('“production” names no version or label (label:&lt;name> or version:&lt;number>).');
    const known = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}&selector=label:production`);
    expect(known.html).not.toContain('notice-error');
    expect(known.html).toMatch(/<option value="label:production" selected/);
  });

  it('builds a workflow’s form from the version production names, and runs it', async () => {
    const resource = `workflow:${workflowId}`;
    const form = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}`);
    expect(form.html).toContain('name="var.first"');
    expect(form.html).not.toContain('name="var.second"');
    const ran = await browser.post('/console/playground', { resource, selector: '', shown_variables: 'first', 'var.first': 'clean text' });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toMatch(/class="badge badge-success">completed</);
  });
});

describe('playground skill placeholders (regression: shown as optional, refused when left out)', () => {
  it('marks every placeholder of a skill required, as execute requires it', async () => {
    const imported = await harness.core.bundles.importBundle(accountId, {
      version: 1,
      skills: [
        {
          key: 'area-summary',
          name: 'Area summary',
          description: 'Summarises an area.',
          category: 'writing',
          instructions: 'Summarise the text for {{area}}.',
        },
      ],
    });
    const skill = { id: imported.ids['skill:area-summary'] ?? '' };
    const form = await browser.get(`/console/playground?resource=skill:${skill.id}`);
    expect(form.html).toMatch(/<code>area<\/code> \(required\)/);
    const refused = await browser.post('/console/playground', { resource: `skill:${skill.id}`, input: 'Text', shown_variables: 'area' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Missing required variable: area');
  });
});
