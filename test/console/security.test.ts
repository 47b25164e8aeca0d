/**
 * The console's security suite, over every route the door registers (so a page added later is
 * covered without being listed here): no session, a forged or missing CSRF token, another
 * account's session, and ids that are not the caller's. None may answer 500 or change anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleDoor } from '../../src/console/create-console-door.js';
import { operations } from '../../src/operations/index.js';
import { consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(async () => {
  await harness.close();
});

/** A route's path with each parameter filled by an id nobody owns. */
const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, '00000000-0000-4000-8000-000000000000');

function routes() {
  return createConsoleDoor({ core: harness.core, operations }).routes;
}

describe('every signed-in console route', () => {
  it('lists the routes of every area (the suite walks them all)', () => {
    const listed = routes();
    expect(listed.filter((route) => route.access === 'signed-in').length).toBeGreaterThan(5);
    expect(listed.some((route) => route.method === 'POST')).toBe(true);
  });

  it('without a session: a page sends to sign-in, an action is refused (but sign-out, whose goal is met, goes to sign-in)', async () => {
    const anonymous = consoleBrowser(harness);
    for (const route of routes().filter((candidate) => candidate.access === 'signed-in')) {
      const path = concrete(route.path);
      if (route.method === 'POST' && path === '/console/sign-out') {
        await anonymous.get('/console/sign-in');
        expect(await anonymous.post(path, {})).toMatchObject({ status: 303, location: '/console/sign-in' });
      } else if (route.method === 'GET') {
        const page = await anonymous.get(path);
        expect(page.status, `${route.method} ${path}`).toBe(303);
        expect(page.location, `${route.method} ${path}`).toBe(`/console/sign-in?next=${encodeURIComponent(path)}`);
      } else {
        await anonymous.get('/console/sign-in');
        const action = await anonymous.post(path, {});
        expect(action.status, `${route.method} ${path}: ${action.html.slice(0, 300)}`).toBe(401);
      }
    }
  });

  it('signed in, every action refuses a missing or forged CSRF token', async () => {
    const { browser } = await signedInBrowser(harness);
    for (const route of routes().filter((candidate) => candidate.method === 'POST')) {
      const path = concrete(route.path);
      expect((await browser.post(path, {}, { csrf: null })).status, `${path} without a token`).toBe(403);
      expect((await browser.post(path, {}, { csrf: 'forged-token' })).status, `${path} with a forged token`).toBe(403);
    }
  });

  it('signed in, no page answers a server error for ids that are not the caller’s', async () => {
    const { browser } = await signedInBrowser(harness);
    for (const route of routes().filter((candidate) => candidate.access === 'signed-in')) {
      const path = concrete(route.path);
      // An action carries the token of the page it was sent from: read one first.
      if (route.method === 'POST') await browser.get('/console');
      const page = route.method === 'GET' ? await browser.get(path) : await browser.post(path, {});
      expect(page.status, `${route.method} ${path}: ${page.html.slice(0, 300)}`).toBeLessThan(500);
    }
  });
});

describe("another account's things", () => {
  it("cannot rotate or revoke another account's key from its own session", async () => {
    const owner = await signedInBrowser(harness);
    const { id } = await harness.createKey(owner.accountId);
    const stranger = await signedInBrowser(harness);
    await stranger.browser.get('/console/settings/api-access');
    const revoke = await stranger.browser.post(`/console/settings/api-access/keys/${id}/revoke`, {});
    expect(revoke.status).toBe(404);
    expect(revoke.html).toContain(`No API key with id ${id}.`);
    const rotate = await stranger.browser.post(`/console/settings/api-access/keys/${id}/rotate`, { grace_seconds: '0' });
    expect(rotate.status).toBe(404);
    const keys = await harness.core.accounts.showAccount(owner.accountId);
    expect(keys.keys.find((key) => key.id === id)?.status).toBe('active');
  });

  it('a non-Expert account sees why it has no API access and cannot create a key', async () => {
    const { browser, accountId } = await signedInBrowser(harness, { plan: 'builder' });
    const page = await browser.get('/console/settings/api-access');
    expect(page.status).toBe(200);
    expect(page.html).toContain('part of the Expert plan');
    const created = await browser.post('/console/settings/api-access/keys', { name: 'sneaky', scopes: 'read:workflow' });
    expect(created.status).toBe(400);
    expect(created.html).toContain('Only Expert accounts may create API keys');
    expect((await harness.core.accounts.showAccount(accountId)).keys).toEqual([]);
  });
});

describe('numbers typed in forms', () => {
  it('are read as numbers, so the operation says what is wrong with them (regression: "expected number, received string")', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get('/console/settings/api-access');
    const negative = await browser.post('/console/settings/api-access/keys', { name: 'n', scopes: 'read:workflow', requests_per_minute: '-5' });
    expect(negative.status).toBe(400);
    expect(negative.html).toContain('requests_per_minute: must be at least 1');
    expect(negative.html).not.toContain('expected number');
    const threshold = await browser.post('/console/settings/webhooks/credits-low', { threshold_credits: '1e3' });
    expect(threshold.html).toContain('credits.low now fires below 1,000 credits.');
  });
});

describe('bad requests', () => {
  it('an unknown console page is an HTML 404, and an oversized form an HTML 413, never the API envelope or a 500', async () => {
    const { browser } = await signedInBrowser(harness);
    const missing = await browser.get('/console/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.html).toContain('There is no console page at /console/no-such-page.');
    await browser.get('/console/settings/api-access');
    const huge = await browser.post('/console/settings/api-access/keys', { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/^text\/html/);
    // In the signed-in frame, with its navigation and token (regression: the signed-out frame, an empty token).
    expect(huge.html).toContain('action="/console/sign-out"');
    expect(huge.html).not.toContain('&quot;X-CSRF-Token&quot;:&quot;&quot;');
  });
});
