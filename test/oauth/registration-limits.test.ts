/**
 * Open dynamic client registration (RFC 7591) is limited per client address, in the shared rate
 * windows: the address of the connection, or, behind the proxies PORCH_TRUSTED_PROXIES names, the
 * one they forwarded in X-Forwarded-For.
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

async function register(on: Harness, headers: Record<string, string> = {}) {
  const response = await fetch(`${on.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ client_name: 'Host', redirect_uris: ['http://127.0.0.1:6274/cb'], token_endpoint_auth_method: 'none' }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('registration limits', () => {
  it('refuses registrations from one address beyond the minute with 429 and Retry-After, then allows them again (regression: 500 in 7 seconds)', async () => {
    harness = await createHarness({ backgroundWork: false });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      const registered = await register(harness);
      expect(registered.status, registered.text).toBe(201);
    }
    const refused = await register(harness, { origin: 'https://inspector.example' });
    expect(refused.status, refused.text).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.parse(refused.text)).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    // A browser-based client can read the refusal.
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://inspector.example');
    // Nothing a client writes in X-Forwarded-For changes its address unless a proxy is trusted.
    expect((await register(harness, { 'x-forwarded-for': '203.0.113.99' })).status).toBe(429);
    harness.clock.advance(61_000);
    expect((await register(harness)).status).toBe(201);
  });

  it('counts each client a trusted proxy forwarded on its own (PORCH_TRUSTED_PROXIES)', async () => {
    harness = await createHarness({ backgroundWork: false, env: { PORCH_TRUSTED_PROXIES: 'loopback' } });
    for (let attempt = 0; attempt < PER_MINUTE; attempt++) {
      const registered = await register(harness, { 'x-forwarded-for': '203.0.113.7' });
      expect(registered.status, registered.text).toBe(201);
    }
    expect((await register(harness, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    // Another client behind the same proxy is not locked out (regression: every client shared the proxy's address).
    expect((await register(harness, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(201);
  });
});
