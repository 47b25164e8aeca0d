/**
 * OAuth 2.1 for MCP hosts, driven over real HTTP without a browser: discovery (protected-resource
 * and authorization-server metadata), dynamic registration, authorization code with PKCE through
 * the console's sign-in and consent page, tokens bound to the MCP endpoint, MCP calls with the
 * token acting as a key of the account, refresh-token rotation, revocation, and disconnecting
 * the app from the account.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../src/core/access/oauth.js';
import { type ConsoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(() => harness.close());

const REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The public URL (the issuer): what every URL the server writes starts with. */
function site(): string {
  return harness.config.publicUrl;
}

function mcpResource(): string {
  return `${site()}/api/public/mcp`;
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 500)}`);
  }
}

async function register(body: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Host',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...body,
    }),
  });
  const registered = await json(response);
  expect(response.status, JSON.stringify(registered)).toBe(201);
  return String(registered.client_id);
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A path on the harness's server from an absolute Location. */
function pathOf(location: string | null): string {
  if (location === null) throw new Error('no Location');
  const url = new URL(location, harness.url);
  return url.pathname + url.search;
}

interface Authorized {
  code: string;
  verifier: string;
  clientId: string;
}

/** Authorize with PKCE → (signed in) consent page → approve → the code at the redirect URI. */
async function authorize(
  browser: ConsoleBrowser,
  options: { clientId?: string; scopes?: string[]; scope?: string; resource?: string } = {},
): Promise<Authorized> {
  const clientId = options.clientId ?? (await register());
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-1',
    resource: options.resource ?? mcpResource(),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  });
  const started = await browser.get(`/oauth/authorize?${query}`);
  expect(started.status, started.html).toBe(303);
  const consentPath = pathOf(started.location);
  expect(consentPath).toMatch(/^\/console\/connect\/[\w-]+$/);
  const consent = await browser.get(consentPath);
  expect(consent.status, consent.html).toBe(200);
  expect(consent.html).toContain('Test Host');
  const approved = await browser.post(consentPath, { decision: 'approve', scope: options.scopes ?? ['read:workflow', 'execute:workflow'] });
  expect(approved.status, approved.html).toBe(303);
  const resumed = await browser.get(pathOf(approved.location));
  expect(resumed.status, resumed.html).toBe(303);
  const callback = new URL(resumed.location ?? '');
  expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
  expect(callback.searchParams.get('state')).toBe('state-1');
  const code = callback.searchParams.get('code');
  expect(code, callback.href).toBeTruthy();
  return { code: String(code), verifier, clientId };
}

async function token(fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${harness.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: await json(response) };
}

async function exchange({ code, verifier, clientId }: Authorized) {
  const exchanged = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: mcpResource(),
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return { accessToken: String(exchanged.body.access_token), refreshToken: String(exchanged.body.refresh_token), body: exchanged.body };
}

async function mcp(accessToken: string, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) {
  const response = await fetch(`${harness.url}/api/public/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${accessToken}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

function toolNamesOf(text: string): string[] {
  const parsed = JSON.parse(text) as { result?: { tools?: Array<{ name: string }> } };
  return (parsed.result?.tools ?? []).map((tool) => tool.name).sort();
}

describe('discovery', () => {
  it('publishes protected-resource metadata for the MCP endpoint pointing at Porch as the authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/api/public/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await harness.site<Record<string, unknown>>('GET', path);
      expect(response.status, describeResponse(response)).toBe(200);
      expect(response.body).toMatchObject({
        resource: mcpResource(),
        authorization_servers: [site()],
        bearer_methods_supported: ['header'],
        scopes_supported: expect.arrayContaining(['read:workflow', 'manage:keys']),
      });
    }
  });

  it('publishes RFC 8414 metadata: code with S256 only, registration, revocation, resource indicators', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await harness.site<Record<string, unknown>>('GET', path);
      expect(response.status, describeResponse(response)).toBe(200);
      expect(response.body).toMatchObject({
        issuer: site(),
        authorization_endpoint: `${site()}/oauth/authorize`,
        token_endpoint: `${site()}/oauth/token`,
        registration_endpoint: `${site()}/oauth/register`,
        revocation_endpoint: `${site()}/oauth/revoke`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
      });
    }
  });

  it('builds the challenge the MCP door answers a keyless call of a keyed tool with', () => {
    expect(bearerChallenge({ siteUrl: site() })).toBe(
      `Bearer realm="porch", resource_metadata="${site()}/.well-known/oauth-protected-resource/api/public/mcp"`,
    );
    expect(bearerChallenge({ siteUrl: site(), error: 'insufficient_scope', scopes: ['read:workflow'] })).toContain(
      'error="insufficient_scope", scope="read:workflow"',
    );
  });
});

describe('the flow', () => {
  it('connects a host: its token lists exactly the granted tools over MCP and is refused by REST', async () => {
    const { browser } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser));
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    // Opaque: nothing a client could read, and not an API key.
    expect(tokens.accessToken).not.toContain('.');

    const listed = await mcp(tokens.accessToken);
    expect(listed.status, listed.text).toBe(200);
    const names = toolNamesOf(listed.text);
    expect(names).toContain('list_workflows');
    expect(names).toContain('execute_workflow');
    expect(names).not.toContain('list_context_cards');
    expect(names).not.toContain('list_keys');

    const rest = await harness.api('GET', '/workflows', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(rest.status, describeResponse(rest)).toBe(401);
    expect(rest.body.error.message).toContain('MCP endpoint');
  });

  it('stores no token, code or refresh token in plaintext', async () => {
    const { browser } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const tokens = await exchange(authorized);
    const dump = JSON.stringify(
      await Promise.all(
        ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'Grant', 'Client'].map((model) =>
          harness.store.oauth.find({
            model,
            idHash: createHash('sha256')
              .update(model === 'AccessToken' ? tokens.accessToken : tokens.refreshToken)
              .digest('hex'),
            now: harness.clock.now(),
          }),
        ),
      ),
    );
    expect(dump).toContain('AccessToken');
    for (const secret of [tokens.accessToken, tokens.refreshToken, authorized.code]) expect(dump).not.toContain(secret);
  });
});
