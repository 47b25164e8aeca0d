/**
 * MCP over Streamable HTTP at `/api/public/mcp`, stateless: every POST gets a fresh server and
 * transport (so listings follow the key of that request) and both close when the response does.
 * GET (a server-to-client stream) and DELETE (ending a session) have no meaning without sessions
 * and answer 405.
 *
 * Before MCP starts, the request passes, in order: Origin check (DNS-rebinding and cross-site
 * protection, with CORS for allowed browser origins), Host check, then authentication: no key
 * means the public tools only (a keyed tool then answers MISSING_API_KEY as a tool result); a key
 * that does not work, or an Authorization header that is not `Bearer <key>`, is refused with 401,
 * a Bearer challenge and a JSON-RPC error.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Credentials } from '../core/access/authenticator.js';
import type { Caller } from '../core/access/caller.js';
import type { Core } from '../core/core.js';
import { PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import type { Operation } from '../operations/operation.js';
import { createMcpServer, createToolset } from './create-mcp-server.js';
import { hasApiKey, requestIdentity } from './identity.js';
import { httpRefusal } from './to-tool-result.js';
import { readJsonRpcBody, refuseBatchIfRemoved } from './json-rpc-body.js';
import { refuseMalformedParams } from './malformed-params.js';
import { progressTokenOf } from './progress.js';

export { MCP_PATH } from './mcp-path.js';

/** DECISIONS.md: the default body limit is 1 MiB, for MCP as for REST. */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;

/** Hostnames a local client may use whatever the public URL says (the SDK's localhost set). */
const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

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
  'Last-Event-ID',
];

/** Response headers a browser client may read. */
const EXPOSED_RESPONSE_HEADERS = ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'X-Request-Id', 'X-API-Version', 'WWW-Authenticate'];

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

/** A JSON-RPC error without an id: the shape the SDK's transport uses for HTTP-level refusals. */
function sendRpcError(res: Response, status: number, message: string, code = -32000): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** `scheme token`; the token may be empty. */
const AUTHORIZATION_PATTERN = /^(\S*)\s*(.*)$/s;

/**
 * The key from X-API-Key, or from `Authorization: Bearer <key>` (what MCP clients' header
 * settings usually send), or a refusal: an Authorization header in any other form (Basic, a bare
 * key) is a client sending its key the wrong way, and reading it as "no key" would hide that
 * behind a public tool list. A non-blank X-API-Key wins, so an Authorization header meant for a
 * proxy in front of Porch does not get in the way. A blank key counts as none (public tools).
 */
export function credentialsFrom(headers: IncomingHttpHeaders): { credentials: Credentials } | { refusal: PorchError } {
  const actingAccountId = headerValue(headers, 'x-porch-account');
  const apiKey = headerValue(headers, 'x-api-key');
  const authorization = headerValue(headers, 'authorization');
  if ((apiKey !== undefined && apiKey.trim() !== '') || authorization === undefined) return { credentials: { apiKey, actingAccountId } };
  const [, scheme = '', token = ''] = AUTHORIZATION_PATTERN.exec(authorization.trim()) ?? [];
  if (scheme.toLowerCase() === 'bearer') return { credentials: { apiKey: token, actingAccountId } };
  // The header's content is not quoted back: a bare key there would be key material.
  return {
    refusal: new PorchError(
      'INVALID_API_KEY',
      'The Authorization header is not of the form Bearer <key>; send the key as X-API-Key: mdi_... or Authorization: Bearer mdi_...',
    ),
  };
}

/**
 * The id of the refused JSON-RPC request, so the client can match the error to it: read from a
 * body within the limit holding one request; null otherwise, as JSON-RPC answers a message whose
 * id cannot be read. The body is drained either way, so the connection can be reused.
 */
async function refusedRequestId(req: Request, limitBytes: number): Promise<RequestId | null> {
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limitBytes) chunks.push(chunk);
  }
  if (size > limitBytes) return null;
  try {
    const message: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
function originCheck(publicUrl: string, allowedOrigins: readonly string[]): RequestHandler {
  const allowAny = allowedOrigins.includes('*');
  const allowed = new Set([...publicOrigins(publicUrl), ...allowedOrigins.filter((origin) => origin !== '*')]);
  return (req, res, next) => {
    const origin = headerValue(req.headers, 'origin');
    if (origin === undefined) return next();
    if (!allowAny && !allowed.has(origin)) return sendRpcError(res, 403, `Forbidden: origin ${origin} is not allowed; add it to PORCH_ALLOWED_ORIGINS.`);
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_RESPONSE_HEADERS.join(', '));
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS.join(', '));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
    next();
  };
}

export function createMcpHttpHandler(options: McpHttpOptions): Router {
  const { core, errorCodes, bodyLimitBytes = MCP_BODY_LIMIT_BYTES } = options;
  const tools = createToolset(options.operations);
  const router = Router();
  router.use(originCheck(options.publicUrl, options.allowedOrigins));
  router.use(hostHeaderValidation(allowedHostnames(options.publicUrl, options.allowedHosts)));

  async function refuse(req: Request, res: Response, error: PorchError, tokenSent: boolean): Promise<void> {
    const id = await refusedRequestId(req, bodyLimitBytes);
    const { status, headers, body } = httpRefusal(error, errorCodes, { id, tokenSent });
    res.status(status).set(headers).json(body);
  }

  router.post('/', async (req: Request, res: Response) => {
    const requestId = String(res.locals.requestId ?? '');
    const parsed = credentialsFrom(req.headers);
    if ('refusal' in parsed) return refuse(req, res, parsed.refusal, false);
    const { credentials } = parsed;
    let caller: Caller | null = null;
    if (hasApiKey(credentials)) {
      try {
        caller = await core.authenticator.authenticate(credentials);
        // The tools' invocations find the request's scope from this caller.
        core.telemetry.setCaller(res.locals.scope, caller);
      } catch (err) {
        const error = toPorchError(err);
        if (error.code === 'INTERNAL_ERROR') core.logger.error({ err, ...logFieldsOf(res.locals.scope) }, 'MCP authentication failed');
        return refuse(req, res, error, true);
      }
    }

    // Read here rather than by the SDK, which accepts a batch under any revision.
    const read = await readJsonRpcBody(req, bodyLimitBytes);
    const refusal = 'refusal' in read ? read.refusal : refuseBatchIfRemoved(req.headers, read.body);
    if (refusal) return sendRpcError(res, refusal.status, refusal.message, refusal.code);
    const body = 'body' in read ? read.body : undefined;

    const server = createMcpServer(core, requestIdentity(credentials, caller), { tools, errorCodes, requestId: () => requestId });
    // One JSON answer per request, unless a tool call asked for progress: its notifications need
    // the response to be an event stream (the client accepts both, as the transport requires).
    const enableJsonResponse = progressTokenOf(body) === undefined;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse, maxRequestBodySize: bodyLimitBytes });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      refuseMalformedParams(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      core.logger.error({ err, ...logFieldsOf(res.locals.scope) }, 'MCP request failed');
      if (!res.headersSent) sendRpcError(res, 500, 'Internal error.');
    }
  });

  router.options('/', (_req, res) => {
    res.setHeader('Allow', 'POST, OPTIONS');
    res.status(204).end();
  });

  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST, OPTIONS');
    sendRpcError(res, 405, 'Method not allowed: this MCP server is stateless; send each JSON-RPC message with POST.');
  });
  return router;
}
