/**
 * Console sign-in over real HTTP: one-time links, passwords, sessions (idle and absolute expiry,
 * sign-out, sign-out everywhere), CSRF on every state change, attempt limits, and answers that
 * never tell whether an email has an account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeNext } from '../../src/console/pages/sign-in.js';
import { consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const HOUR_MS = 3_600_000;

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(async () => {
  await harness.close();
});

describe('one-time links', () => {
  it('an invite link sets the password once; the same link then refuses', async () => {
    const email = `invitee-${Date.now()}@example.com`;
    await harness.createAccount({ email });
    const link = await harness.core.consoleSessions.issueLink({ account: await harness.core.accounts.accountByEmail(email), purpose: 'invite' });
    const browser = consoleBrowser(harness);
    const form = await browser.get(`/console/set-password?token=${link.token}`);
    expect(form.status, form.html).toBe(200);
    const set = await browser.post('/console/set-password', { token: link.token, password: 'a long enough password', confirm: 'a long enough password' });
    expect(set.status, set.html).toBe(303);
    expect(set.location).toBe('/console/sign-in?password=set');
    // The used link says so before a password is typed (regression: it showed the form).
    const used = await browser.get(`/console/set-password?token=${link.token}`);
    expect(used.status).toBe(400);
    expect(used.html).toContain('This link is invalid, expired or already used');
    expect(used.html).not.toContain('name="password"');
    for (const path of ['/console/set-password', '/console/set-password?token=not-a-token']) {
      expect((await browser.get(path)).html, path).toContain('This link does not work');
    }
    const again = await browser.post('/console/set-password', { token: link.token, password: 'another long password', confirm: 'another long password' });
    expect(again.status).toBe(400);
    expect(again.html).toContain('This link is invalid, expired or already used');
  });

  it('refuses a short password and keeps the link usable', async () => {
    const email = `short-${Date.now()}@example.com`;
    await harness.createAccount({ email });
    const link = await harness.core.consoleSessions.issueLink({ account: await harness.core.accounts.accountByEmail(email), purpose: 'invite' });
    const browser = consoleBrowser(harness);
    await browser.get(`/console/set-password?token=${link.token}`);
    const short = await browser.post('/console/set-password', { token: link.token, password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('at least 12 characters');
    const good = await browser.post('/console/set-password', { token: link.token, password: 'now long enough, truly', confirm: 'now long enough, truly' });
    expect(good.status, good.html).toBe(303);
  });

  it('an expired reset link refuses', async () => {
    const email = `expired-${Date.now()}@example.com`;
    await harness.createAccount({ email });
    const link = await harness.core.consoleSessions.issueLink({ account: await harness.core.accounts.accountByEmail(email), purpose: 'reset' });
    const browser = consoleBrowser(harness);
    await browser.get(`/console/set-password?token=${link.token}`);
    harness.clock.advance(HOUR_MS + 1);
    const used = await browser.post('/console/set-password', { token: link.token, password: 'a long enough password', confirm: 'a long enough password' });
    expect(used.status).toBe(400);
    expect((await browser.get(`/console/set-password?token=${link.token}`)).html).toContain('This link is invalid, expired or already used');
  });

  it('a reset signs every session of the account out', async () => {
    const { browser, email } = await signedInBrowser(harness);
    expect((await browser.get('/console')).status).toBe(200);
    const link = await harness.core.consoleSessions.issueLink({ account: await harness.core.accounts.accountByEmail(email), purpose: 'reset' });
    const other = consoleBrowser(harness);
    await other.get(`/console/set-password?token=${link.token}`);
    expect((await other.post('/console/set-password', { token: link.token, password: 'a brand new password', confirm: 'a brand new password' })).status).toBe(
      303,
    );
    const after = await browser.get('/console');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/console/sign-in?next=%2Fconsole');
  });
});

describe('signing in', () => {
  it('a wrong password and an unknown email get the same answer', async () => {
    const { email } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    await browser.get('/console/sign-in');
    const wrong = await browser.post('/console/sign-in', { email, password: 'not the password at all' });
    await browser.get('/console/sign-in');
    const unknown = await browser.post('/console/sign-in', { email: `nobody-${Date.now()}@example.com`, password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /<div class="notice notice-error" role="alert"[^>]*>([^<]*)<\/div>/.exec(html)?.[1];
    expect(message(wrong.html)).toBe('The email or password is incorrect.');
    expect(message(unknown.html)).toBe(message(wrong.html));
  });

  it('answers a refused sign-in at the sign-in address, so a reload reads the form rather than sending the password again (regression: re-posted)', async () => {
    const { email } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    await browser.get('/console/sign-in?next=%2Fconsole%2Fruns');
    const wrong = await browser.post('/console/sign-in', { email, password: 'not the password at all', next: '/console/runs' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('data-address="/console/sign-in?next=%2Fconsole%2Fruns"');
  });

  it('goes back to the page that asked for sign-in, never to another site', async () => {
    const { email, password } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    const asked = await browser.get('/console/settings/sessions');
    expect(asked.location).toBe('/console/sign-in?next=%2Fconsole%2Fsettings%2Fsessions');
    await browser.get(asked.location ?? '');
    const back = await browser.post('/console/sign-in', { email, password, next: '/console/settings/sessions' });
    expect(back.location).toBe('/console/settings/sessions');
    const other = consoleBrowser(harness);
    await other.get('/console/sign-in');
    const offsite = await other.post('/console/sign-in', { email, password, next: '//evil.example/console' });
    expect(offsite.location).toBe('/console');
  });

  it('never goes to another part of the site through the console: dot segments in any spelling (regression: next=/console/../oauth/authorize)', async () => {
    for (const next of [
      '/console/../oauth/authorize?client_id=x',
      '/console/%2e%2e/oauth/authorize',
      '/console/.%2E/oauth/authorize',
      '/console/%2E./oauth',
      '/console/..%2foauth/authorize',
      '/console/..%5coauth/authorize',
      '/console/./settings',
      '/console/..',
      '/console/.\t./oauth',
      '/consolex',
      '/console\\evil',
      '//evil.example/console',
      'https://evil.example/console',
    ]) {
      expect(safeNext(next), next).toBe('/console');
    }
    expect(safeNext('/console/runs?status=failed#top')).toBe('/console/runs?status=failed#top');
    expect(safeNext('/console/connect/abc-123')).toBe('/console/connect/abc-123');
    expect(safeNext('/console')).toBe('/console');
    // Over HTTP, as a sign-in link would carry it.
    harness.clock.advance(61_000);
    const { email, password } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    await browser.get('/console/sign-in?next=%2Fconsole%2F..%2Foauth%2Fauthorize%3Fclient_id%3Dx');
    expect(browser.csrf()).not.toBe('');
    const signedIn = await browser.post('/console/sign-in', { email, password, next: '/console/../oauth/authorize?client_id=x' });
    expect(signedIn.location).toBe('/console');
  });

  it('binds the forms of a visitor without a session to a SameSite=Lax cookie, which a page opened from another site still sees (regression: Strict, so such a page replaced it and the open tabs’ forms were refused)', async () => {
    const response = await fetch(`${harness.url}/refine`, { headers: { 'sec-fetch-site': 'cross-site' } });
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('porch_form='));
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/HttpOnly/);
  });

  it('sets an HttpOnly, SameSite=Lax session cookie holding no account data', async () => {
    const { email, password } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    await browser.get('/console/sign-in');
    const response = await fetch(`${harness.url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...browser.cookies()].map(([n, v]) => `${n}=${v}`).join('; ') },
      body: new URLSearchParams({ _csrf: browser.csrf(), email, password }).toString(),
    });
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('porch_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toContain(email);
  });

  it('limits attempts per account: the eleventh within a minute is refused with Retry-After', async () => {
    // A fresh minute: every test here signs in from the same address, which has its own (larger) limit.
    harness.clock.advance(61_000);
    const { email, password } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    for (let attempt = 0; attempt < 9; attempt++) {
      await browser.get('/console/sign-in');
      expect((await browser.post('/console/sign-in', { email, password: `wrong guess ${attempt}` })).status).toBe(401);
    }
    await browser.get('/console/sign-in');
    const refused = await browser.post('/console/sign-in', { email, password });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    harness.clock.advance(61_000);
    await browser.get('/console/sign-in');
    expect((await browser.post('/console/sign-in', { email, password })).status).toBe(303);
  });
});

describe('sessions', () => {
  it('ends after 12 hours without use, but not while used', async () => {
    const { browser } = await signedInBrowser(harness);
    for (let hour = 0; hour < 3; hour++) {
      harness.clock.advance(11 * HOUR_MS);
      expect((await browser.get('/console')).status).toBe(200);
    }
    harness.clock.advance(12 * HOUR_MS + 1);
    expect((await browser.get('/console')).status).toBe(303);
  });

  it('ends after 7 days however busy', async () => {
    const { browser } = await signedInBrowser(harness);
    for (let step = 0; step < 15; step++) {
      harness.clock.advance(11 * HOUR_MS);
      if ((await browser.get('/console')).status !== 200) break;
    }
    // 15 × 11 h = 165 h > 168 h? Not yet: one more step crosses 7 days.
    harness.clock.advance(4 * HOUR_MS);
    expect((await browser.get('/console')).status).toBe(303);
  });

  it('signing out ends the session in the database, not only the cookie', async () => {
    const { browser } = await signedInBrowser(harness);
    const stolen = new Map(browser.cookies());
    expect((await browser.post('/console/sign-out', {})).status).toBe(303);
    const replay = await fetch(`${harness.url}/console`, { redirect: 'manual', headers: { cookie: [...stolen].map(([n, v]) => `${n}=${v}`).join('; ') } });
    expect(replay.status).toBe(303);
  });

  it('signing out of a tab whose session already ended lands on sign-in, not on an error (regression: 401 page)', async () => {
    const { browser, email, password } = await signedInBrowser(harness);
    const other = consoleBrowser(harness);
    await other.get('/console/sign-in');
    await other.post('/console/sign-in', { email, password });
    await other.get('/console/settings/sessions');
    expect((await other.post('/console/settings/sessions/sign-out-others', {})).html).toContain('Signed out one other session');
    const stale = await browser.post('/console/sign-out', {});
    expect(stale.status).toBe(303);
    expect(stale.location).toBe('/console/sign-in');
  });

  it('refuses a sign-out another site posts, leaving the cookie and the session as they were (regression: cookie cleared, session still listed)', async () => {
    const { browser } = await signedInBrowser(harness);
    // What a browser sends for a form another site submits: no SameSite=Lax cookie, no token.
    const foreign = await fetch(`${harness.url}/console/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: '',
    });
    const html = await foreign.text();
    expect(foreign.status, html).toBe(403);
    expect(html).toContain('This form was sent from another site');
    expect(foreign.headers.getSetCookie().filter((cookie) => cookie.startsWith('porch_session='))).toEqual([]);
    expect((await browser.get('/console')).status).toBe(200);
    // With the cookie (a same-site page without the token), it is refused too, and the session lives on.
    const forged = await browser.post('/console/sign-out', {}, { csrf: null });
    expect(forged.status, forged.html).toBe(403);
    expect((await browser.get('/console')).status).toBe(200);
  });

  it('signs out every other session, keeping this one', async () => {
    const { browser, email, password } = await signedInBrowser(harness);
    const other = consoleBrowser(harness);
    await other.get('/console/sign-in');
    await other.post('/console/sign-in', { email, password });
    expect((await other.get('/console')).status).toBe(200);
    await browser.get('/console/settings/sessions');
    const done = await browser.post('/console/settings/sessions/sign-out-others', {});
    expect(done.status, done.html).toBe(200);
    expect(done.html).toContain('Signed out one other session');
    expect((await other.get('/console')).status).toBe(303);
    expect((await browser.get('/console')).status).toBe(200);
  });
});

describe('CSRF', () => {
  it('refuses a state change without the token, with a wrong one, and from another site', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    await browser.get('/console/settings/api-access');
    expect((await browser.post('/console/settings/api-access/keys', { name: 'x' }, { csrf: null })).status).toBe(403);
    expect((await browser.post('/console/settings/api-access/keys', { name: 'x' }, { csrf: 'forged' })).status).toBe(403);
    const crossSite = await browser.post('/console/settings/api-access/keys', { name: 'x' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.html).toContain('Reload the page and try again');
    // No key was made (the page's markup for a key's name changed twice; the store does not).
    expect((await harness.core.accounts.listKeys(accountId)).map((key) => key.name)).not.toContain('x');
  });

  it("another session's token does not work", async () => {
    const first = await signedInBrowser(harness);
    const second = await signedInBrowser(harness);
    await first.browser.get('/console/settings/api-access');
    await second.browser.get('/console/settings/api-access');
    const refused = await first.browser.post('/console/settings/api-access/keys', { name: 'x' }, { csrf: second.browser.csrf() });
    expect(refused.status).toBe(403);
  });

  it('the sign-in form needs its own token too (no login CSRF)', async () => {
    const { email, password } = await signedInBrowser(harness);
    const browser = consoleBrowser(harness);
    const refused = await browser.post('/console/sign-in', { email, password }, { csrf: 'made-up' });
    expect(refused.status).toBe(403);
  });
});
