/**
 * OAuth 2.1 for MCP hosts, driven over real HTTP without a browser: discovery (protected-resource
 * and authorization-server metadata), dynamic registration, authorization code with PKCE through
 * the console's sign-in and consent page, tokens bound to the MCP endpoint, MCP calls with the
 * token acting as a key of the account, refresh-token rotation, revocation, and disconnecting
 * the app from the account.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bearerChallenge } from '../../src/core/access/oauth.js';
import { type ConsoleBrowser, consoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { TEST_SECRET_KEY } from '../reliability/porch-process.js';

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

/** The token request exchanging an authorization's code, answered as it comes. */
function exchangeRequest({ code, verifier, clientId }: Authorized, resource = mcpResource()) {
  return token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource });
}

async function exchange(authorized: Authorized, resource = mcpResource()) {
  const exchanged = await exchangeRequest(authorized, resource);
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
      // A browser-based MCP client sends MCP-Protocol-Version, so it asks first (regression: 404).
      const preflight = await harness.site('OPTIONS', path, {
        headers: { origin: 'https://inspector.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      expect(preflight.status, describeResponse(preflight)).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('mcp-protocol-version');
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
      // Nothing advertised that the server does not hold to (regression: DPoP, which the MCP
      // endpoint never checked, and a PAR endpoint that answered 404).
      expect(response.body).not.toHaveProperty('dpop_signing_alg_values_supported');
      expect(response.body).not.toHaveProperty('pushed_authorization_request_endpoint');
    }
  });

  it('accepts client ID metadata documents, but never fetches one from a loopback address', async () => {
    const metadata = await harness.site<Record<string, unknown>>('GET', '/.well-known/oauth-authorization-server');
    expect(metadata.body.client_id_metadata_document_supported).toBe(true);
    // A listener on the loopback standing for an internal service: it must see no connection.
    let connections = 0;
    const internal = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const address = internal.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const { browser } = await signedInBrowser(harness);
      for (const clientId of [`https://127.0.0.1:${port}/client.json`, `https://localhost:${port}/client.json`]) {
        const { challenge } = pkce();
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        });
        const answer = await browser.get(`/oauth/authorize?${query}`);
        expect(answer.status, answer.html).toBe(400);
        expect(answer.html).toContain('invalid_client');
      }
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => internal.close(() => resolve()));
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

  it('a token with manage:keys cannot mint a key, which would outlive the app (regression: create_key worked)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser, { scope: 'manage:keys', scopes: ['manage:keys'] }));
    const names = toolNamesOf((await mcp(tokens.accessToken)).text);
    expect(names).toEqual(expect.arrayContaining(['list_keys', 'revoke_key', 'list_connected_apps']));
    expect(names).not.toContain('create_key');
    expect(names).not.toContain('rotate_key');

    const { key: existing } = await harness.createKey(accountId);
    const keyId = (await harness.core.accounts.listKeys(accountId))[0]?.id ?? '';
    expect(existing).toMatch(/^mdi_/);
    for (const [name, args] of [
      ['create_key', { name: 'From the app' }],
      ['rotate_key', { id: keyId }],
    ] as const) {
      const called = await mcp(tokens.accessToken, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });
      expect(called.text).toContain('ACCESS_DENIED: Connected apps cannot');
    }
    expect(await harness.core.accounts.listKeys(accountId)).toHaveLength(1);
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

describe('tokens', () => {
  it('refresh rotates the refresh token: the new pair works, the old refresh token is refused', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const first = await exchange(authorized);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: authorized.clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const second = { accessToken: String(refreshed.body.access_token), refreshToken: String(refreshed.body.refresh_token) };
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await mcp(second.accessToken)).status).toBe(200);

    const reused = await token({ grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: authorized.clientId });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    // Reuse revokes the grant: the new pair stops working and the app is no longer connected
    // (regression: Connected apps still listed it).
    expect((await mcp(second.accessToken)).status).toBe(401);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });

  it('a token acts with its own scope: narrower after a narrowing refresh, never a box ticked beyond the request', async () => {
    // Regression: both tokens could call list_keys, though their scope said read:workflow.
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser, { scope: 'read:workflow manage:keys', scopes: ['read:workflow', 'manage:keys'] });
    const first = await exchange(authorized);
    expect(toolNamesOf((await mcp(first.accessToken)).text)).toContain('list_keys');
    const narrowed = await token({ grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: authorized.clientId, scope: 'read:workflow' });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(narrowed.body.scope).toBe('read:workflow');
    const names = toolNamesOf((await mcp(String(narrowed.body.access_token))).text);
    expect(names).toContain('list_workflows');
    expect(names).not.toContain('list_keys');

    const extra = await authorize(browser, { scope: 'read:workflow', scopes: ['read:workflow', 'manage:keys', 'read:usage'] });
    const extraTokens = await exchange(extra);
    expect(toolNamesOf((await mcp(extraTokens.accessToken)).text)).not.toContain('list_keys');
    const apps = await harness.core.oauth.listConnectedApps(accountId);
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) expect(app.scopes).not.toContain('read:usage');
  });

  it('connects a host that names the MCP resource with a trailing slash (regression: consent asked again, then 500)', async () => {
    const { browser } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser, { resource: `${mcpResource()}/` }), `${mcpResource()}/`);
    const listed = await mcp(tokens.accessToken);
    expect(listed.status, listed.text).toBe(200);
    expect(toolNamesOf(listed.text)).toContain('list_workflows');
  });

  it('refreshes a day later, long after the sign-in that approved the app has ended', async () => {
    const { browser } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const { refreshToken } = await exchange(authorized);
    harness.clock.advance(24 * 60 * 60 * 1000);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: authorized.clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await mcp(String(refreshed.body.access_token))).status).toBe(200);
  });

  it('a code is exchanged once and only with its PKCE verifier', async () => {
    const { browser } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const wrongVerifier = await token({
      grant_type: 'authorization_code',
      code: authorized.code,
      redirect_uri: REDIRECT_URI,
      client_id: authorized.clientId,
      code_verifier: pkce().verifier,
    });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
  });

  it('refuses PKCE plain and a request without a code challenge', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const withoutS256: Array<Record<string, string>> = [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, {}];
    for (const extra of withoutS256) {
      const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, state: 's', ...extra });
      const answer = await browser.get(`/oauth/authorize?${query}`);
      expect(answer.status, answer.html).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.html).toContain('<code>invalid_request</code>');
    }
  });

  it('revoking an access token (RFC 7009) makes the next MCP call 401 and ends the connection', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const tokens = await exchange(authorized);
    expect((await mcp(tokens.accessToken)).status).toBe(200);
    const revoked = await fetch(`${harness.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.accessToken, client_id: authorized.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await mcp(tokens.accessToken)).status).toBe(401);
    // oidc-provider revoked every token of the grant: nothing of the app works, so it is not listed as connected.
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: authorized.clientId });
    expect(refreshed.status).toBe(400);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });

  it('refuses a token for another resource at the authorization endpoint', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
      resource: 'https://elsewhere.example/api',
    });
    const answer = await browser.get(`/oauth/authorize?${query}`);
    expect(answer.status, answer.html).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.html).toContain('<code>invalid_target</code>');
  });

  it('refuses an unknown or malformed bearer token on MCP with 401, as an unknown key', async () => {
    for (const candidate of ['not-a-token', randomBytes(32).toString('base64url')]) {
      const answer = await mcp(candidate);
      expect(answer.status, answer.text).toBe(401);
    }
  });
});

describe('a failed authorization request', () => {
  const LANDING = 'https://evil.example/landing';

  function failing(clientId: string, extra: Record<string, string>): string {
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: LANDING,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
      ...extra,
    });
    return `/oauth/authorize?${query}`;
  }

  it("is answered with Porch's error page, never redirected to the site a client registered (RFC 9700 4.11.2; regression: 303 to it)", async () => {
    const clientId = await register({ redirect_uris: [LANDING] });
    const visitor = consoleBrowser(harness);
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ prompt: 'none' }, 'login_required'],
      [{ resource: 'https://elsewhere.example/api' }, 'invalid_target'],
      [{ scope: 'openid nonsense:scope', prompt: 'none' }, 'login_required'],
    ];
    for (const [extra, error] of cases) {
      const answer = await visitor.get(failing(clientId, extra));
      expect(answer.status, `${JSON.stringify(extra)}: ${answer.html}`).toBe(400);
      expect(answer.location, JSON.stringify(extra)).toBeNull();
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.html).toContain(`<code>${error}</code>`);
      expect(answer.html).not.toContain('evil.example');
    }
  });

  it('after the consent page, a denial still returns to the app', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register({ redirect_uris: [LANDING] });
    const started = await browser.get(failing(clientId, {}));
    expect(started.status, started.html).toBe(303);
    const consentPath = pathOf(started.location);
    await browser.get(consentPath);
    const denied = await browser.post(consentPath, { decision: 'deny' });
    const resumed = await browser.get(pathOf(denied.location));
    expect(resumed.status, resumed.html).toBe(303);
    const back = new URL(resumed.location ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(LANDING);
    expect(back.searchParams.get('error')).toBe('access_denied');
  });
});

describe('response modes', () => {
  it('neither advertises nor accepts form_post, whose page the Content-Security-Policy keeps from posting the code (regression: the app never got it)', async () => {
    const metadata = await harness.site<Record<string, unknown>>('GET', '/.well-known/oauth-authorization-server');
    expect(metadata.body.response_modes_supported).toEqual(['fragment', 'query']);
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
      response_mode: 'form_post',
    });
    const answer = await browser.get(`/oauth/authorize?${query}`);
    expect(answer.status, answer.html).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.html).toContain('<code>invalid_request</code>');
    expect(answer.html).not.toContain('<form');
  });
});

describe('connected apps', () => {
  it('revoke_connected_app makes the next MCP call with the token 401 and the refresh token useless', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const tokens = await exchange(authorized);
    // A tool call is counted against the connection's limits as a key's would be: it shows as its last use.
    const called = await mcp(tokens.accessToken, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_workflows', arguments: {} } });
    expect(called.status, called.text).toBe(200);
    expect(called.text).not.toContain('"isError":true');
    const { key } = await harness.createKey(accountId, { scopes: ['manage:keys'] });

    const listed = await harness.api<{ items: Array<{ id: string; name: string; scopes: string[]; last_used_at: string | null }> }>('GET', '/connected-apps', {
      key,
    });
    expect(listed.status, describeResponse(listed)).toBe(200);
    expect(listed.body.data.items).toEqual([
      expect.objectContaining({ name: 'Test Host', scopes: ['read:workflow', 'execute:workflow'], last_used_at: expect.any(String) }),
    ]);
    // Paged as every list is (regression: limit and cursor were ignored).
    const paged = await harness.api<{ count: number; next_cursor: string | null }>('GET', '/connected-apps?limit=1', { key });
    expect(paged.body.data).toMatchObject({ count: 1, next_cursor: null });
    // Never among the keys.
    const keys = await harness.api<{ items: Array<{ name: string }> }>('GET', '/keys', { key });
    expect(keys.body.data.items.map((item) => item.name)).not.toContain('Test Host');

    const [app] = listed.body.data.items;
    const revoked = await harness.api('POST', `/connected-apps/${app?.id}/revoke`, { key });
    expect(revoked.status, describeResponse(revoked)).toBe(200);
    expect((await mcp(tokens.accessToken)).status).toBe(401);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: authorized.clientId });
    expect(refreshed.status).toBe(400);
    expect((await harness.api('POST', `/connected-apps/${app?.id}/revoke`, { key })).status).toBe(404);
  });

  it("the operator's key commands never act on an app's credential (regression: porch key rotate made a hidden mdi_ key)", async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const tokens = await exchange(authorized);
    const [app] = await harness.core.oauth.listConnectedApps(accountId);
    const keyId = String(app?.keyId);
    await expect(harness.core.accounts.rotateKey(keyId, { graceSeconds: 60 })).rejects.toThrow(`No API key with id ${keyId}.`);
    await expect(harness.core.accounts.revokeKey(keyId)).rejects.toThrow(`No API key with id ${keyId}.`);
    expect((await harness.core.accounts.showAccount(accountId)).keys.map((key) => key.id)).not.toContain(keyId);
    expect((await mcp(tokens.accessToken)).status, 'the app still works').toBe(200);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toHaveLength(1);
  });

  it('disconnects from Settings → API access with the Revoke button', async () => {
    const { browser } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser));
    const page = await browser.get('/console/settings/api-access');
    expect(page.html).toContain('Connected apps');
    expect(page.html).toContain('Test Host');
    const action = /action="(\/console\/settings\/api-access\/connected-apps\/[^"]+\/revoke)"/.exec(page.html)?.[1];
    expect(action).toBeDefined();
    const revoked = await browser.post(String(action), {});
    expect(revoked.status, revoked.html).toBe(200);
    expect(revoked.html).toContain('Disconnected Test Host');
    expect((await mcp(tokens.accessToken)).status).toBe(401);
  });

  it('a token carries the plan rule of keys: off Expert it is refused like a key', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser));
    await harness.core.accounts.setPlan(accountId, 'builder');
    const answer = await mcp(tokens.accessToken);
    expect(answer.status, answer.text).toBe(401);
    expect(answer.text).toContain('API_EXPERT_ONLY');
  });
});

describe('consent', () => {
  it('deny sends access_denied back to the app and connects nothing', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const started = await browser.get(`/oauth/authorize?${query}`);
    const consentPath = pathOf(started.location);
    await browser.get(consentPath);
    const denied = await browser.post(consentPath, { decision: 'deny' });
    expect(denied.status, denied.html).toBe(303);
    const resumed = await browser.get(pathOf(denied.location));
    expect(new URL(resumed.location ?? '').searchParams.get('error')).toBe('access_denied');
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });

  it('sends a visitor who is not signed in to the console sign-in, then back to the consent page', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const started = await browser.get(`/oauth/authorize?${query}`);
    const consentPath = pathOf(started.location);
    const session = [...browser.cookies().keys()].find((name) => name.endsWith('porch_session'));
    if (session) browser.cookies().delete(session);
    const answer = await browser.get(consentPath);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`/console/sign-in?next=${encodeURIComponent(consentPath)}`);
  });

  it('a plan that cannot hold keys sees why and can only decline', async () => {
    const { browser } = await signedInBrowser(harness, { plan: 'builder' });
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const consentPath = pathOf((await browser.get(`/oauth/authorize?${query}`)).location);
    const page = await browser.get(consentPath);
    expect(page.html).toContain('only Expert accounts may use keys');
    expect(page.html).not.toContain('value="approve"');
    const forced = await browser.post(consentPath, { decision: 'approve', scope: 'read:workflow' });
    expect(forced.status).toBe(401);
  });

  it('refuses a consent POST without the CSRF token', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const consentPath = pathOf((await browser.get(`/oauth/authorize?${query}`)).location);
    await browser.get(consentPath);
    const forged = await browser.post(consentPath, { decision: 'approve', scope: 'read:workflow' }, { csrf: null });
    expect(forged.status).toBe(403);
  });

  it('ticks the scopes a host asked for, and a new key’s defaults when it named none', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const { challenge } = pkce();
    const base = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    };
    const checked = (html: string) => [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)" checked/g)].map((match) => match[1]);
    const named = await browser.get(
      pathOf((await browser.get(`/oauth/authorize?${new URLSearchParams({ ...base, scope: 'read:skill api:judge' })}`)).location),
    );
    expect(checked(named.html)).toEqual(['read:skill', 'api:judge']);
    // Only what was asked for is offered: nothing else could be granted.
    const offered = [...named.html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"/g)].map((match) => match[1]);
    expect(offered).toEqual(['read:skill', 'api:judge']);
    const unnamed = await browser.get(pathOf((await browser.get(`/oauth/authorize?${new URLSearchParams(base)}`)).location));
    expect(checked(unnamed.html)).not.toContain('manage:keys');
    expect(checked(unnamed.html)).toContain('execute:workflow');
  });
});

describe('concurrent uses on PostgreSQL', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    await harness.close();
    database = await createTestDatabase();
    harness = await createHarness({ env: { DATABASE_URL: database.url, PORCH_SECRET_KEY: TEST_SECRET_KEY } });
  });
  afterEach(async () => {
    await harness.close();
    await database.drop();
    // The file's own afterEach closes the harness again: give it one to close.
    harness = await createHarness();
  });

  it('of one refresh token: one refresh wins, the others are reuse and revoke the grant (regression: every parallel refresh won)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const tokens = await exchange(authorized);
    const refreshes = await Promise.all(
      Array.from({ length: 6 }, () => token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: authorized.clientId })),
    );
    expect(refreshes.map((refresh) => refresh.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const winner = refreshes.find((refresh) => refresh.status === 200);
    const next = await token({ grant_type: 'refresh_token', refresh_token: String(winner?.body.refresh_token), client_id: authorized.clientId });
    expect(next.status, 'the grant was revoked with the reuse').toBe(400);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });

  it('of one authorization code: at most one exchange is answered, and the reuse leaves nothing connected', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const exchanges = await Promise.all(Array.from({ length: 4 }, () => exchangeRequest(authorized)));
    // The one oidc-provider answers is refused too when the reuse revoked the grant before its
    // connection was made (invalid_grant); either way no token works.
    const statuses = exchanges.map((exchanged) => exchanged.status).sort();
    expect([JSON.stringify([200, 400, 400, 400]), JSON.stringify([400, 400, 400, 400])]).toContain(JSON.stringify(statuses));
    for (const exchanged of exchanges.filter((candidate) => candidate.status === 200)) {
      expect((await mcp(String(exchanged.body.access_token))).status, 'the grant was revoked with the reuse').toBe(401);
    }
    // Regression: a connection made after the revocation stayed listed, and its token worked.
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });
});

describe('reconnecting', () => {
  it('approving the same app again replaces its earlier connection and ends the earlier tokens', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const clientId = await register();
    const first = await exchange(await authorize(browser, { clientId }));
    const second = await exchange(await authorize(browser, { clientId, scopes: ['read:skill'] }));
    const apps = await harness.core.oauth.listConnectedApps(accountId);
    expect(apps.map((app) => app.scopes)).toEqual([['read:skill']]);
    expect((await mcp(first.accessToken)).status).toBe(401);
    const listed = await mcp(second.accessToken);
    expect(listed.status, listed.text).toBe(200);
    expect(toolNamesOf(listed.text)).toContain('list_skills');
    expect(toolNamesOf(listed.text)).not.toContain('list_workflows');
  });
});

describe('registrations', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;

  async function registration(body: Record<string, unknown>) {
    const response = await fetch(`${harness.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Web Host', token_endpoint_auth_method: 'none', ...body }),
    });
    return { status: response.status, body: await json(response) };
  }

  it('accepts redirect URIs on https or on localhost only, as the MCP authorization spec requires', async () => {
    for (const uri of ['https://host.example/callback', 'http://localhost:6274/callback', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb']) {
      const accepted = await registration({ redirect_uris: [uri] });
      expect(accepted.status, `${uri}: ${JSON.stringify(accepted.body)}`).toBe(201);
    }
    // A web client on plain http elsewhere would receive its codes in clear (regression: accepted).
    // oidc-provider answers a refused redirect URI with RFC 7591's own error code.
    for (const uris of [['http://host.example/callback'], ['https://host.example/callback', 'http://10.0.0.5/callback']]) {
      const refused = await registration({ redirect_uris: uris });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must use https, or http only on localhost' });
    }
  });

  it('refuses custom-scheme redirect URIs, native clients included (regression: com.example.app:/cb and ms-settings:x accepted)', async () => {
    for (const uri of ['com.example.app:/cb', 'ms-settings:x', 'javascript:alert(1)', 'file:///tmp/cb', 'ftp://host.example/cb']) {
      for (const applicationType of ['native', 'web']) {
        const refused = await registration({ application_type: applicationType, redirect_uris: [uri] });
        expect(refused.status, `${applicationType} ${uri}: ${JSON.stringify(refused.body)}`).toBe(400);
        expect(refused.body).toMatchObject({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must use https, or http only on localhost' });
        // Refused within the minute's registrations allowed from one address.
        harness.clock.advance(61_000);
      }
    }
    const native = await registration({ application_type: 'native', redirect_uris: ['http://127.0.0.1:6274/cb'] });
    expect(native.status, JSON.stringify(native.body)).toBe(201);
  });

  it('refuses metadata longer than its field allows, naming the field (regression: 50,000-character names kept a month)', async () => {
    const long = (length: number) => 'x'.repeat(length);
    const uri = (length: number) => `https://host.example/${long(length - 'https://host.example/'.length)}`;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ client_name: long(201) }, 'invalid_client_metadata', 'client_name must be at most 200 characters long'],
      [{ client_name: long(50_000) }, 'invalid_client_metadata', 'client_name must be at most 200 characters long'],
      [{ client_uri: uri(2_049) }, 'invalid_client_metadata', 'client_uri must be at most 2048 characters long'],
      [{ logo_uri: uri(2_049) }, 'invalid_client_metadata', 'logo_uri must be at most 2048 characters long'],
      [{ policy_uri: uri(2_049) }, 'invalid_client_metadata', 'policy_uri must be at most 2048 characters long'],
      [{ tos_uri: uri(2_049) }, 'invalid_client_metadata', 'tos_uri must be at most 2048 characters long'],
      [{ software_id: long(201) }, 'invalid_client_metadata', 'software_id must be at most 200 characters long'],
      [{ contacts: Array.from({ length: 11 }, (_, index) => `a${index}@example.com`) }, 'invalid_client_metadata', 'contacts must have at most 10 entries'],
      [{ contacts: [`${long(2_049)}@example.com`] }, 'invalid_client_metadata', 'contacts entries must be at most 2048 characters long'],
      [
        { redirect_uris: Array.from({ length: 11 }, (_, index) => `https://host.example/cb${index}`) },
        'invalid_redirect_uri',
        'redirect_uris must have at most 10 entries',
      ],
      [{ redirect_uris: [uri(2_049)] }, 'invalid_redirect_uri', 'redirect_uris entries must be at most 2048 characters long'],
    ];
    for (const [metadata, error, description] of cases) {
      const refused = await registration({ redirect_uris: [REDIRECT_URI], ...metadata });
      expect(refused.status, `${description}: ${JSON.stringify(refused.body).slice(0, 300)}`).toBe(400);
      expect(refused.body).toEqual({ error, error_description: description });
      // Refused within the minute's registrations allowed from one address.
      harness.clock.advance(61_000);
    }
    const atTheLimits = await registration({
      client_name: long(200),
      client_uri: uri(2_048),
      redirect_uris: Array.from({ length: 10 }, (_, index) => `https://host.example/cb${index}`),
    });
    expect(atTheLimits.status, JSON.stringify(atTheLimits.body).slice(0, 300)).toBe(201);
  });

  it("keeps the host's software_id and software_version (RFC 7591), which must be strings", async () => {
    const registered = await registration({ redirect_uris: [REDIRECT_URI], software_id: 'example-host', software_version: '2.4.0' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body).toMatchObject({ software_id: 'example-host', software_version: '2.4.0' });
    const refused = await registration({ redirect_uris: [REDIRECT_URI], software_version: 2 });
    expect(refused.body).toMatchObject({ error: 'invalid_client_metadata', error_description: 'software_version must be a string' });
  });

  it('refuses a client_name with control or bidirectional formatting characters (regression: U+202E turned the consent page around)', async () => {
    for (const name of ['Test <b>App</b> \u202e evil', 'Isolated \u2067name\u2069', 'Marked\u200fname', 'Two\nlines', 'Bell\u0007']) {
      const refused = await registration({ redirect_uris: [REDIRECT_URI], client_name: name });
      expect(refused.status, `${JSON.stringify(name)}: ${JSON.stringify(refused.body)}`).toBe(400);
      expect(refused.body).toMatchObject({
        error: 'invalid_client_metadata',
        error_description: 'client_name must not contain control characters or bidirectional formatting characters (such as U+202E)',
      });
    }
    // Markup and scripts of every direction are only text: kept as registered, escaped where shown.
    const accepted = await registration({ redirect_uris: [REDIRECT_URI], client_name: 'Test <b>App</b> مرحبا' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.client_name).toBe('Test <b>App</b> مرحبا');
  });

  it('shows a name registered before that rule without its bidirectional characters, isolated on the consent page and listed so', async () => {
    const clientId = await register();
    // As a registration stored before the rule holds it.
    const stored = await harness.core.oauth.objects.find('Client', clientId);
    if (stored === null) throw new Error('the client was not stored');
    await harness.core.oauth.objects.save('Client', clientId, { ...stored.payload, client_name: 'Test Host \u202e evil' }, undefined);
    const { browser, accountId } = await signedInBrowser(harness);
    const { path, page, verifier } = await consentPage(browser, { clientId });
    expect(page.html).not.toContain('\u202e');
    expect(page.html).toContain('Connect <bdi>Test Host  evil</bdi> to Porch?');
    expect(page.html).toContain('<strong><bdi>Test Host  evil</bdi></strong> asks to use');
    const approved = await browser.post(path, { decision: 'approve', scope: ['read:workflow'] });
    expect(approved.status, approved.html).toBe(303);
    const resumed = await browser.get(pathOf(approved.location));
    const code = new URL(resumed.location ?? '').searchParams.get('code');
    expect(code, resumed.location ?? '').toBeTruthy();
    await exchange({ code: String(code), verifier, clientId });
    expect((await harness.core.oauth.listConnectedApps(accountId)).map((app) => app.clientName)).toEqual(['Test Host  evil']);
    expect((await browser.get('/console/settings/api-access')).html).toContain('<td role="cell" class="name" data-label="App"><bdi>Test Host  evil</bdi></td>');
  });

  it('forgets a client unused for longer than a refresh token lives, and keeps one in use', async () => {
    const idle = await register();
    const used = await register();
    harness.clock.advance(20 * DAY_MS);
    // Signed in after the clock moved: a console session does not last twenty days.
    const { browser } = await signedInBrowser(harness);
    const tokens = await exchange(await authorize(browser, { clientId: used }));
    harness.clock.advance(20 * DAY_MS);

    expect((await harness.core.maintenance.sweep()).prunedOAuthObjects).toBeGreaterThanOrEqual(1);
    const forgotten = await token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: idle });
    expect(forgotten.body.error, JSON.stringify(forgotten.body)).toBe('invalid_client');
    // Forty days after it registered, the client in use still refreshes its tokens.
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: used });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });
});

/** Authorize with PKCE up to the consent page: its path and the page, for tests that decide themselves. */
async function consentPage(browser: ConsoleBrowser, options: { clientId: string; scope?: string }) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-1',
    resource: mcpResource(),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  });
  const started = await browser.get(`/oauth/authorize?${query}`);
  expect(started.status, started.html).toBe(303);
  const path = pathOf(started.location);
  expect(path, String(started.location)).toMatch(/^\/console\/connect\/[\w-]+$/);
  const page = await browser.get(path);
  expect(page.status, page.html).toBe(200);
  return { path, page, verifier };
}

const checkedScopes = (html: string) => [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)" checked/g)].map((match) => String(match[1]));
const offeredScopes = (html: string) => [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"/g)].map((match) => String(match[1]));

describe('a connection in use', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  // oidc-provider reads the system clock, the store the harness's: both move together.
  function advance(ms: number) {
    harness.clock.advance(ms);
    vi.setSystemTime(harness.clock.now());
  }
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: harness.clock.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps working while it refreshes, past 30 days after the approval (regression: cut off at day 30, "grant is expired")', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    let { refreshToken } = await exchange(authorized);
    for (let day = 20; day <= 100; day += 20) {
      advance(20 * DAY_MS);
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: authorized.clientId });
      expect(refreshed.status, `day ${day}: ${JSON.stringify(refreshed.body)}`).toBe(200);
      refreshToken = String(refreshed.body.refresh_token);
      expect((await mcp(String(refreshed.body.access_token))).status, `day ${day}`).toBe(200);
      expect(await harness.core.oauth.listConnectedApps(accountId), `day ${day}`).toHaveLength(1);
    }
  });

  it('is no longer listed once unused for longer than its refresh token lives, and the sweep ends it (regression: listed forever)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    const { refreshToken } = await exchange(authorized);
    const [app] = await harness.core.oauth.listConnectedApps(accountId);
    advance(29 * DAY_MS);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toHaveLength(1);
    advance(DAY_MS + 60 * 60 * 1000);
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: authorized.clientId });
    expect(refreshed.body.error, JSON.stringify(refreshed.body)).toBe('invalid_grant');
    advance(2 * DAY_MS);
    await harness.core.maintenance.sweep();
    // Ended with its grant: its credential is revoked, and Revoke finds nothing left to end.
    expect((await harness.store.apiKeys.findById(String(app?.keyId)))?.revokedAt).not.toBeNull();
    await expect(harness.core.oauth.revokeConnectedApp(accountId, String(app?.keyId))).rejects.toThrow('No connected app');
  });
});

describe('a decision that yields no tokens', () => {
  it('Approve then Deny on the same consent page connects nothing and keeps the earlier connection (regression: refused app listed, earlier one ended)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const clientId = await register();
    const earlier = await exchange(await authorize(browser, { clientId }));
    const [before] = await harness.core.oauth.listConnectedApps(accountId);

    const { path } = await consentPage(browser, { clientId });
    const approved = await browser.post(path, { decision: 'approve', scope: ['read:workflow'] });
    expect(approved.status, approved.html).toBe(303);
    // The approval's redirect not followed (a second tab, the back button): Deny instead.
    const denied = await browser.post(path, { decision: 'deny' });
    expect(denied.status, denied.html).toBe(303);
    const resumed = await browser.get(pathOf(denied.location));
    expect(new URL(resumed.location ?? '').searchParams.get('error')).toBe('access_denied');

    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([before]);
    expect((await mcp(earlier.accessToken)).status, 'the earlier connection still works').toBe(200);
  });

  it('an approval whose code is never exchanged lists nothing and leaves the earlier connection working', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const clientId = await register();
    const earlier = await exchange(await authorize(browser, { clientId }));
    const [before] = await harness.core.oauth.listConnectedApps(accountId);
    await authorize(browser, { clientId, scopes: ['read:skill'] });
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([before]);
    expect((await mcp(earlier.accessToken)).status).toBe(200);
  });

  it('a code exchanged after the account left Expert connects nothing', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const authorized = await authorize(browser);
    await harness.core.accounts.setPlan(accountId, 'builder');
    const exchanged = await exchangeRequest(authorized);
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(400);
    expect(exchanged.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('Expert') });
    expect(exchanged.body).not.toHaveProperty('access_token');
    await harness.core.accounts.setPlan(accountId, 'expert');
    expect(await harness.core.oauth.listConnectedApps(accountId)).toEqual([]);
  });
});

describe('requests naming no Porch scope', () => {
  it('openid, offline_access or only unknown scopes get a new key’s defaults, and approving them connects (regression: no checkbox, 400)', async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const clientId = await register();
    for (const scope of ['openid', 'offline_access', 'openid offline_access', 'profile unknown:scope']) {
      const { path, page, verifier } = await consentPage(browser, { clientId, scope });
      expect(checkedScopes(page.html), scope).toContain('execute:workflow');
      expect(checkedScopes(page.html), scope).not.toContain('manage:keys');
      const approved = await browser.post(path, { decision: 'approve', scope: checkedScopes(page.html) });
      expect(approved.status, `${scope}: ${approved.html}`).toBe(303);
      const resumed = await browser.get(pathOf(approved.location));
      const code = new URL(resumed.location ?? '').searchParams.get('code');
      expect(code, `${scope}: ${resumed.location}`).toBeTruthy();
      const tokens = await exchange({ code: String(code), verifier, clientId });
      expect(toolNamesOf((await mcp(tokens.accessToken)).text), scope).toContain('execute_workflow');
    }
    expect((await harness.core.oauth.listConnectedApps(accountId)).map((app) => app.clientId)).toEqual([clientId]);
  });

  it('offline_access just after an approval in the same browser shows the consent page (regression: bare access_denied)', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    await exchange(await authorize(browser, { clientId }));
    const { page } = await consentPage(browser, { clientId, scope: 'offline_access' });
    expect(offeredScopes(page.html).length).toBeGreaterThan(0);
  });

  it('a client registered with a scope gets that scope when it names none (RFC 6749 3.3; regression: invalid_scope)', async () => {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register({ scope: 'read:workflow' });
    for (const scope of [undefined, 'unknown:scope']) {
      const { page } = await consentPage(browser, { clientId, scope });
      expect(offeredScopes(page.html), String(scope)).toEqual(['read:workflow']);
      expect(checkedScopes(page.html), String(scope)).toEqual(['read:workflow']);
    }
  });
});

describe('registration from a browser', () => {
  it('answers the CORS preflight and the registration with CORS headers, as the token endpoint does (regression: 404, none)', async () => {
    const origin = 'http://localhost:6274';
    const preflight = await fetch(`${harness.url}/oauth/register`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    const response = await fetch(`${harness.url}/oauth/register`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Browser Host', redirect_uris: [`${origin}/oauth/callback`], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    // The token endpoint, for comparison: oidc-provider's own CORS.
    const tokenPreflight = await fetch(`${harness.url}/oauth/token`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    expect(tokenPreflight.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('answers a registration body over 56 KiB with 413 (regression: 400 "failed to parse the request body")', async () => {
    const response = await fetch(`${harness.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'x'.repeat(60 * 1024), redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    const body = await json(response);
    expect(response.status, JSON.stringify(body)).toBe(413);
    expect(body).toMatchObject({ error: 'invalid_request', error_description: 'The request body is larger than 56 KiB.' });
  });
});
