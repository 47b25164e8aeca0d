/**
 * The console's run pages over real HTTP, signed in as a person: the playground runs each kind
 * through the execute operations (echo model, offline), the runs table filters and pages, a run's
 * detail shows its inputs and trace and cancels while queued, the judge scores, the sanitiser
 * marks its findings in place and redacts, and the overview draws usage from get_usage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

let harness: Harness;
let browser: ConsoleBrowser;
let accountId: string;
let ids: Record<string, string>;

beforeAll(async () => {
  // No background work: a queued run stays queued until the test cancels it.
  harness = await createHarness({ backgroundWork: false });
  ({ browser, accountId } = await signedInBrowser(harness));
  ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
});
afterAll(async () => {
  await harness.close();
});

const variableFields = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([name, value]) => [`var.${name}`, value]));

function runIdIn(html: string): string {
  const match = /href="\/console\/runs\/([0-9a-f-]{36})"/.exec(html);
  if (!match?.[1]) throw new Error(`no run link in ${html.slice(0, 300)}`);
  return match[1];
}

describe('playground', () => {
  it('lists every kind and builds the form from the composition’s declared variables', async () => {
    const picker = await browser.get('/console/playground');
    expect(picker.status).toBe(200);
    for (const name of ['Release notes', 'Summarise', 'Plain-English editor', 'Release announcement']) expect(picker.html).toContain(name);
    const form = await browser.get(`/console/playground?resource=composition:${ids['composition:release-notes']}`);
    expect(form.status, form.html).toBe(200);
    for (const name of ['product', 'version', 'changes', 'audience']) expect(form.html).toContain(`name="var.${name}"`);
    expect(form.html).toContain('Default: developers');
    expect(form.html).toContain('value="label:latest"');
    expect(form.html).toContain('value="version:1"');
  });

  it('runs a composition and shows the answer, model, tokens, credits and a link to its run', async () => {
    await browser.get(`/console/playground?resource=composition:${ids['composition:release-notes']}`);
    const ran = await browser.post('/console/playground', {
      resource: `composition:${ids['composition:release-notes']}`,
      selector: 'label:latest',
      ...variableFields(RELEASE_VARIABLES),
    });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toContain('Write release notes for Porch version 1.2.');
    expect(ran.html).toContain('echo/echo');
    const runs = await harness.api<{ items: Array<{ id: string; token_usage: { total_tokens: number }; credits_charged: number }> }>('GET', '/runs', {
      key: (await harness.createKey(accountId, { scopes: ['read:usage'] })).key,
    });
    const [newest] = runs.body.data.items;
    expect(newest).toBeDefined();
    expect(ran.html).toContain(`<dd>${newest?.token_usage.total_tokens.toLocaleString('en')} (`);
    expect(ran.html).toContain(`<dd>${newest?.credits_charged.toLocaleString('en', { maximumFractionDigits: 3 })}</dd>`);
    expect(runIdIn(ran.html)).toBe(newest?.id);
  });

  it('runs a workflow and shows every node of its trace', async () => {
    const ran = await browser.post('/console/playground', {
      resource: `workflow:${ids['workflow:release-announcement']}`,
      selector: '',
      ...variableFields(RELEASE_VARIABLES),
    });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toContain('Per-node trace');
    expect(ran.html).toContain('<code>draft</code>');
    expect(ran.html).toContain('<code>summary</code>');
    expect(ran.html).toMatch(/class="badge badge-success">completed</);
  });

  it('answers a run at the resource’s own address, with the focus on its result (regression: a reload lost the resource; the result was out of sight)', async () => {
    const resource = `composition:${ids['composition:release-notes']}`;
    await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}`);
    const ran = await browser.post('/console/playground', { resource, ...variableFields(RELEASE_VARIABLES) });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toContain(`data-address="/console/playground?resource=${encodeURIComponent(resource)}"`);
    expect(ran.html).toContain('<h2 id="result-heading" tabindex="-1" autofocus>Result</h2>');
    // The address reads the resource's form again, without running it.
    const reloaded = await browser.get(`/console/playground?resource=${encodeURIComponent(resource)}`);
    expect(reloaded.html).toContain('name="var.product"');
    expect(reloaded.html).not.toContain('id="result-heading"');
  });

  it('shows a failed workflow node with its error, and the run as failed', async () => {
    // Its own account: deleting the composition a node refers to makes that node fail when run.
    const own = await signedInBrowser(harness);
    const ownIds = (await harness.core.bundles.importBundle(own.accountId, DEMO_BUNDLE)).ids;
    await harness.core.lifecycle.delete('composition', own.accountId, ownIds['composition:release-notes'] ?? '');
    await own.browser.get('/console/playground');
    const ran = await own.browser.post('/console/playground', {
      resource: `workflow:${ownIds['workflow:release-announcement']}`,
      ...variableFields(RELEASE_VARIABLES),
    });
    expect(ran.status, ran.html).toBe(200);
    expect(ran.html).toMatch(/class="badge badge-danger">failed</);
    expect(ran.html).toMatch(
      /<details open><summary><code>draft<\/code> · failed · RESOURCE_NOT_FOUND<\/summary><p class="notice notice-error">Composition [0-9a-f-]{36} was not found\.<\/p>/,
    );
  });

  it('shows the API’s validation message, with its status, when a required variable is missing', async () => {
    const refused = await browser.post('/console/playground', {
      resource: `composition:${ids['composition:release-notes']}`,
      ...variableFields({ product: 'Porch' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('notice-error');
    expect(refused.html).toMatch(/version|changes/);
    expect(refused.html).toContain('name="var.product"');
  });

  it('runs a persona and a skill with their input', async () => {
    const persona = await browser.post('/console/playground', {
      resource: `persona:${ids['persona:plain-editor']}`,
      input: 'Hello there',
      context: 'Some context',
    });
    expect(persona.status, persona.html).toBe(200);
    expect(persona.html).toContain('Hello there\n\nSome context');
    const skill = await browser.post('/console/playground', { resource: `skill:${ids['skill:summarise']}`, input: 'Skill input text', 'var.bullets': '3' });
    expect(skill.status, skill.html).toBe(200);
    expect(skill.html).toContain('Skill input text');
  });

  it('answers 404 for another account’s resource', async () => {
    const other = await harness.createAccount();
    const theirs = (await harness.core.bundles.importBundle(other.accountId, DEMO_BUNDLE)).ids;
    const page = await browser.get(`/console/playground?resource=composition:${theirs['composition:release-notes']}`);
    expect(page.status).toBe(404);
    const ran = await browser.post('/console/playground', {
      resource: `composition:${theirs['composition:release-notes']}`,
      ...variableFields(RELEASE_VARIABLES),
    });
    expect(ran.status).toBe(404);
  });
});

describe('runs', () => {
  it('filters by kind, status and resource, and pages with the cursor', async () => {
    const workflows = await browser.get('/console/runs?kind=workflow');
    expect(workflows.status, workflows.html).toBe(200);
    expect(workflows.html).toContain('Release announcement');
    expect(workflows.html).not.toMatch(/<td>composition<\/td>/);
    const compositions = await browser.get(`/console/runs?resource_id=${ids['composition:release-notes']}&status=completed`);
    expect(compositions.html).toMatch(/<td>composition<\/td>/);
    expect(compositions.html).not.toMatch(/<td>workflow<\/td>/);
    const failed = await browser.get('/console/runs?status=cancelled&kind=persona');
    expect(failed.html).toContain('No runs match.');

    const first = await browser.get('/console/runs?limit=1');
    const next = /href="(\/console\/runs\?limit=1&amp;cursor=[0-9a-f-]{36})"/.exec(first.html)?.[1];
    expect(next, 'a next-page link').toBeDefined();
    const second = await browser.get((next ?? '').replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    expect(runIdIn(second.html)).not.toBe(runIdIn(first.html));
    expect(second.html).toContain('Newest runs');
  });

  it('shows the API’s message for a filter it refuses', async () => {
    const refused = await browser.get('/console/runs?resource_id=not-a-uuid');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('must be a uuid');
  });

  it('answers an address that cannot name a run with the 404 page (regression: 400 "must be a uuid")', async () => {
    const missing = await browser.get('/console/runs/does-not-exist');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('There is no run at this address.');
  });

  it('shows a workflow run’s inputs and node trace', async () => {
    const list = await browser.get('/console/runs?kind=workflow');
    const detail = await browser.get(`/console/runs/${runIdIn(list.html)}`);
    expect(detail.status, detail.html).toBe(200);
    expect(detail.html).toContain('Run of workflow Release announcement');
    expect(detail.html).toContain('Faster lists');
    expect(detail.html).toContain('Per-node trace');
    expect(detail.html).toContain('<code>summary</code>');
    expect(detail.html).not.toContain('Cancel run');
  });

  it('cancels a queued run from its page, which refreshes itself only while the run is in flight', async () => {
    const { key } = await harness.createKey(accountId);
    const queued = await harness.api<{ run_id: string }>('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { prefer: 'respond-async' },
    });
    expect(queued.status).toBe(202);
    const runId = queued.body.data.run_id;
    const before = await browser.get(`/console/runs/${runId}`);
    expect(before.html).toContain('Cancel run');
    // An id lets htmx give the focus back to the button after each refresh (regression: lost every 2 s).
    expect(before.html).toContain('id="cancel-run"');
    expect(before.html).toContain('>queued<');
    expect(before.html, 'a run in flight refreshes itself').toContain('hx-trigger="every 2s"');
    // No duration yet (regression: "0 ms").
    expect(before.html).toContain('<dt>Duration</dt><dd>—</dd>');
    const cancelled = await browser.post(`/console/runs/${runId}/cancel`, {});
    expect(cancelled.status, cancelled.html).toBe(303);
    const after = await browser.get(cancelled.location ?? '');
    expect(after.html).toContain('>cancelled<');
    expect(after.html).not.toContain('Cancel run');
    expect(after.html, 'an ended run stops refreshing').not.toContain('hx-trigger');
    const again = await browser.post(`/console/runs/${runId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.html).toContain('notice-error');
    // The run's own address replaces the action's, so a reload reads the run (regression: it sent the cancel again).
    expect(again.html).toContain(`data-address="/console/runs/${runId}"`);
  });

  it('answers 404 for another account’s run, as for a missing one', async () => {
    const other = await harness.expertWithKey();
    const theirs = (await harness.core.bundles.importBundle(other.accountId, DEMO_BUNDLE)).ids;
    const executed = await harness.api('POST', `/compositions/${theirs['composition:release-notes']}/execute`, {
      key: other.key,
      body: { variables: RELEASE_VARIABLES },
    });
    expect(executed.status).toBe(200);
    const runs = await harness.api<{ items: Array<{ id: string }> }>('GET', '/runs', { key: other.key });
    const theirRun = runs.body.data.items[0]?.id ?? '';
    const page = await browser.get(`/console/runs/${theirRun}`);
    expect(page.status).toBe(404);
    expect(page.html).not.toContain('Release notes');
    expect((await browser.post(`/console/runs/${theirRun}/cancel`, {})).status).toBe(404);
    expect((await browser.get('/console/runs/01890000-0000-7000-8000-000000000000')).status).toBe(404);
  });
});

describe('judge and sanitiser', () => {
  it('scores a prompt and lists suggestions', async () => {
    await browser.get('/console/judge');
    const judged = await browser.post('/console/judge', { prompt: 'Write a poem.', criteria: 'Rhymes' });
    expect(judged.status, judged.html).toBe(200);
    expect(judged.html).toMatch(/<div class="figure">\d+<span class="muted"> \/ 100<\/span>/);
    expect(judged.html).toMatch(/badge (badge-success|badge-warn|badge-danger)">(pass|needs revision|fail)</);
    expect(judged.html).toContain('Suggestions');
    const empty = await browser.post('/console/judge', { prompt: '' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('notice-error');
  });

  it('marks each finding in place with its rule and severity, and shows the redacted text on request', async () => {
    await browser.get('/console/sanitiser');
    const text = 'Mail ada@example.com or ada@example.com; card 4111 1111 1111 1111.';
    const scanned = await browser.post('/console/sanitiser', { text, redact: '1' });
    expect(scanned.status, scanned.html).toBe(200);
    expect(scanned.html).toContain('<pre class="output highlighted">Mail <mark class="finding finding-');
    expect(scanned.html).toMatch(/<mark [^>]*>ada@example.com<span class="finding-tag"> \[pii\.email · (info|warn|block)\]<\/span><\/mark> or /);
    expect(scanned.html).toContain('Mail [EMAIL_1] or [EMAIL_1]; card [PAYMENT_CARD_1].');
    expect(scanned.html).toContain('Findings, in order of position');
    const plain = await browser.post('/console/sanitiser', { text });
    expect(plain.html).not.toContain('[EMAIL_1]');
    const clean = await browser.post('/console/sanitiser', { text: 'Nothing to see here.' });
    expect(clean.html).toContain('No findings');
  });
});

describe('overview chart', () => {
  it('embeds the usage by day and by model as a JSON data block, with the chart script and a table', async () => {
    // The range ends now, exclusive: the runs above were recorded at the same manual instant.
    harness.clock.advance(60_000);
    const page = await browser.get('/console');
    expect(page.status).toBe(200);
    const block = /<script type="application\/json" id="usage-chart-data">([^<]*)<\/script>/.exec(page.html)?.[1];
    expect(block, page.html.slice(page.html.indexOf('<main'), page.html.indexOf('<main') + 3000)).toBeDefined();
    const chart = JSON.parse(block ?? '{}') as { split: string; days: number[]; series: Array<{ label: string; tokens: number[] }> };
    expect(chart.split).toBe('model');
    expect(chart.days.length).toBeGreaterThanOrEqual(30);
    const echo = chart.series.find((series) => series.label === 'echo/echo');
    expect(echo?.tokens.reduce((sum, value) => sum + value, 0)).toBeGreaterThan(0);
    expect(page.html).toMatch(/<script src="\/console\/assets\/uplot\.[0-9a-f]{12}\.js">/);
    expect(page.html).toMatch(/<script type="module" src="\/console\/assets\/usage-chart\.[0-9a-f]{12}\.js">/);
    expect(page.html).toContain('Last 30 days by model');

    // The latest runs name their resources, as the Runs page does (regression: only ids, alike within a minute).
    const recent = page.html.slice(page.html.indexOf('Recent runs'));
    expect(recent).toContain('Release notes');

    const byOperation = await browser.get('/console?split=operation');
    expect(byOperation.html).toContain('execute_composition');
    expect(byOperation.html).toContain('Last 30 days by operation');
  });
});

describe('sessions and CSRF', () => {
  const RUN_ID = '01890000-0000-7000-8000-000000000000';

  it('every run page sends a visitor without a session to sign in, and refuses their POSTs', async () => {
    const anonymous = consoleBrowser(harness);
    for (const path of ['/console/playground', '/console/runs', `/console/runs/${RUN_ID}`, '/console/judge', '/console/sanitiser']) {
      const page = await anonymous.get(path);
      expect(page.status, path).toBe(303);
      expect(page.location, path).toBe(`/console/sign-in?next=${encodeURIComponent(path)}`);
    }
    for (const path of ['/console/playground', `/console/runs/${RUN_ID}/cancel`, '/console/judge', '/console/sanitiser']) {
      expect((await anonymous.post(path, { text: 'x', prompt: 'x' })).status, path).toBe(401);
    }
    // A part of a page polling itself (htmx) is told the session ended, which the page shows in its
    // place, not sent to the sign-in page (regression: a run's page went blank).
    const polled = await fetch(`${harness.url}/console/runs/${RUN_ID}`, { headers: { 'HX-Request': 'true' }, redirect: 'manual' });
    expect(polled.status).toBe(401);
    expect(await polled.text()).toContain('Your session has ended; sign in again.');
    // The page says how to keep what was typed, with a way back in (regression: a dead end).
    const ended = await anonymous.post('/console/judge', { prompt: 'x' }, { headers: { referer: `${harness.url}/console/judge?x=1` } });
    expect(ended.html).toContain('Your session has ended; sign in again.');
    expect(ended.html).toContain(`href="/console/sign-in?next=${encodeURIComponent('/console/judge?x=1')}"`);
    // A form posted from another site arrives without the cookie: named as such, not as a session that ended.
    const foreign = await anonymous.post('/console/judge', { prompt: 'x' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(foreign.status).toBe(403);
    expect(foreign.html).toContain('This form was sent from another site');
  });

  it('a POST without the session’s CSRF token runs nothing', async () => {
    const { key } = await harness.createKey(accountId, { scopes: ['read:usage'] });
    const count = async () => (await harness.api<{ items: unknown[] }>('GET', '/runs', { key })).body.data.items.length;
    const before = await count();
    await browser.get('/console/playground');
    const forged = await browser.post(
      '/console/playground',
      { resource: `composition:${ids['composition:release-notes']}`, ...variableFields(RELEASE_VARIABLES) },
      { csrf: 'forged' },
    );
    expect(forged.status).toBe(403);
    expect(await count()).toBe(before);
    expect((await browser.post('/console/judge', { prompt: 'Write a poem.' }, { csrf: null })).status).toBe(403);
    expect((await browser.post('/console/sanitiser', { text: 'ada@example.com' }, { csrf: null })).status).toBe(403);
  });
});
