/**
 * Interoperability with a real MCP client: the MCP SDK's own OAuth client (`auth()` with an
 * OAuthClientProvider) discovers Porch from the MCP endpoint's URL (protected-resource metadata,
 * then the authorization server's), registers, builds the PKCE authorization URL, exchanges the
 * code and refreshes; its Streamable HTTP transport then lists tools with the token. The person's
 * part (sign-in and consent) is the console over HTTP.
 */
import { createServer } from 'node:net';
import {
  auth,
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

let harness: Harness;
beforeEach(async () => {
  // The SDK follows the URLs the metadata names, so the public URL must be the one listening.
  const port = await freePort();
  harness = await createHarness({ env: { PORT: String(port), PORCH_PUBLIC_URL: `http://127.0.0.1:${port}` } });
});
afterEach(() => harness.close());

/** A host's OAuth state in memory, as an MCP host keeps it. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Host',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

it("the MCP SDK's OAuth client discovers, registers, authorizes with PKCE, lists the granted tools and refreshes", async () => {
  const serverUrl = new URL('/api/public/mcp', harness.url);
  const provider = new MemoryProvider();
  expect(await auth(provider, { serverUrl, scope: 'read:workflow execute:workflow' })).toBe('REDIRECT');
  const authorizationUrl = provider.authorizationUrl;
  if (!authorizationUrl) throw new Error('the SDK did not redirect');
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl.href);

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
