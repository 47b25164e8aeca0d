/**
 * Sign-in's per-address attempt limit reads a client address as OAuth registration's does: an
 * IPv6 address by its /64, an IPv4-mapped IPv6 address as the IPv4 address it maps. The
 * addresses arrive as a trusted proxy forwards them; unknown emails fill only the address window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/core/access/console-sessions.js';
import { consoleBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const PER_MINUTE = SIGN_IN_LIMITS.perAddress.requestsPerMinute;

/** A failed sign-in (an email without an account) forwarded from this address; its status. */
async function failedSignInFrom(on: Harness, attempt: number, forwardedFor: string): Promise<number> {
  const browser = consoleBrowser(on);
  await browser.get('/console/sign-in');
  const answer = await browser.post(
    '/console/sign-in',
    { email: `nobody-${attempt}@example.com`, password: 'not the password at all' },
    { headers: { 'x-forwarded-for': forwardedFor } },
  );
  return answer.status;
}

describe('sign-in attempts per network', () => {
  it('counts every address of one IPv6 /64 together (regression: a host rotating its addresses was never limited)', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: 'loopback' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await failedSignInFrom(harness, attempt, `2001:db8:1:2::${(attempt + 1).toString(16)}`)).toBe(401);
    }
    expect(await failedSignInFrom(harness, PER_MINUTE, '2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(429);
    expect(await failedSignInFrom(harness, PER_MINUTE + 1, '2001:db8:1:3::1')).toBe(401);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: 'loopback' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await failedSignInFrom(harness, attempt, attempt % 2 === 0 ? '203.0.113.7' : '::ffff:203.0.113.7')).toBe(401);
    }
    expect(await failedSignInFrom(harness, PER_MINUTE, '::ffff:cb00:7107')).toBe(429);
    expect(await failedSignInFrom(harness, PER_MINUTE + 1, '203.0.113.8')).toBe(401);
  });
});
