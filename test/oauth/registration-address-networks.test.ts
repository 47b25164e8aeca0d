/**
 * The registration limit counts a client address by the network it stands for: an IPv6 address
 * by its /64, which one host may rotate through at will, and an IPv4-mapped IPv6 address as the
 * IPv4 address it maps. The addresses arrive as a trusted proxy forwards them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REGISTRATION_LIMITS } from '../../src/core/access/oauth.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const PER_MINUTE = REGISTRATION_LIMITS.perAddress.requestsPerMinute;

async function registerFrom(on: Harness, forwardedFor: string): Promise<number> {
  const response = await fetch(`${on.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ client_name: 'Host', redirect_uris: ['http://127.0.0.1:6274/cb'], token_endpoint_auth_method: 'none' }),
  });
  await response.text();
  return response.status;
}

describe('registration limits per network', () => {
  it('counts every address of one IPv6 /64 together (regression: a host rotating its addresses was never limited)', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: 'loopback' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await registerFrom(harness, `2001:db8:1:2::${(attempt + 1).toString(16)}`)).toBe(201);
    }
    expect(await registerFrom(harness, '2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(429);
    // The next /64 is another client.
    expect(await registerFrom(harness, '2001:db8:1:3::1')).toBe(201);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: 'loopback' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      expect(await registerFrom(harness, attempt % 2 === 0 ? '203.0.113.7' : '::ffff:203.0.113.7')).toBe(201);
    }
    expect(await registerFrom(harness, '::ffff:cb00:7107')).toBe(429);
    expect(await registerFrom(harness, '203.0.113.8')).toBe(201);
  });
});
