/**
 * Log lines that the MCP door and the OAuth server write while they serve a request carry the
 * request's fields (request id, trace id, account id once known), as docs/operations.md promises
 * of every line written while a request is served. The lines are caught as the logger is called.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult } from '../helpers/mcp-client.js';

const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-00f067aa0ba902b7-01`;
const REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(() => harness.close());

type LoggedLine = { fields: Record<string, unknown>; msg: string };

/** Every line `level` gets from now on, as its fields and message. */
function catchLines(level: 'debug' | 'error'): LoggedLine[] {
  const lines: LoggedLine[] = [];
  vi.spyOn(harness.core.logger, level).mockImplementation((fields: unknown, msg?: unknown) => {
    lines.push({ fields: typeof fields === 'object' && fields !== null ? { ...fields } : {}, msg: String(msg) });
  });
  return lines;
}

function lineNamed(lines: readonly LoggedLine[], msg: string): Record<string, unknown> {
  const line = lines.find((candidate) => candidate.msg === msg);
  if (line === undefined) throw new Error(`no line "${msg}" among: ${lines.map((candidate) => candidate.msg).join(', ')}`);
  return line.fields;
}

describe('the MCP door’s tool call line', () => {
  it('carries the request id, trace id and account id (regression: only a request id of its own)', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const lines = catchLines('debug');
    const connection = await connectHttp(harness, { key, headers: { traceparent: CALLER_TRACEPARENT } });
    try {
      const result = await connection.client.callTool({ name: 'list_context_cards', arguments: {} });
      expect(result.isError, describeResult(result)).not.toBe(true);
    } finally {
      await connection.close();
    }
    const line = lineNamed(lines, 'MCP tool call');
    expect(line).toMatchObject({ tool: 'list_context_cards', traceId: CALLER_TRACE_ID, accountId });
    expect(line.requestId).toEqual(expect.any(String));
    expect(line.spanId).toEqual(expect.any(String));
  });
});

describe('the OAuth server’s error lines', () => {
  async function register(): Promise<string> {
    const response = await fetch(`${harness.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Test Host',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    });
    const registered = (await response.json()) as { client_id: string };
    expect(response.status, JSON.stringify(registered)).toBe(201);
    return registered.client_id;
  }

  /** Authorizes a new app through the console's consent page; answers the token request that exchanges its code. */
  async function authorizeAndExchange(): Promise<Response> {
    const { browser } = await signedInBrowser(harness);
    const clientId = await register();
    const verifier = randomBytes(32).toString('base64url');
    const resource = `${harness.config.publicUrl}/api/public/mcp`;
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'state-1',
      resource,
    });
    const pathOf = (location: string | null) => {
      const url = new URL(location ?? '', harness.url);
      return url.pathname + url.search;
    };
    const started = await browser.get(`/oauth/authorize?${query}`);
    const consentPath = pathOf(started.location);
    const approved = await browser.post(consentPath, { decision: 'approve', scope: ['read:workflow'] });
    const resumed = await browser.get(pathOf(approved.location));
    const code = new URL(resumed.location ?? '').searchParams.get('code');
    expect(code, resumed.html).toBeTruthy();
    return fetch(`${harness.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: CALLER_TRACEPARENT },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: String(code),
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      }).toString(),
    });
  }

  it('carry the request id and trace id of the token request they fail in (regression: only the error)', async () => {
    const lines = catchLines('error');
    vi.spyOn(harness.core.oauth, 'connect').mockRejectedValueOnce(new Error('the connection could not be written'));
    const refused = await authorizeAndExchange();
    expect(refused.status, await refused.text()).toBe(400);
    expect(lineNamed(lines, 'connecting an OAuth app failed')).toMatchObject({ requestId: refused.headers.get('x-request-id'), traceId: CALLER_TRACE_ID });

    vi.spyOn(harness.core.oauth.objects, 'update').mockRejectedValueOnce(new Error('the grant could not be written'));
    const exchanged = await authorizeAndExchange();
    expect(exchanged.status, await exchanged.text()).toBe(200);
    expect(lineNamed(lines, 'extending an OAuth grant failed')).toMatchObject({ requestId: exchanged.headers.get('x-request-id'), traceId: CALLER_TRACE_ID });
  });
});
