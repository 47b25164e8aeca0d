/**
 * Interoperability with a real MCP client: the MCP SDK's own OAuth client (`auth()` with an
 * OAuthClientProvider) discovers Porch from the MCP endpoint's URL (protected-resource metadata,
 * then the authorization server's), registers, builds the PKCE authorization URL, exchanges the
 * code and refreshes; its Streamable HTTP transport then lists tools with the token. The person's
 * part (sign-in and consent) is the console over HTTP.
 */
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { MemoryOAuthHost } from '../helpers/oauth-host.js';

let harness: Harness;
beforeEach(async () => {
  // The SDK follows the URLs the metadata names, so the public URL must be the one listening.
  harness = await createHarness({ publicPort: true });
});
afterEach(() => harness.close());

it("the MCP SDK's OAuth client discovers, registers, authorizes with PKCE, lists the granted tools and refreshes", async () => {
  const serverUrl = new URL('/api/public/mcp', harness.url);
  const provider = new MemoryOAuthHost('SDK Host');
  expect(await auth(provider, { serverUrl, scope: 'read:workflow execute:workflow' })).toBe('REDIRECT');
  const authorizationUrl = provider.authorizationUrl;
  if (!authorizationUrl) throw new Error('the SDK did not redirect');
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl.href);
  // Kept for the way back, where the SDK checks the code goes to the same server (SEP-2352).
  expect(provider.discovered?.authorizationServerMetadata?.issuer).toBe(harness.url);

  const { browser } = await signedInBrowser(harness);
  const started = await browser.get(authorizationUrl.pathname + authorizationUrl.search);
  const consentPath = new URL(started.location ?? '', harness.url).pathname;
  expect(consentPath).toMatch(/^\/console\/connect\//);
  expect((await browser.get(consentPath)).html).toContain('SDK Host');
  const approved = await browser.post(consentPath, { decision: 'approve', scope: ['read:workflow', 'execute:workflow'] });
  const resumed = await browser.get(new URL(approved.location ?? '', harness.url).pathname);
  const callback = new URL(resumed.location ?? '');
  const code = callback.searchParams.get('code');
  expect(code, resumed.location ?? '').toBeTruthy();
  // RFC 9207: the response names its issuer, which the SDK checks against the metadata's.
  const iss = callback.searchParams.get('iss') ?? undefined;
  expect(iss).toBe(harness.url);

  expect(await auth(provider, { serverUrl, authorizationCode: String(code), iss })).toBe('AUTHORIZED');
  const first = provider.saved;
  expect(first?.refresh_token).toBeTruthy();

  const client = new Client({ name: 'sdk-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('execute_workflow');
    expect(names).not.toContain('list_keys');
  } finally {
    await client.close();
  }

  // With tokens saved, auth() refreshes (rotation: a new refresh token).
  expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
  expect(provider.saved?.refresh_token).toBeTruthy();
  expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
});
