/**
 * The consent page describes each scope as it applies to the app being connected: an app's token
 * never mints a key, so `manage:keys` must not promise to create or rotate one (regression: the
 * page used the API-key wording, "List, create, rotate and revoke").
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS } from '../../src/core/access/scopes.js';
import { APP_SCOPE_DESCRIPTIONS } from '../../src/console/pages/connect.js';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

async function register(): Promise<string> {
  const response = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Wording Host',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const registered = (await response.json()) as { client_id?: string };
  expect(response.status, JSON.stringify(registered)).toBe(201);
  return String(registered.client_id);
}

describe('consent page scope wording', () => {
  it('offers manage:keys without creating or rotating keys, as an app’s token may not', async () => {
    const { browser } = await signedInBrowser(harness);
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: await register(),
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'state-1',
      resource: `${harness.config.publicUrl}/api/public/mcp`,
      scope: 'read:workflow manage:keys',
    });
    const started = await browser.get(`/oauth/authorize?${query}`);
    expect(started.status, started.html).toBe(303);
    const consent = await browser.get(new URL(started.location ?? '', harness.url).pathname);
    expect(consent.status, consent.html).toBe(200);
    const hint = /value="manage:keys"[^>]*\/> manage:keys<span class="hint"> ([^<]*)<\/span>/.exec(consent.html)?.[1];
    expect(hint, consent.html).toBeDefined();
    expect(hint).toMatch(/List and revoke the account(&#39;|&#x27;|')s API keys/);
    expect(hint).not.toMatch(/List, create, rotate/);
  });

  it('words every scope for an app, and differs from the key wording only where an app may do less', () => {
    expect(Object.keys(APP_SCOPE_DESCRIPTIONS).sort()).toEqual(Object.keys(SCOPE_DESCRIPTIONS).sort());
    const differing = Object.entries(APP_SCOPE_DESCRIPTIONS)
      .filter(([scope, text]) => SCOPE_DESCRIPTIONS[scope as keyof typeof SCOPE_DESCRIPTIONS] !== text)
      .map(([scope]) => scope);
    expect(differing.sort()).toEqual(['manage:keys', 'manage:organisation']);
    expect(APP_SCOPE_DESCRIPTIONS['manage:organisation']).toContain('list and revoke its BYOK provider keys');
  });
});
