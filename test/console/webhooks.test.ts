/**
 * Settings → Webhooks over real HTTP: an endpoint registered in the console (its secret shown
 * once) receives a real, signed delivery on a receiver on 127.0.0.1 (allow-listed in
 * webhooks.allow_hosts); the delivery log shows it and redelivers it; edits, secret rotation,
 * deletion and the credits.low threshold go through the operations, and refusals (the SSRF
 * guard, bad input, another account's endpoint) show the API's messages.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { startWebhookReceiver, verifyReceived, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PATH = '/console/settings/webhooks';

let harness: Harness;
let directory: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-console-webhooks-'));
  const configPath = join(directory, 'porch.config.yaml');
  // The worker's own poll is slowed to a minute so the tests drive every attempt with drain().
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'], poll_interval_ms: 60_000 } }), 'utf8');
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
  // Signatures carry the clock's time and the receiver checks it against its own: start at the real time.
  harness.clock.set(Date.now());
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await harness.close();
  await receiver.close();
  await rm(directory, { recursive: true, force: true });
});

function secretOn(html: string): string {
  return /<code id="new-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? '';
}

/** The endpoint ids the list links to, in the order shown. */
function endpointIds(html: string): string[] {
  return [...html.matchAll(/href="\/console\/settings\/webhooks\/([0-9a-f-]{36})"/g)].map((match) => match[1] ?? '');
}

async function register(browser: ConsoleBrowser, url: string, events = ['run.completed', 'run.failed']) {
  await browser.get(PATH);
  const page = await browser.post(`${PATH}/endpoints`, { url, events, description: 'console test' });
  expect(page.status, page.html).toBe(200);
  const id = endpointIds(page.html).at(-1) ?? '';
  return { page, id, secret: secretOn(page.html) };
}

/** Runs the demo composition as the account, over the REST API, so a run.completed event is queued. */
async function runOnce(accountId: string): Promise<void> {
  const { key } = await harness.createKey(accountId, { scopes: ['execute:composition'] });
  const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'] ?? '';
  const executed = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
  expect(executed.status, describeResponse(executed)).toBe(200);
}

describe('endpoints', () => {
  it('registers an endpoint, shows its secret once, and a real delivery verifies with that secret', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const { page, id, secret } = await register(browser, `${receiver.url}/console-hook`);
    expect(secret).toMatch(/^whsec_/);
    expect(page.html).toContain('data-copy="#new-secret"');
    expect(page.html).toContain(`${receiver.url}/console-hook`);
    const again = await browser.get(PATH);
    expect(again.html).not.toContain(secret);

    await runOnce(accountId);
    await harness.core.webhookWorker.drain();
    const request = await receiver.nextRequest();
    expect(request.path).toBe('/console-hook');
    expect(verifyReceived(request, secret)).toMatchObject({ type: 'run.completed' });

    const detail = await browser.get(`${PATH}/${id}`);
    expect(detail.status, detail.html).toBe(200);
    expect(detail.html).toContain(`id="delivery-${String(request.headers['webhook-id'])}"`);
    expect(detail.html).toContain('badge-success">succeeded');
    expect(detail.html).toMatch(/: 204, \d+ ms/);
  });

  it('redelivers a finished delivery with the same webhook-id', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const { id, secret } = await register(browser, `${receiver.url}/redeliver`);
    await runOnce(accountId);
    await harness.core.webhookWorker.drain();
    const first = await receiver.nextRequest();
    const deliveryId = String(first.headers['webhook-id']);

    await browser.get(`${PATH}/${id}`);
    const redelivered = await browser.post(`${PATH}/${id}/deliveries/${deliveryId}/redeliver`, {});
    expect(redelivered.status, redelivered.html).toBe(200);
    expect(redelivered.html).toContain(`Delivery ${deliveryId} (run.completed) is queued again`);
    await harness.core.webhookWorker.drain();
    const second = await receiver.nextRequest();
    expect(second.headers['webhook-id']).toBe(deliveryId);
    expect(verifyReceived(second, secret)).toMatchObject({ type: 'run.completed' });
  });

  it('shows the SSRF guard’s refusal and keeps what was typed', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get(PATH);
    const refused = await browser.post(`${PATH}/endpoints`, { url: 'http://10.0.0.7/hook', events: ['run.completed'], description: 'inside' });
    const api = await harness.api('POST', '/webhooks', {
      key: (await harness.expertWithKey({ scopes: ['manage:webhooks'] })).key,
      body: { url: 'http://10.0.0.7/hook', events: ['run.completed'] },
    });
    expect(api.status).toBe(400);
    expect(refused.status).toBe(400);
    const message = (api.body as { error: { message: string } }).error.message;
    expect(refused.html).toContain(message.replaceAll("'", '&#39;').replaceAll('"', '&quot;'));
    expect(refused.html).toContain('value="http://10.0.0.7/hook"');
    expect(endpointIds(refused.html)).toEqual([]);
  });

  it('marks a refused URL invalid, described by its message, in the create and the settings form (regression: only the notice named it)', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get(PATH);
    const fresh = await browser.get(PATH);
    expect(fresh.html).not.toMatch(/id="webhook-url"[^>]*aria-invalid/);
    const refused = await browser.post(`${PATH}/endpoints`, { url: 'http://10.0.0.7/hook', events: ['run.completed'] });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="webhook-url"[^>]*aria-invalid="true" aria-describedby="webhook-url-hint webhook-url-errors"/);
    expect(refused.html).toMatch(/<ul class="field-errors" id="webhook-url-errors"><li>[^<]+<\/li><\/ul>/);
    const { id } = await register(browser, `${receiver.url}/marked`);
    await browser.get(`${PATH}/${id}`);
    const edited = await browser.post(`${PATH}/${id}`, { url: 'http://169.254.169.254/latest', events: ['run.failed'] });
    expect(edited.status).toBe(400);
    expect(edited.html).toMatch(/id="edit-url"[^>]*aria-invalid="true" aria-describedby="edit-url-errors"/);
    expect(edited.html).toContain('<ul class="field-errors" id="edit-url-errors">');
  });

  it('refuses an endpoint with no event ticked, naming the field', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get(PATH);
    const refused = await browser.post(`${PATH}/endpoints`, { url: `${receiver.url}/x` });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('events');
    expect(refused.html).toContain('must name at least one event');
  });

  it('keeps the boxes the refused form unticked (regression: run.completed and run.failed came back ticked)', async () => {
    const { browser } = await signedInBrowser(harness);
    const fresh = await browser.get(PATH);
    expect(fresh.html).toMatch(/id="new-event-run\.completed"[^>]*checked/);
    const refused = await browser.post(`${PATH}/endpoints`, { url: `${receiver.url}/none`, description: 'no events' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('must name at least one event');
    expect(refused.html).not.toMatch(/id="new-event-[^"]*"[^>]*checked/);
    expect(refused.html).toMatch(/id="webhook-description"[^>]*value="no events"/);
    const some = await browser.post(`${PATH}/endpoints`, { url: 'http://10.0.0.7/hook', events: ['credits.low'] });
    expect(some.status).toBe(400);
    expect(some.html).toMatch(/id="new-event-credits\.low"[^>]*checked/);
    expect(some.html).not.toMatch(/id="new-event-run\.[a-z]+"[^>]*checked/);
  });

  it('edits the URL, events and enabled; a disabled endpoint shows as such', async () => {
    const { browser } = await signedInBrowser(harness);
    const { id } = await register(browser, `${receiver.url}/before`);
    await browser.get(`${PATH}/${id}`);
    const saved = await browser.post(`${PATH}/${id}`, { url: `${receiver.url}/after`, events: ['credits.low'], description: '' });
    expect(saved.status, saved.html).toBe(200);
    expect(saved.html).toContain('Saved.');
    expect(saved.html).toContain(`${receiver.url}/after`);
    expect(saved.html).toContain('badge-warn">disabled');
    expect(saved.html).toContain('Events: credits.low');
    const enabled = await browser.post(`${PATH}/${id}`, { url: `${receiver.url}/after`, events: ['credits.low', 'run.failed'], enabled: 'on' });
    expect(enabled.html).toContain('badge-success">enabled');
    const refused = await browser.post(`${PATH}/${id}`, { url: 'http://169.254.169.254/latest', description: 'new words', events: ['run.failed'] });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('notice-error');
    // The stored URL still heads the page; the form keeps the edits (regression: it showed the stored values).
    expect(refused.html).toContain(`<code>${receiver.url}/after</code>`);
    expect(refused.html).toMatch(/id="edit-url"[^>]*value="http:\/\/169\.254\.169\.254\/latest"/);
    expect(refused.html).toMatch(/id="edit-description"[^>]*value="new words"/);
    expect(refused.html).not.toMatch(/id="edit-enabled"[^>]*checked/);
  });

  it('rotates the secret (shown once) and keeps the old one signing for the grace chosen', async () => {
    const { browser } = await signedInBrowser(harness);
    const { id, secret } = await register(browser, `${receiver.url}/rotate`);
    await browser.get(`${PATH}/${id}`);
    const rotated = await browser.post(`${PATH}/${id}/rotate`, { grace_seconds: '3600' });
    expect(rotated.status, rotated.html).toBe(200);
    const next = secretOn(rotated.html);
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(rotated.html).toContain('The previous secret still signs beside the current one until');
    expect((await browser.get(`${PATH}/${id}`)).html).not.toContain(next);
  });

  it('deletes an endpoint, which then answers 404', async () => {
    const { browser } = await signedInBrowser(harness);
    const { id } = await register(browser, `${receiver.url}/delete`);
    await browser.get(`${PATH}/${id}`);
    const deleted = await browser.post(`${PATH}/${id}/delete`, {});
    expect(deleted.status, deleted.html).toBe(200);
    expect(deleted.html).toContain(`Deleted the endpoint ${receiver.url}/delete`);
    expect(endpointIds(deleted.html)).not.toContain(id);
    expect((await browser.get(`${PATH}/${id}`)).status).toBe(404);
  });

  it("answers another account's endpoint like a missing one, and refuses to change it", async () => {
    const owner = await signedInBrowser(harness);
    const { id } = await register(owner.browser, `${receiver.url}/theirs`);
    const { browser } = await signedInBrowser(harness);
    const page = await browser.get(`${PATH}/${id}`);
    expect(page.status).toBe(404);
    await browser.get(PATH);
    expect((await browser.post(`${PATH}/${id}/delete`, {})).status).toBe(404);
    expect((await owner.browser.get(`${PATH}/${id}`)).status).toBe(200);
  });

  it('sends a visitor without a session to sign in, and refuses their actions', async () => {
    const visitor = consoleBrowser(harness);
    const page = await visitor.get(PATH);
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/console/sign-in?next=${encodeURIComponent(PATH)}`);
    const refused = await visitor.post(`${PATH}/endpoints`, { url: `${receiver.url}/anonymous`, events: ['run.failed'] });
    expect(refused.status).toBe(401);
  });

  it('refuses every action without the session’s CSRF token', async () => {
    const { browser } = await signedInBrowser(harness);
    const { id } = await register(browser, `${receiver.url}/csrf`);
    expect((await browser.post(`${PATH}/endpoints`, { url: `${receiver.url}/y`, events: ['run.failed'] }, { csrf: null })).status).toBe(403);
    expect((await browser.post(`${PATH}/${id}/delete`, {}, { csrf: 'forged' })).status).toBe(403);
    expect((await browser.get(`${PATH}/${id}`)).status).toBe(200);
  });

  it('tells an account on another plan that webhooks are an Expert feature', async () => {
    const { browser } = await signedInBrowser(harness, { plan: 'builder' });
    const page = await browser.get(PATH);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Webhooks are part of the Expert plan');
    // Nothing offered that could only be refused (regression: "Register one below" and both forms).
    expect(page.html).not.toContain('Register one below');
    expect(page.html).not.toContain(`action="${PATH}/endpoints"`);
    expect(page.html).not.toContain(`action="${PATH}/credits-low"`);
    const refused = await browser.post(`${PATH}/endpoints`, { url: `${receiver.url}/z`, events: ['run.failed'] });
    expect(refused.html).toContain('Webhooks are an Expert-plan feature; this account is on the builder plan.');
  });
});

/** The hidden base a settings form carries, as a browser sends it back. */
function baseOf(html: string): string {
  const value = /<input type="hidden" name="base" value="([^"]*)"/.exec(html)?.[1];
  if (value === undefined) throw new Error(`no base in the form: ${html.slice(0, 300)}`);
  return value.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

describe('two tabs editing one endpoint (regression: a save re-enabled the endpoint the other tab had just disabled)', () => {
  it('keeps both changes when each tab changed a different field', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const { id } = await register(browser, `${receiver.url}/two-tabs`);
    const tabA = baseOf((await browser.get(`${PATH}/${id}`)).html);
    const tabB = baseOf((await browser.get(`${PATH}/${id}`)).html);
    const fields = { url: `${receiver.url}/two-tabs`, events: ['run.completed', 'run.failed'], description: 'console test' };
    // Tab B unticks Enabled; tab A, opened before, changes only the description (its Enabled still ticked).
    const disabled = await browser.post(`${PATH}/${id}`, { ...fields, base: tabB });
    expect(disabled.html).toContain('badge-warn">disabled');
    const described = await browser.post(`${PATH}/${id}`, { ...fields, description: 'from tab A', enabled: 'on', base: tabA });
    expect(described.status, described.html).toBe(200);
    expect(described.html).toContain('Saved.');
    const { key } = await harness.createKey(accountId, { scopes: ['manage:webhooks'] });
    const stored = await harness.api<{ enabled: boolean; description: string | null; events: string[] }>('GET', `/webhooks/${id}`, { key });
    expect(stored.body.data, describeResponse(stored)).toMatchObject({ enabled: false, description: 'from tab A', events: ['run.completed', 'run.failed'] });
  });

  it('refuses a change to a field the other tab changed too, keeps the edit in the form, and saves it the second time', async () => {
    const { browser } = await signedInBrowser(harness);
    const { id } = await register(browser, `${receiver.url}/both`);
    const tabA = baseOf((await browser.get(`${PATH}/${id}`)).html);
    const tabB = baseOf((await browser.get(`${PATH}/${id}`)).html);
    const fields = { url: `${receiver.url}/both`, events: ['run.completed', 'run.failed'], enabled: 'on' };
    await browser.post(`${PATH}/${id}`, { ...fields, description: 'from tab B', events: ['credits.low'], base: tabB });
    const conflict = await browser.post(`${PATH}/${id}`, { ...fields, description: 'from tab A', base: tabA });
    expect(conflict.status, conflict.html).toBe(409);
    expect(conflict.html).toContain('Description was changed elsewhere');
    expect(conflict.html).toMatch(/id="edit-description"[^>]*value="from tab A"/);
    // The field tab A left alone shows tab B's change, so the second save does not undo it.
    expect(conflict.html).toMatch(/id="edit-event-credits\.low"[^>]*checked/);
    expect(conflict.html).not.toMatch(/id="edit-event-run\.completed"[^>]*checked/);
    const again = await browser.post(`${PATH}/${id}`, { ...fields, events: ['credits.low'], description: 'from tab A', base: baseOf(conflict.html) });
    expect(again.html).toContain('Saved.');
    expect(again.html).toContain('Events: credits.low');
    expect(again.html).toContain('from tab A');
    const unchanged = await browser.post(`${PATH}/${id}`, { ...fields, events: ['credits.low'], description: 'from tab A', base: baseOf(again.html) });
    expect(unchanged.html).toContain('Nothing changed, so nothing was saved.');
  });
});

describe('the credits.low threshold', () => {
  it('is set, shown, read back over the API, and turned off with an empty field', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const before = await browser.get(PATH);
    expect(before.html).toContain('It is off now.');
    const set = await browser.post(`${PATH}/credits-low`, { threshold_credits: '12.5' });
    expect(set.status, set.html).toBe(200);
    expect(set.html).toContain('credits.low now fires below 12.5 credits.');
    expect(set.html).toContain('value="12.5"');
    const { key } = await harness.createKey(accountId, { scopes: ['manage:webhooks'] });
    const read = await harness.api<{ threshold_credits: number | null }>('GET', '/account/credits-low-threshold', { key });
    expect(read.status, describeResponse(read)).toBe(200);
    expect(read.body.data).toEqual({ threshold_credits: 12.5 });
    const off = await browser.post(`${PATH}/credits-low`, { threshold_credits: '' });
    expect(off.html).toContain('The low-balance alert is off.');
    expect((await harness.api('GET', '/account/credits-low-threshold', { key })).body).toMatchObject({ data: { threshold_credits: null } });
  });

  it('shows the operation’s message for a value it refuses', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get(PATH);
    const refused = await browser.post(`${PATH}/credits-low`, { threshold_credits: '0.0001' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('must have at most three decimals');
    expect(refused.html).toMatch(/id="threshold"[^>]*value="0\.0001"/);
    const words = await browser.post(`${PATH}/credits-low`, { threshold_credits: 'ten' });
    expect(words.status).toBe(400);
    expect(words.html).toContain('threshold_credits');
  });
});
