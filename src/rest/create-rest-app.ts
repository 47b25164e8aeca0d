import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Core } from '../core/core.js';
import type { ErrorCodeSet } from '../core/errors.js';
import { exposedOn, type Operation } from '../operations/operation.js';
import { apiCatalogLinkHeader } from './discovery/api-catalog.js';
import { errorHandler, notFound } from './error-handler.js';
import { lazyHandler } from './lazy-handler.js';
import { DEFAULT_BODY_LIMIT_BYTES, requestContext, type RequestContextOptions } from './middleware.js';
import { mountOperations, quotaOfUnroutedRequest } from './mount-operations.js';
import { SITE_PATHS } from '../operations/site-paths.js';

export const API_BASE_PATH = SITE_PATHS.apiBase;

export { DEFAULT_BODY_LIMIT_BYTES };

export interface RestAppOptions {
  core: Core;
  operations: readonly Operation[];
  logger: Logger;
  errorCodes: ErrorCodeSet;
  bodyLimitBytes?: number;
  /**
   * Other doors served by the same app (the MCP endpoint), mounted before the API's 404 handler.
   * The composition root passes them in, so REST never imports another door.
   */
  mounts?: ReadonlyArray<{ path: string; handler: RequestHandler; door: string }>;
  /** PORCH_TRUST_REQUEST_ID: keep a proxy's X-Request-Id. */
  trustRequestId?: boolean;
  /** Called once per answered request, with the door its path leads to (`rest`, `site`, a mount's). */
  onAnswered?: RequestContextOptions['onAnswered'];
}

function isUnderApiBase(path: string): boolean {
  return path === API_BASE_PATH || path.startsWith(`${API_BASE_PATH}/`);
}

/** A path pattern for 405 detection: `{id}` matches one segment; the API root is `/`. */
function pathPattern(path: string): RegExp {
  const escaped = (API_BASE_PATH + path)
    .replace(/\/$/, '')
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{[A-Za-z_][A-Za-z0-9_]*\\?\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * helmet's headers on every response, pages and API alike: a dozen static headers cost next to
 * nothing, and a JSON answer opened in a browser gets the same protection as a page (no sniffing,
 * no framing, a CSP that runs no inline script). Two defaults are relaxed on purpose:
 * Cross-Origin-Resource-Policy is `cross-origin` because the discovery documents and MCP are
 * meant to be read from other origins (nothing here is cookie-authenticated, so there is nothing
 * for CORP to protect), and HSTS is left to the TLS-terminating proxy, as Porch itself speaks
 * plain HTTP and an HSTS header on http://127.0.0.1 would only confuse browsers.
 */
function securityHeaders(): RequestHandler {
  const middleware = helmet({
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    strictTransportSecurity: false,
    // Upgrading subresources to https would break the pages when Porch is reached over plain HTTP.
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  });
  // Every directive above is a constant, so helmet's headers are the same for every response:
  // record them once instead of running its eleven middlewares per request (about a tenth of
  // a small API answer's CPU time under load).
  const request = new IncomingMessage(new Socket());
  const response = new ServerResponse(request);
  middleware(request, response, (err?: unknown) => {
    if (err !== undefined) throw err instanceof Error ? err : new Error(String(err));
  });
  const headers = response.getHeaderNames().map((name) => [name, String(response.getHeader(name))] as const);
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

export function createRestApp({
  core,
  operations,
  logger,
  errorCodes,
  bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES,
  mounts = [],
  trustRequestId = false,
  onAnswered,
}: RestAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const doorOf = (path: string) =>
    isUnderApiBase(path) ? 'rest' : (mounts.find((mount) => path === mount.path || path.startsWith(`${mount.path}/`))?.door ?? 'site');
  app.use(requestContext(logger, { telemetry: core.telemetry, trustRequestId, doorOf, onAnswered }));
  app.use(securityHeaders());

  for (const mount of mounts) app.use(mount.path, mount.handler);
  const restOperations = exposedOn(operations, 'rest');
  const api = mountOperations(core, restOperations, errorCodes, bodyLimitBytes);
  // RFC 9727: the API root points at the API catalog, so a client that knows only the base URL finds it.
  const catalogLink = apiCatalogLinkHeader(core.settings.siteUrl);
  app.get(API_BASE_PATH, (_req, res, next) => {
    res.setHeader('Link', catalogLink);
    next();
  });
  // The API answers no CORS preflight (browsers are not its clients; MCP and discovery are where
  // CORS is meant), so OPTIONS skips the router's automatic answer and meets 405 with Allow below.
  app.use(API_BASE_PATH, (req, res, next) => (req.method === 'OPTIONS' ? next() : api(req, res, next)));

  const knownPaths = new Map<RegExp, string[]>();
  for (const operation of restOperations) {
    const pattern = [...knownPaths.keys()].find((existing) => existing.source === pathPattern(operation.path).source) ?? pathPattern(operation.path);
    knownPaths.set(pattern, [...(knownPaths.get(pattern) ?? []), operation.method]);
  }
  // Discovery (OpenAPI, catalog, skills, pages, the API root) answers what no operation did. It
  // loads on the first request that gets this far, which keeps it out of start-up (bench/RESULTS-NOTES.md).
  app.use(lazyHandler(async () => (await import('./discovery/create-discovery-router.js')).createDiscoveryRouter({ core, operations })));
  app.use(notFound(knownPaths));
  // Only answers under the API base report a quota: a key is the API's, not the site's or MCP's.
  const quotaOf = quotaOfUnroutedRequest(core);
  app.use(errorHandler(logger, errorCodes, (req, res) => (isUnderApiBase(req.path) ? quotaOf(req, res) : Promise.resolve(null))));
  return app;
}
