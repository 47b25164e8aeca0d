/**
 * MCP over Streamable HTTP at `/api/public/mcp`, stateless: every POST is served on its own, by
 * a server acting for that request's key alone (so listings follow the key of that request).
 * Both protocol eras are served on the one endpoint: a request carrying the per-request `_meta`
 * envelope of revision 2026-07-28 goes to the SDK's `createMcpHandler`; a 2025-era request that
 * is one JSON exchange to a pooled server (see `pooledExchange`); any other 2025-era request
 * (initialize, progress) to a fresh server on a per-request Streamable HTTP transport that
 * answers JSON unless a tool call asked for progress. GET (a server-to-client stream) and DELETE (ending a
 * session) have no meaning without sessions and answer 405.
 *
 * Before MCP starts, the request passes, in order: Origin check (DNS-rebinding and cross-site
 * protection, with CORS for allowed browser origins), Host check, then authentication: no key
 * means the public tools only (a request that needs a key is challenged with 401); a key that
 * does not work, or an Authorization header that is not `Bearer <key>`, is refused with 401, a
 * Bearer challenge and a JSON-RPC error; a good key refused for the account it names in
 * X-Porch-Account, with that refusal counted against the key's windows (429 once used up); an
 * OAuth token calling a tool its scopes do not grant, with 403 and an `insufficient_scope` challenge.
 */
import { type IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isSpecType,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Server,
  validateHostHeader,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Router } from 'express';
import type { AccountRefusal, Credentials } from '../core/access/authenticator.js';
import { type Caller, credentialClassOf } from '../core/access/caller.js';
import type { Core } from '../core/core.js';
import type { RateLimitState } from '../core/access/rate-limiter.js';
import { PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf, type RequestScope } from '../core/telemetry/telemetry.js';
import { getContextCard } from '../operations/get-context-card.js';
import { getPrompt } from '../operations/get-prompt.js';
import { getRun } from '../operations/get-run.js';
import { cancelRun } from '../operations/cancel-run.js';
import { isOperationAllowed } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import { createMcpServer, createToolset } from './create-mcp-server.js';
import { CONTEXT_CARD_URI_PREFIX } from './resources.js';
import { declaresTasks } from './tasks.js';
import type { McpTool } from './tools.js';
import { hasApiKey, requestIdentity, tokenScopeRefusal, type McpIdentity } from './identity.js';
import { httpRefusal } from './to-tool-result.js';
import { type JsonRpcRefusal, readBodyWithinLimit, readJsonRpcBody, refuseBatchIfRemoved } from './json-rpc-body.js';
import { ENVELOPE_REVISIONS, malformedParamsError, malformedRequestParamsError, unservedRevisionError } from './malformed-params.js';
import { progressTokenOf } from './progress.js';
import { JsonResponseTransport, jsonExchangeRequest } from './json-response-transport.js';
import { logSdkError } from './sdk-errors.js';
import { presentedActingAccount, presentedKey } from '../core/access/presented-key.js';

export { MCP_PATH } from './mcp-path.js';

/** DECISIONS.md: the default body limit is 1 MiB, for MCP as for REST. */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;

/** Hostnames a local client may use whatever the public URL says (the SDK's localhost set). */
const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Accepted Host header texts remembered so as not to parse them again; a handful in practice. */
const MAX_REMEMBERED_HOSTS = 64;

/** Preflight answers may be cached this long (seconds); the allow-lists change only on restart. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Headers a browser client may send: the MCP ones and Porch's own. */
const ALLOWED_REQUEST_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'X-API-Key',
  'X-Porch-Account',
  'Idempotency-Key',
  'X-Request-Id',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  // Revision 2026-07-28 names every request's method and tool in headers (SEP-2243).
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
  // W3C Trace Context, which Porch continues (docs/operations.md).
  'traceparent',
  'tracestate',
];

/**
 * Every revision Porch serves, newest first: the per-request envelope's (2026-07-28) and the 2025
 * era's the SDK negotiates with initialize. The SDK's own refusal of an unknown
 * Mcp-Protocol-Version names only the second list (regression: 2026-07-28 was missing from it).
 */
const SERVED_REVISIONS: readonly string[] = [...ENVELOPE_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The key's windows, on every refusal to an authenticated key (setRateLimitHeaders). */
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Daily-Limit', 'X-RateLimit-Daily-Remaining'];

/** Response headers a browser client may read. */
const EXPOSED_RESPONSE_HEADERS = [
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'X-Request-Id',
  'X-API-Version',
  'WWW-Authenticate',
  // A refusal's windows and when to come back, which a page's script needs to back off.
  ...RATE_LIMIT_HEADERS,
  'Retry-After',
];

export interface McpHttpOptions {
  core: Core;
  /** Every operation becomes a tool; the toolset is built once, not per request. */
  operations: readonly Operation[];
  errorCodes: ErrorCodeSet;
  /** `{site_url}`: its origin is always allowed and its hostname is an allowed Host. */
  publicUrl: string;
  /** PORCH_ALLOWED_ORIGINS: browser origins allowed to call the endpoint; `*` allows any. */
  allowedOrigins: readonly string[];
  /** Extra Host names to accept (besides the public URL's and localhost). */
  allowedHosts?: readonly string[];
  bodyLimitBytes?: number;
}

/**
 * A JSON body as Express's `res.json` wrote it when this endpoint was an Express mount (same
 * headers, same order), so every answer stays byte-identical now that it is written on Node's
 * own response.
 */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A JSON-RPC error without an id: the shape the SDK's transport uses for HTTP-level refusals. */
function sendRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A refusal of the body as read (or left unread), closing the connection when the body was not read to its end. */
function sendBodyRefusal(res: ServerResponse, refusal: JsonRpcRefusal): void {
  if (refusal.closesConnection === true) res.setHeader('Connection', 'close');
  sendRpcError(res, refusal.status, refusal.message, refusal.code);
}

/**
 * The key's windows, as REST reports them on every answer to an authenticated key (the headers
 * of DECISIONS.md, Headers, limits, small rules). Over MCP a result carries them in `_meta`; an
 * HTTP refusal has no result, so it carries the headers themselves.
 */
function setRateLimitHeaders(res: ServerResponse, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetSeconds));
  res.setHeader('X-RateLimit-Daily-Limit', String(state.dailyLimit));
  res.setHeader('X-RateLimit-Daily-Remaining', String(state.dailyRemaining));
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The request's key, read as every door reads it (core/access/presented-key.ts: X-API-Key or
 * `Authorization: Bearer`, a blank key being none), with the account a partner key acts for; or
 * the refusal of how it was sent (two keys, Authorization of another scheme).
 */
export function credentialsFrom(req: IncomingMessage): { credentials: Credentials } | { refusal: PorchError } {
  const { apiKey, problem } = presentedKey(req.headersDistinct['x-api-key'] ?? [], req.headersDistinct.authorization ?? []);
  if (problem) return { refusal: new PorchError(problem.code, problem.message) };
  return { credentials: { apiKey, ...presentedActingAccount(req.headersDistinct['x-porch-account'] ?? []) } };
}

/**
 * The id of the refused JSON-RPC request, so the client can match the error to it: read from a
 * body within the limit holding one request; null otherwise, as JSON-RPC answers a message whose
 * id cannot be read. A body within the limit is read to its end, so the connection can be reused;
 * one over it is left unread and the answer closes the connection (regression: a declared
 * 500 MB, or a chunked body that never ended, held the connection until the request timeout).
 */
async function refusedRequestId(req: IncomingMessage, res: ServerResponse, limitBytes: number): Promise<RequestId | null> {
  const bytes = Number(req.headers['content-length'] ?? 0) > limitBytes ? null : await readBodyWithinLimit(req, limitBytes);
  if (bytes === null) {
    res.setHeader('Connection', 'close');
    return null;
  }
  try {
    const message: unknown = JSON.parse(bytes.toString('utf8'));
    const id = typeof message === 'object' && message !== null && !Array.isArray(message) && 'id' in message ? message.id : null;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    // Not JSON: the id cannot be read, which the null id says; the refusal itself stands.
    return null;
  }
}

/** The allowed Host names: the public URL's hostname, localhost, and any configured extras. */
export function allowedHostnames(publicUrl: string, extra: readonly string[] = []): string[] {
  return [...new Set([new URL(publicUrl).hostname, ...LOCAL_HOSTNAMES, ...extra])];
}

/**
 * The public URL's origin, in every spelling a browser may use for it: when its host is one of
 * the local names, `localhost`, `127.0.0.1` and `[::1]` with the same scheme and port reach the
 * same server (the Host check already accepts all three), so a page served under any of them is
 * the public origin, not a foreign one.
 */
export function publicOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (!LOCAL_HOSTNAMES.includes(url.hostname)) return [url.origin];
  return LOCAL_HOSTNAMES.map((hostname) => {
    const spelling = new URL(url.origin);
    spelling.hostname = hostname;
    return spelling.origin;
  });
}

/**
 * The MCP specification requires servers to validate Origin: a page on another site must not
 * drive a local server through the visitor's browser. Requests without Origin (every non-browser
 * client) pass; a browser origin must be the public URL's (in any local spelling) or one in
 * PORCH_ALLOWED_ORIGINS.
 */
function originCheck(publicUrl: string, allowedOrigins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const allowAny = allowedOrigins.includes('*');
  const allowed = new Set([...publicOrigins(publicUrl), ...allowedOrigins.filter((origin) => origin !== '*')]);
  const exposed = EXPOSED_RESPONSE_HEADERS.join(', ');
  const allowedHeaders = ALLOWED_REQUEST_HEADERS.join(', ');
  return (req, res) => {
    const origin = headerValue(req.headers, 'origin');
    if (origin === undefined) return true;
    if (!allowAny && !allowed.has(origin)) {
      sendRpcError(res, 403, `Forbidden: origin ${origin} is not allowed; add it to PORCH_ALLOWED_ORIGINS.`);
      return false;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', allowedHeaders);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.statusCode = 204;
      res.end();
      return false;
    }
    return true;
  };
}

/** What one request's server is built for: who it acts as, and the request id its calls are logged under. */
interface McpRequestState {
  identity: McpIdentity;
  requestId: string;
  /** The Idempotency-Key header, for execute tools called without one in `_meta`. */
  idempotencyKey: string | undefined;
}

/** A server kept for JSON exchanges, with its transport; bound to one request at a time. */
interface PooledExchange {
  server: Server;
  transport: JsonResponseTransport;
  bind(res: ServerResponse, state: McpRequestState): void;
  release(): void;
}

/** Idle pooled servers kept at most: about the requests in flight at once under load (32 connections in the bench). */
const MAX_IDLE_EXCHANGES = 64;

/** What a pooled transport holds before its first request. */
const PLACEHOLDER_RESPONSE = new ServerResponse(new IncomingMessage(new Socket()));

/** A header's single value, as the SDK's era classifier reads it. */
function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the request's opening gave it (the REST door's request context, read structurally: doors do not import each other). */
export interface McpRequestContext {
  requestId: string;
  scope: RequestScope | undefined;
}

/**
 * The endpoint, built once: `serve` answers a request for the endpoint's own path on Node's
 * request and response (the composition root hands it to the HTTP app as a door ahead of
 * Express); `router` is the same endpoint as an Express mount, which serves the first request
 * (while this module loads) and the paths under the endpoint (which pass the Origin and Host
 * checks, then meet the site's 404, as they always did).
 */
export interface McpHttpDoor {
  serve(req: IncomingMessage, res: ServerResponse, context: McpRequestContext): void;
  router: Router;
}

export function createMcpHttpDoor(options: McpHttpOptions): McpHttpDoor {
  const { core, errorCodes, publicUrl, bodyLimitBytes = MCP_BODY_LIMIT_BYTES } = options;
  const tools = createToolset(options.operations);
  const toolsByName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  const originAllowed = originCheck(options.publicUrl, options.allowedOrigins);
  const hostnames = allowedHostnames(options.publicUrl, options.allowedHosts);
  // The SDK's check parses the Host header as a URL on every request; its verdict depends only on
  // the header's text, so a text it accepted is accepted again without parsing. Every other text,
  // refused or new, still goes through the SDK's check. Bounded: ports make many spellings.
  const acceptedHosts = new Set<string>();
  const hostAllowed = (req: IncomingMessage, res: ServerResponse): boolean => {
    const host = req.headers.host;
    if (host !== undefined && acceptedHosts.has(host)) return true;
    const verdict = validateHostHeader(host, hostnames);
    if (!verdict.ok) {
      // The SDK's words, plus the setting that fixes a name the operator meant to serve, as the Origin refusal names its own.
      const fix = verdict.errorCode === 'invalid_host' ? '; add it to PORCH_ALLOWED_HOSTS if this server is meant to answer it' : '';
      sendRpcError(res, 403, `${verdict.message}${fix}.`);
      return false;
    }
    if (host !== undefined && acceptedHosts.size < MAX_REMEMBERED_HOSTS) acceptedHosts.add(host);
    return true;
  };
  /** The checks every request to the endpoint passes first (in this order); false when one answered it. */
  const admitted = (req: IncomingMessage, res: ServerResponse): boolean => originAllowed(req, res) && hostAllowed(req, res);
  const onerror = (err: Error) => logSdkError(core.logger, err);

  // The SDK hands the factory only what it was given for the request (`authInfo`); the request's
  // own state rides on that object, found again here by identity.
  const requestStates = new WeakMap<AuthInfo, McpRequestState>();
  const modern = toNodeHandler(
    createMcpHandler(
      ({ authInfo }) => {
        const state = authInfo === undefined ? undefined : requestStates.get(authInfo);
        if (!state) throw new Error('An MCP request reached the server factory without its state.');
        return createMcpServer(core, state.identity, { tools, errorCodes, requestId: () => state.requestId, idempotencyKey: state.idempotencyKey });
      },
      { legacy: 'reject', onerror, maxRequestBodySize: bodyLimitBytes },
    ),
    { onerror, maxRequestBodySize: bodyLimitBytes },
  );

  /** A refusal before MCP starts; the id is read from the body when it was not read yet. */
  async function refuse(
    req: IncomingMessage,
    res: ServerResponse,
    error: PorchError,
    options: { tokenSent: boolean; id?: RequestId | null; scopes?: readonly string[] },
  ) {
    const id = options.id === undefined ? await refusedRequestId(req, res, bodyLimitBytes) : options.id;
    const { status, headers, body } = httpRefusal(error, errorCodes, { ...options, id, siteUrl: publicUrl });
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    sendJson(res, status, body);
  }

  /**
   * A good key refused only for the account it named (X-Porch-Account outside its organisation,
   * not on Expert, malformed, blank or repeated) is still an authenticated key: the request counts
   * against its windows and the refusal reports them, as over REST (regression: over MCP such
   * refusals were never counted, so a partner could send them without limit). Beyond a limit the
   * answer is the 429 instead. Returns the error to answer with.
   */
  async function countAccountRefusal({ refusal, credential }: AccountRefusal, res: ServerResponse): Promise<PorchError> {
    const decision = await core.rateLimiter.consume({ credential });
    setRateLimitHeaders(res, decision.state);
    return decision.refusal ?? refusal;
  }

  /**
   * Servers kept connected to their JSON transport, waiting for the next JSON exchange: building
   * a server (its handler tables, its closures) per request was a fifth of what the SDK costs an
   * MCP call, and the garbage it left a share of the collector's time (bench/RESULTS-NOTES.md).
   * Each serves one request at a time, acting for that request alone: its identity, request id
   * and Idempotency-Key are the bound request's, read while the request runs, so listings still
   * follow the key of each request. Only the JSON exchange reuses them: it never carries
   * `initialize`, the one request that leaves state (the client's capabilities) in a server.
   */
  const idleExchanges: PooledExchange[] = [];

  async function pooledExchange(): Promise<PooledExchange> {
    const idle = idleExchanges.pop();
    if (idle !== undefined) return idle;
    let bound: McpRequestState | undefined;
    const current = (): McpRequestState => {
      if (bound === undefined) throw new Error('A pooled MCP server ran without a request bound to it.');
      return bound;
    };
    const identity: McpIdentity = {
      get credentials() {
        return current().identity.credentials;
      },
      currentCaller: () => current().identity.currentCaller(),
      get requestCaller() {
        return current().identity.requestCaller;
      },
    };
    const server = createMcpServer(core, identity, {
      tools,
      errorCodes,
      requestId: () => current().requestId,
      get idempotencyKey() {
        return current().idempotencyKey;
      },
    });
    // A placeholder until the first request binds its own response; never written to.
    const transport = new JsonResponseTransport(PLACEHOLDER_RESPONSE);
    await server.connect(transport);
    const exchange: PooledExchange = {
      server,
      transport,
      bind(res, state) {
        transport.reset(res);
        bound = state;
      },
      release() {
        bound = undefined;
        if (!transport.isClosed && idleExchanges.length < MAX_IDLE_EXCHANGES) idleExchanges.push(exchange);
      },
    };
    // Back to the pool once the answer is out and the SDK's bookkeeping of the request (which
    // runs in the promise callbacks after the send) is done.
    transport.onanswered = () => setImmediate(exchange.release);
    return exchange;
  }

  /**
   * A JSON-RPC batch (revision 2025-03-26), on one server and the SDK's web-standard transport,
   * whose JSON answer is read here before it is written: the SDK answers a batch holding one
   * request with that response alone, where JSON-RPC 2.0 (section 6) answers a batch with an
   * array whatever its length (regression: a one-message batch got a bare object). Any other
   * answer (a refusal of the request's headers, the 202 of a batch of notifications only) is
   * written as the SDK made it.
   */
  async function serveBatch(req: IncomingMessage, res: ServerResponse, state: McpRequestState, batch: readonly unknown[]): Promise<void> {
    const server = createMcpServer(core, state.identity, { tools, errorCodes, requestId: () => state.requestId, idempotencyKey: state.idempotencyKey });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const clientGone = new AbortController();
    res.on('close', () => {
      clientGone.abort();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const request = await toWebRequest(req, batch, { signal: clientGone.signal });
    const response = await transport.handleRequest(request, { parsedBody: batch });
    let text = await response.text();
    if (response.status === 200 && (response.headers.get('content-type') ?? '').includes('application/json')) {
      const answer: unknown = JSON.parse(text);
      if (!Array.isArray(answer)) text = JSON.stringify([answer]);
    }
    if (res.writableEnded || res.destroyed) return;
    res.statusCode = response.status;
    for (const [name, value] of response.headers) if (name !== 'content-length') res.setHeader(name, value);
    if (text !== '') res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  }

  /** A 2025-era request: a JSON exchange on a pooled server, or one server and one SDK transport for it, closed with the response. */
  async function serveLegacy(req: IncomingMessage, res: ServerResponse, state: McpRequestState, body: unknown): Promise<void> {
    if (Array.isArray(body)) return serveBatch(req, res, state, body);
    // One JSON answer per request, unless a tool call asked for progress: its notifications need
    // the response to be an event stream (the client accepts both, as the transport requires).
    const enableJsonResponse = progressTokenOf(body) === undefined;
    const request = enableJsonResponse ? jsonExchangeRequest(req.headers, body) : undefined;
    if (request !== undefined) {
      const exchange = await pooledExchange();
      exchange.bind(res, state);
      // Closing settles what still runs when the client leaves before the answer; that server
      // is then done (it never goes back to the pool). Once answered nothing runs, and closing
      // would only build the SDK's "Connection closed" error, with its stack, for no one.
      res.on('close', () => {
        if (exchange.transport.isServing(res) && !exchange.transport.answered) void exchange.server.close();
      });
      exchange.transport.serve(request, headerValue(req.headers, 'mcp-protocol-version'));
      return;
    }
    const server = createMcpServer(core, state.identity, { tools, errorCodes, requestId: () => state.requestId, idempotencyKey: state.idempotencyKey });
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse, maxRequestBodySize: bodyLimitBytes });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function post(req: IncomingMessage, res: ServerResponse, { requestId, scope }: McpRequestContext): Promise<void> {
    const parsed = credentialsFrom(req);
    if ('refusal' in parsed) return refuse(req, res, parsed.refusal, { tokenSent: false });
    const { credentials } = parsed;
    let caller: Caller | null = null;
    if (hasApiKey(credentials)) {
      let keyRefusal: PorchError | null = null;
      try {
        const authenticated = await core.authenticator.authenticateKey(credentials);
        if ('refusal' in authenticated) keyRefusal = await countAccountRefusal(authenticated, res);
        else {
          caller = authenticated;
          // The tools' invocations find the request's scope from this caller.
          core.telemetry.setCaller(scope, caller);
        }
      } catch (err) {
        keyRefusal = toPorchError(err);
        if (keyRefusal.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFieldsOf(scope) }, 'MCP authentication failed');
      }
      if (keyRefusal) return refuse(req, res, keyRefusal, { tokenSent: true });
    }

    // Read here rather than by the SDK, which accepts a batch under any revision.
    const read = await readJsonRpcBody(req, bodyLimitBytes);
    const refusal = 'refusal' in read ? read.refusal : refuseBatchIfRemoved(req.headers, read.body);
    if (refusal) return sendBodyRefusal(res, refusal);
    const body = 'body' in read ? read.body : undefined;
    const state: McpRequestState = { identity: requestIdentity(credentials, caller), requestId, idempotencyKey: headerValue(req.headers, 'idempotency-key') };
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: singleHeader(req.headers, 'mcp-protocol-version'),
      mcpMethodHeader: singleHeader(req.headers, 'mcp-method'),
      mcpNameHeader: singleHeader(req.headers, 'mcp-name'),
      body,
    });
    const unservedRevision = route.kind === 'legacy' ? unservedRevisionRefusal(req.headers, body) : null;
    if (unservedRevision) return sendRpcError(res, 400, unservedRevision);
    const unserved = unservedRevisionError(route, singleHeader(req.headers, 'mcp-protocol-version'), body);
    if (unserved) return sendJson(res, 400, unserved);
    const malformed =
      route.kind !== 'reject' ? malformedParamsError(body, route.kind) : route.cell === 'invalid-json-rpc-body' ? malformedRequestParamsError(body) : null;
    if (malformed) {
      sendJson(res, 200, malformed);
      return;
    }
    // A keyed request without a key is an authentication challenge, so an MCP host that can
    // sign its user in (OAuth) learns where; the public tools and the listings stay open.
    const keyed = caller === null && route.kind !== 'reject' ? keyedRequestScopes(body, toolsByName) : undefined;
    if (keyed !== undefined) {
      return refuse(req, res, new PorchError('MISSING_API_KEY', 'No API key was sent.'), { tokenSent: false, id: requestIdOfBody(body), scopes: keyed });
    }
    // An OAuth token whose scopes do not grant the tool called is a step-up challenge (MCP
    // authorization, "Scope Challenge Handling"): 403 insufficient_scope naming the scopes, so the
    // host can ask its user for them. A key's holder cannot step up: a key keeps the isError result.
    const ungranted = caller?.credential.connectedApp === true && route.kind !== 'reject' ? ungrantedToolCall(body, toolsByName, caller.credential) : undefined;
    if (ungranted !== undefined && caller !== null) {
      // The token is authenticated: the refusal reports its windows without using them up, as a
      // REST request refused for a missing scope does (regression: no X-RateLimit headers).
      const state = await core.rateLimiter.peek(caller).catch(() => null);
      if (state !== null) setRateLimitHeaders(res, state);
      const { name, scopes } = ungranted;
      return refuse(req, res, tokenScopeRefusal(name, scopes), { tokenSent: true, id: requestIdOfBody(body), scopes });
    }
    try {
      if (route.kind === 'reject') {
        sendJson(res, route.httpStatus, {
          jsonrpc: '2.0',
          id: requestIdOfBody(body),
          error: { code: route.code, message: route.message, ...(route.data === undefined ? {} : { data: route.data }) },
        });
      } else if (route.kind === 'legacy') {
        await serveLegacy(req, res, state, body);
      } else {
        const authInfo: AuthInfo = { token: '', clientId: caller?.credential.id ?? 'anonymous', scopes: caller ? [...caller.credential.scopes] : [] };
        requestStates.set(authInfo, state);
        await modern(Object.assign(req, { auth: authInfo }), res, body);
      }
    } catch (err) {
      core.logger.error({ err, ...logFieldsOf(scope) }, 'MCP request failed');
      if (!res.headersSent) sendRpcError(res, 500, 'Internal error.');
    }
  }

  /** The endpoint's own path, once admitted: POST is MCP; OPTIONS without Origin names the methods; anything else is 405. */
  function answer(req: IncomingMessage, res: ServerResponse, context: McpRequestContext): Promise<void> | undefined {
    if (req.method === 'POST') return post(req, res, context);
    res.setHeader('Allow', 'POST, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return undefined;
    }
    sendRpcError(res, 405, 'Method not allowed: this MCP server is stateless; send each JSON-RPC message with POST.');
    return undefined;
  }

  const router = Router();
  router.use((req, res, next) => {
    if (admitted(req, res)) next();
  });
  router.all('/', (req, res) => answer(req, res, { requestId: String(res.locals.requestId ?? ''), scope: res.locals.scope }));

  return {
    router,
    serve(req, res, context) {
      if (!admitted(req, res)) return;
      // What Express's router did with a rejected handler (it cannot happen short of a client
      // gone mid-body): logged, and answered if anything can still be.
      answer(req, res, context)?.catch((err: unknown) => {
        core.logger.error({ err, ...logFieldsOf(context.scope) }, 'MCP request failed');
        if (!res.headersSent) sendRpcError(res, 500, 'Internal error.');
      });
    },
  };
}

/**
 * The scopes that would grant a request that needs a key: a keyed tool's call, a prompt's
 * rendering, a card's reading, a task's reading or cancelling; undefined for what a keyless
 * client may do (initialize, the listings, the public tools, and everything the SDK answers itself).
 */
function keyedRequestScopes(body: unknown, toolsByName: ReadonlyMap<string, McpTool>): readonly string[] | undefined {
  if (Array.isArray(body)) {
    // A batch (revisions before 2025-06-18) holding such a request is challenged as a whole, as
    // that request alone would be (regression: an isError result inside a 200 answer).
    const keyed = body.flatMap((message) => keyedRequestScopes(message, toolsByName) ?? []);
    return keyed.length === 0 ? undefined : [...new Set(keyed)];
  }
  if (!isSpecType.JSONRPCRequest(body)) return undefined;
  const params: Record<string, unknown> = body.params ?? {};
  switch (body.method) {
    case 'tools/call': {
      const tool = typeof params.name === 'string' ? toolsByName.get(params.name) : undefined;
      return tool && tool.operation.access !== 'public' ? tool.operation.scopes : undefined;
    }
    case 'prompts/get':
      return getPrompt.scopes;
    case 'resources/read':
      // Only a card's address needs a key; any other address is simply not a resource Porch has.
      return typeof params.uri === 'string' && params.uri.startsWith(CONTEXT_CARD_URI_PREFIX) ? getContextCard.scopes : undefined;
    // A task is the run of a key's account: without a key none is the caller's (regression: a
    // 200 with -32602 RESOURCE_NOT_FOUND instead of the challenge). A request that does not
    // declare the extension is refused for that first, by the server, as with a key.
    case 'tasks/get':
    case 'tasks/update':
      return declaresTasks(params._meta) ? getRun.scopes : undefined;
    case 'tasks/cancel':
      return declaresTasks(params._meta) ? cancelRun.scopes : undefined;
    default:
      return undefined;
  }
}

/**
 * The refusal of a 2025-era request whose Mcp-Protocol-Version names a revision of neither era,
 * in the words and status of the SDK's transport but naming every revision Porch serves; null
 * when the header is absent or served, and for initialize, which negotiates the revision in its
 * body (the SDK's transport does not check the header there either).
 */
function unservedRevisionRefusal(headers: IncomingHttpHeaders, body: unknown): string | null {
  const revision = singleHeader(headers, 'mcp-protocol-version');
  if (revision === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) return null;
  if (isSpecType.JSONRPCRequest(body) && body.method === 'initialize') return null;
  return `Bad Request: Unsupported protocol version: ${revision} (supported versions: ${SERVED_REVISIONS.join(', ')})`;
}

/**
 * The tool a `tools/call` names (the first such call, in a batch) whose scopes the credential
 * lacks; undefined when every call is granted, and for a tool its kind of credential may never
 * call whatever its scopes (more scopes would not help: the call answers ACCESS_DENIED).
 */
function ungrantedToolCall(
  body: unknown,
  toolsByName: ReadonlyMap<string, McpTool>,
  credential: Caller['credential'],
): { name: string; scopes: readonly string[] } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const credentialClass = credentialClassOf(credential);
  for (const message of messages) {
    if (!isSpecType.JSONRPCRequest(message) || message.method !== 'tools/call') continue;
    const name = message.params?.name;
    const operation = typeof name === 'string' ? toolsByName.get(name)?.operation : undefined;
    if (operation === undefined || operation.access === 'public' || isOperationAllowed(operation, credential.scopes)) continue;
    if (credentialClass !== null && operation.refuses?.includes(credentialClass)) continue;
    return { name: operation.name, scopes: operation.scopes };
  }
  return undefined;
}

/** The id of a single JSON-RPC request body, or null (a notification, a batch, not JSON-RPC). */
function requestIdOfBody(body: unknown): RequestId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('id' in body)) return null;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
}
