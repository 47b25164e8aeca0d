/**
 * The client address of sign-in's per-address attempt limit behind a reverse proxy: with
 * PORCH_TRUSTED_PROXIES naming the proxy (its addresses, or a hop count), the address the proxy
 * forwarded in X-Forwarded-For; without it, the connection's own, whatever a client writes in
 * that header. Unknown emails are used, so only the per-address window fills.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SIGN_IN_LIMITS } from '../../src/core/access/console-sessions.js';
import { consoleBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const PER_MINUTE = SIGN_IN_LIMITS.perAddress.requestsPerMinute;

/** A failed sign-in (an email without an account) sent with these headers; its status. */
async function failedSignIn(on: Harness, attempt: number, headers: Record<string, string>): Promise<number> {
  const browser = consoleBrowser(on);
  await browser.get('/console/sign-in');
  const answer = await browser.post('/console/sign-in', { email: `nobody-${attempt}@example.com`, password: 'not the password at all' }, { headers });
  return answer.status;
}

describe('sign-in attempts per client address', () => {
  it('behind a trusted proxy, counts each forwarded client on its own (regression: one client locked everyone out)', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: '127.0.0.1' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await failedSignIn(harness, attempt, { 'x-forwarded-for': '203.0.113.7' })).toBe(401);
    }
    expect(await failedSignIn(harness, PER_MINUTE, { 'x-forwarded-for': '203.0.113.7' })).toBe(429);
    expect(await failedSignIn(harness, PER_MINUTE + 1, { 'x-forwarded-for': '203.0.113.8' })).toBe(401);
  });

  it('with a hop count, reads the address the last proxy appended, not one the client wrote before it', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: '1' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await failedSignIn(harness, attempt, { 'x-forwarded-for': `198.51.100.${attempt}, 203.0.113.7` })).toBe(401);
    }
    expect(await failedSignIn(harness, PER_MINUTE, { 'x-forwarded-for': '198.51.100.250, 203.0.113.7' })).toBe(429);
  });

  it('without PORCH_TRUSTED_PROXIES, ignores X-Forwarded-For: the connection is the client', async () => {
    harness = await createHarness({ backgroundWork: false });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await failedSignIn(harness, attempt, { 'x-forwarded-for': `198.51.100.${attempt}` })).toBe(401);
    }
    expect(await failedSignIn(harness, PER_MINUTE, { 'x-forwarded-for': '198.51.100.250' })).toBe(429);
  });
});

describe('PORCH_TRUSTED_PROXIES', () => {
  const load = (value: string) => loadConfig({ DATABASE_URL: ':memory:', PORCH_TRUSTED_PROXIES: value });

  it('reads a hop count, or addresses, ranges and names as Express does', () => {
    expect(load('2').trustedProxies).toBe(2);
    expect(load(' 10.0.0.0/8, loopback ,fd00::/8').trustedProxies).toEqual(['10.0.0.0/8', 'loopback', 'fd00::/8']);
    expect(loadConfig({ DATABASE_URL: ':memory:' }).trustedProxies).toBeUndefined();
  });

  it('refuses an entry that is no address, range or name, naming the setting', () => {
    for (const value of ['nginx', '10.0.0.0/33', 'true']) {
      expect(() => load(value)).toThrow(/PORCH_TRUSTED_PROXIES/);
    }
  });
});
