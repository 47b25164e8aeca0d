/**
 * What every HTTP request gets before anything answers it, whichever door it reaches: its ids,
 * its span, the security headers, and one access-log line and one metric when it is answered.
 * Written on Node's own request and response, so the operation routes (which do not go through
 * Express) and the Express-served parts (MCP, the console, discovery, 404s) share it.
 */
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import helmet from 'helmet';
import parseUrl from 'parseurl';
import type { Logger } from 'pino';
import { API_VERSION } from '../core/health.js';
import { recordStopped } from '../core/telemetry/stopped-calls.js';
import type { RequestScope, Telemetry } from '../core/telemetry/telemetry.js';
import { withoutKeys } from '../logger.js';
import { REQUEST_TIMEOUT_STATUS, trackRequestOnConnection } from './client-error.js';

/** A proxy's request id is kept only when it is short and plain, so it is safe to log and echo. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The status the access line and the metrics give a request whose client closed the connection
 * before the answer was sent: nginx's 499 "client closed request", which no answer ever carries.
 */
export const CLIENT_CLOSED_STATUS = 499;

/** What the doors Express serves (MCP, the console) read of the request's opening. */
declare module 'express-serve-static-core' {
  interface Locals {
    /** The request's id, as X-Request-Id sends it. */
    requestId?: string;
    /** The request's scope (ids and trace), which the operation path and every log line of the request take from here. */
    scope?: RequestScope;
  }
}

/** One request as the doors see it once it is opened. */
export interface RequestContext {
  requestId: string;
  scope: RequestScope;
  /** The decoded-URL pathname (still percent-encoded), without the query. */
  path: string;
  /** The raw query string, without `?`; null when there is none. */
  query: string | null;
}

export interface RequestContextOptions {
  telemetry: Telemetry;
  /**
   * Keep a well-formed inbound X-Request-Id (PORCH_TRUST_REQUEST_ID): only a proxy in front that
   * sets or strips the header may be trusted with it, or any client could make its requests
   * carry another's id in the logs.
   */
  trustRequestId: boolean;
  /** Which door a path leads to, for the span and the metrics. */
  doorOf: (path: string) => string;
  /** Called once per answered request (the composition root counts them). */
  onAnswered?: ((door: string, status: number, durationSeconds: number) => void) | undefined;
}

/**
 * helmet's headers on every response, pages and API alike: a dozen static headers cost next to
 * nothing, and a JSON answer opened in a browser gets the same protection as a page (no sniffing,
 * no framing, a CSP that runs no inline script). Two defaults are relaxed on purpose:
 * Cross-Origin-Resource-Policy is `cross-origin` because the discovery documents and MCP are
 * meant to be read from other origins (nothing here is cookie-authenticated, so there is nothing
 * for CORP to protect), and HSTS is left to the TLS-terminating proxy, as Porch itself speaks
 * plain HTTP and an HSTS header on http://127.0.0.1 would only confuse browsers.
 *
 * Every directive is a constant, so helmet's headers are the same for every response: they are
 * recorded once instead of running its eleven middlewares per request (about a tenth of a small
 * API answer's CPU time under load).
 */
function securityHeaders(): ReadonlyArray<readonly [string, string]> {
  const middleware = helmet({
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    strictTransportSecurity: false,
    // Upgrading subresources to https would break the pages when Porch is reached over plain HTTP.
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  });
  const request = new IncomingMessage(new Socket());
  const response = new ServerResponse(request);
  middleware(request, response, (err?: unknown) => {
    if (err !== undefined) throw err instanceof Error ? err : new Error(String(err));
  });
  return response.getHeaderNames().map((name) => [name, String(response.getHeader(name))] as const);
}

/**
 * The access-log line's fields, those of logFieldsOf and the request's, in one literal: a spread
 * copy with properties added gives every line's object a map of its own on Node 20, which crowds
 * V8's shared cache of property lookups (bench/RESULTS-NOTES.md, "Objects of one shape"). pino
 * leaves out the ids that are undefined, as logFieldsOf does.
 */
function accessLogFields(scope: RequestScope, method: string, path: string, status: number, durationSeconds: number) {
  const trace = scope.span?.spanContext();
  return {
    requestId: scope.requestId,
    accountId: scope.accountId,
    traceId: trace?.traceId,
    spanId: trace?.spanId,
    method,
    path,
    status,
    durationMs: durationSeconds * 1e3,
  };
}

/**
 * Opens each request: X-Request-Id and X-API-Version and the security headers on every response,
 * errors included; one span per request (a child of the caller's `traceparent`), whose scope
 * every log line of the request reads; one access-log line and one metric when it is answered.
 */
export function requestOpener(logger: Logger, { telemetry, trustRequestId, doorOf, onAnswered }: RequestContextOptions) {
  const headers = securityHeaders();
  return (req: IncomingMessage, res: ServerResponse): RequestContext => {
    const inbound = trustRequestId ? req.headers['x-request-id'] : undefined;
    const requestId = typeof inbound === 'string' && SAFE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-API-Version', API_VERSION);
    for (const [name, value] of headers) res.setHeader(name, value);
    const started = process.hrtime.bigint();
    const url = parseUrl(req);
    const path = url?.pathname ?? '/';
    const door = doorOf(path);
    const method = req.method ?? 'GET';
    // A key sent in the path (by mistake, or to probe) is never written to a log line or a span.
    const loggedPath = withoutKeys(path);
    const onConnection = trackRequestOnConnection(req, res, requestId);
    const { traceparent, tracestate } = req.headers;
    // Porch itself speaks plain HTTP; TLS, when there is any, ends at a proxy in front.
    const attributes = { 'http.request.method': method, 'url.scheme': 'http', 'url.path': loggedPath, 'porch.door': door };
    // Node joins repeated tracestate headers with commas, which is how the list's parts combine.
    const traceHeaders = {
      traceparent: typeof traceparent === 'string' ? traceparent : undefined,
      tracestate: typeof tracestate === 'string' ? tracestate : undefined,
    };
    const { scope, span } = telemetry.request(requestId, `${method} ${door}`, traceHeaders, { attributes });
    // 'close' comes once per response, after 'finish' when the answer was sent, alone when the
    // client went away first (regression: such a request had no access line, no metric, and a
    // span that was never ended, so its children pointed at a parent that never arrived).
    res.on('close', () => {
      const durationSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const answered = res.writableFinished;
      // Cut off at the request timeout, the server ended it (client-error.ts), not the client.
      const status = answered ? res.statusCode : onConnection.timedOut ? REQUEST_TIMEOUT_STATUS : CLIENT_CLOSED_STATUS;
      if (telemetry.tracing) {
        // The status sent, when the headers were; a client that left is not a server error.
        if (answered || res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
        if (!answered) recordStopped(span);
        else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      onAnswered?.(door, status, durationSeconds);
      if (logger.isLevelEnabled('info')) logger.info(accessLogFields(scope, method, loggedPath, status, durationSeconds), 'request');
    });
    return { requestId, scope, path, query: typeof url?.query === 'string' ? url.query : null };
  };
}
