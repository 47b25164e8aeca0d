/**
 * A client ID metadata document (the client id is the https URL of the app's metadata) is a
 * registration by other means and meets registration's rules: redirect URIs on https or
 * localhost only, bounded text, a showable name. Porch fetches a document only from a public
 * address, so its URL names one (an address literal: no name to resolve) and the fetch of it
 * (globalThis.fetch, which oidc-provider calls) is answered here, never sent; Porch itself is
 * driven over real HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REGISTRATION_LIMITS } from '../../src/core/access/oauth.js';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** A public address, as Porch requires of a document's host; nothing is sent to it. */
const DOCUMENT_HOST = '93.184.215.14';

const realFetch = globalThis.fetch;
let harness: Harness;
/** The documents the app host serves, by URL, and the URLs Porch fetched. */
let documents: Map<string, Record<string, unknown>>;
let fetched: string[];

beforeEach(async () => {
  harness = await createHarness({ backgroundWork: false });
  documents = new Map();
  fetched = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(`https://${DOCUMENT_HOST}/`)) return realFetch(input, init);
    fetched.push(url);
    const document = documents.get(url);
    return Promise.resolve(document === undefined ? new Response('not found', { status: 404 }) : Response.json(document));
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

/** Serves a document naming itself by its URL, with these fields over a well-formed web app's; its client id. */
function serve(name: string, fields: Record<string, unknown>): string {
  const clientId = `https://${DOCUMENT_HOST}/${name}.json`;
  documents.set(clientId, {
    client_id: clientId,
    client_name: 'Document Host',
    redirect_uris: ['https://app.example/callback'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...fields,
  });
  return clientId;
}

/** An authorization request of the client, with PKCE, to the redirect URI; the answer as it comes. */
async function authorize(clientId: string, redirectUri: string) {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
  });
  const response = await fetch(`${harness.url}/oauth/authorize?${query}`, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

describe('a client ID metadata document', () => {
  it('that meets the rules leads to the consent page', async () => {
    const clientId = serve('good', {});
    const answer = await authorize(clientId, 'https://app.example/callback');
    expect(answer.status, answer.html).toBe(303);
    expect(new URL(answer.location ?? '', harness.url).pathname).toMatch(/^\/console\/connect\/[\w-]+$/);
    expect(fetched).toEqual([clientId]);
  });

  it("is refused as a registration would be (regression: a native app's custom scheme, plain http, long and bidirectional names accepted)", async () => {
    const cases: Array<{ name: string; fields: Record<string, unknown>; redirectUri: string; error: string; description: string }> = [
      {
        name: 'native-custom-scheme',
        fields: { application_type: 'native', redirect_uris: ['com.evil:/cb'] },
        redirectUri: 'com.evil:/cb',
        error: 'invalid_redirect_uri',
        description: 'redirect_uris must use https, or http only on localhost',
      },
      {
        name: 'web-plain-http',
        fields: { redirect_uris: ['http://attacker.example/cb'] },
        redirectUri: 'http://attacker.example/cb',
        error: 'invalid_redirect_uri',
        description: 'redirect_uris must use https, or http only on localhost',
      },
      {
        name: 'long-name',
        fields: { client_name: 'x'.repeat(1_000) },
        redirectUri: 'https://app.example/callback',
        error: 'invalid_client_metadata',
        description: 'client_name must be at most 200 characters long',
      },
      {
        name: 'many-redirects',
        fields: { redirect_uris: Array.from({ length: 11 }, (_, index) => `https://app.example/cb${index}`) },
        redirectUri: 'https://app.example/cb0',
        error: 'invalid_redirect_uri',
        description: 'redirect_uris must have at most 10 entries',
      },
      {
        name: 'bidirectional-name',
        fields: { client_name: 'Document \u202e Host' },
        redirectUri: 'https://app.example/callback',
        error: 'invalid_client_metadata',
        description: 'client_name must not contain control characters or bidirectional formatting characters (such as U+202E)',
      },
    ];
    for (const { name, fields, redirectUri, error, description } of cases) {
      const clientId = serve(name, fields);
      // Twice: the second time oidc-provider builds the client from its cache of the document.
      for (const attempt of ['fetched', 'cached']) {
        const answer = await authorize(clientId, redirectUri);
        expect(answer.status, `${name} (${attempt}): ${answer.status} ${answer.location ?? ''} ${answer.html.slice(0, 300)}`).toBe(400);
        expect(answer.html, name).toContain(`<code>${error}</code>`);
        expect(answer.html, name).toContain(description);
      }
      // The document was read: the refusal is the rule's, not a failed fetch.
      expect(
        fetched.filter((url) => url === clientId),
        name,
      ).toEqual([clientId]);
    }
  });

  it('counts each fetched document as a registration from the address, and refuses beyond the limit without fetching (regression: any number of fetches, for anyone)', async () => {
    const clientIds = Array.from({ length: REGISTRATION_LIMITS.perAddress.requestsPerMinute + 1 }, (_, index) => serve(`app-${index}`, {}));
    for (const clientId of clientIds.slice(0, -1)) {
      const answer = await authorize(clientId, 'https://app.example/callback');
      expect(answer.status, answer.html.slice(0, 300)).toBe(303);
    }
    // A document already fetched is not fetched again, so it is not counted again.
    expect((await authorize(clientIds[0] ?? '', 'https://app.example/callback')).status).toBe(303);
    const refused = await authorize(clientIds.at(-1) ?? '', 'https://app.example/callback');
    expect(refused.status, refused.html.slice(0, 300)).toBe(429);
    expect(refused.html).toContain('<code>temporarily_unavailable</code>');
    expect(refused.html).toContain('Too many app registrations from this address; wait and try again.');
    expect(fetched).toEqual(clientIds.slice(0, -1));
    // The same window as POST /oauth/register.
    const registered = await fetch(`${harness.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Host', redirect_uris: ['http://127.0.0.1:6274/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(429);
  });

  it('opens the consent page after the document it holds lapsed, fetching it again (review: 500 once 30 s had passed)', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = serve('slow-reader', {});
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://app.example/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const started = await browser.get(`/oauth/authorize?${query}`);
    expect(started.status, started.html).toBe(303);
    const consentPath = new URL(started.location ?? '', harness.url).pathname;
    expect((await browser.get(consentPath)).status).toBe(200);
    // The person reads the page for 31 s: without Cache-Control, oidc-provider holds a document 30 s.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 31_000);
    const later = await browser.get(consentPath);
    expect(later.status, later.html.slice(0, 300)).toBe(200);
    expect(fetched).toEqual([clientId, clientId]);
  });
});
