import { IncomingMessage, type RequestListener, ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import parseUrl from 'parseurl';
import type { Logger } from 'pino';
import type { Core } from '../core/core.js';
import { type ErrorCodeSet, PorchError } from '../core/errors.js';
import { sendError } from './envelope.js';
import { exposedOn, type Operation } from '../operations/operation.js';
import { SITE_PATHS } from '../operations/site-paths.js';
import { apiCatalogLinkHeader } from './discovery/api-catalog.js';
import { errorHandler, errorResponder, notFound } from './error-handler.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './json-body.js';
import { lazyHandler } from './lazy-handler.js';
import { operationRoutes, quotaOfUnroutedRequest } from './operation-routes.js';
import { requestOpener, type RequestContext, type RequestContextOptions } from './request-context.js';

export const API_BASE_PATH = SITE_PATHS.apiBase;

export { DEFAULT_BODY_LIMIT_BYTES };

/**
 * A door answering its one path on Node's own request and response, ahead of Express's router,
 * as the operation routes do (the MCP endpoint: Express's router cost it about a twentieth of a
 * request, bench/RESULTS-NOTES.md). The path matches as an Express mount's own path would:
 * case-insensitive, with one optional trailing slash; paths under it still go to Express.
 */
export interface NodeDoor {
  path: string;
  /** The access log's and metrics' label, as a mount's. */
  door: string;
  /** Answers the request (returning true), or leaves it to Express (false), say while the door is still loading. */
  serve(req: IncomingMessage, res: ServerResponse, context: RequestContext): boolean;
}

export interface RestAppOptions {
  core: Core;
  operations: readonly Operation[];
  logger: Logger;
  errorCodes: ErrorCodeSet;
  bodyLimitBytes?: number;
  /** How often an event stream with nothing to send writes a keep-alive comment (tests shorten it). */
  streamKeepAliveMs?: number;
  /**
   * Other doors served by the same app (the MCP endpoint), mounted before the API's 404 handler.
   * The composition root passes them in, so REST never imports another door.
   */
  mounts?: ReadonlyArray<{ path: string; handler: RequestHandler; door: string }>;
  /** Doors that get first refusal on their own path, before the operations and Express. */
  nodeDoors?: readonly NodeDoor[];
  /** PORCH_TRUST_REQUEST_ID: keep a proxy's X-Request-Id. */
  trustRequestId?: boolean;
  /** PORCH_TRUSTED_PROXIES: Express's `trust proxy`, which `req.ip` (the client address of per-address limits) follows; unset, none. */
  trustedProxies?: number | string[] | undefined;
  /** Called once per answered request, with the door its path leads to (`rest`, `site`, a mount's). */
  onAnswered?: RequestContextOptions['onAnswered'];
}

/** The request and response classes the HTTP server must construct for this app (see `expressShaped`). */
export interface ServerClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse<IncomingMessage>;
}

/** The HTTP server's request listener, and the classes its server builds requests and responses from. */
export type RestApp = RequestListener & { serverClasses: ServerClasses };

/**
 * Request and response classes whose prototypes are the Express app's own. Express gives every
 * request it serves its app's prototypes (`Object.setPrototypeOf` in `app.handle`). On objects
 * Node built from its own classes that changes their shape, and V8's optimised code for Node's
 * HTTP path, meeting both shapes, deoptimises: one request through Express (a probe, a scrape, a
 * page, a 404) made every operation route's request cost 14-40 % more CPU for seconds after
 * (bench/prototype-change-cost.ts). Built from these classes, a request already has the
 * prototypes Express would give it, so giving them changes nothing.
 */
function expressShaped(app: express.Express): ServerClasses {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse<IncomingMessage> {}
  Object.setPrototypeOf(Request.prototype, app.request);
  Object.setPrototypeOf(Response.prototype, app.response);
  Object.assign(app, { request: Request.prototype, response: Response.prototype });
  return { IncomingMessage: Request, ServerResponse: Response };
}

/** What the operator reads when X-Forwarded-For arrives and no proxy is trusted. */
const UNTRUSTED_FORWARDED_FOR_WARNING =
  'a request came with X-Forwarded-For but PORCH_TRUSTED_PROXIES is unset, so the per-address limits (console sign-in, OAuth client registration) count every client behind that proxy as one: set PORCH_TRUSTED_PROXIES to the proxy (docs/deployment.md), or leave it unset if nothing sits in front of Porch';

function isUnderApiBase(path: string): boolean {
  return path === API_BASE_PATH || path.startsWith(`${API_BASE_PATH}/`);
}

function pathOf(req: IncomingMessage): string {
  return parseUrl(req)?.pathname ?? '/';
}

/** Express's own `res.locals`, carrying what the request's opening set for the doors it serves. */
function handOverToExpress(res: ServerResponse, context: RequestContext): void {
  Object.assign(res, { locals: Object.assign(Object.create(null) as Record<string, unknown>, { requestId: context.requestId, scope: context.scope }) });
}

/**
 * The HTTP server's request listener: every request is opened (ids, span, headers, log line); a
 * node door (the MCP endpoint) or an operation's route answers it on Node's own request and
 * response; Express serves the rest (the doors mounted here, the API root's discovery, 404 and 405).
 */
export function createRestApp({
  core,
  operations,
  logger,
  errorCodes,
  bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES,
  streamKeepAliveMs,
  mounts = [],
  nodeDoors = [],
  trustRequestId = false,
  trustedProxies,
  onAnswered,
}: RestAppOptions): RestApp {
  const doorOf = (path: string) =>
    isUnderApiBase(path)
      ? 'rest'
      : (nodeDoorFor(path)?.door ?? mounts.find((mount) => path === mount.path || path.startsWith(`${mount.path}/`))?.door ?? 'site');
  const doorPaths = nodeDoors.map((door) => ({ door, path: door.path.toLowerCase() }));
  /** The door whose own path this is (case-insensitive, one optional trailing slash). */
  function nodeDoorFor(path: string): NodeDoor | undefined {
    for (const { door, path: doorPath } of doorPaths) {
      const length = path.length === doorPath.length + 1 && path.endsWith('/') ? doorPath.length : path.length;
      if (length === doorPath.length && path.slice(0, length).toLowerCase() === doorPath) return door;
    }
    return undefined;
  }
  const open = requestOpener(logger, { telemetry: core.telemetry, trustRequestId, doorOf, onAnswered });
  // RFC 9727: the API root points at the API catalog, so a client that knows only the base URL finds it.
  const catalogLink = apiCatalogLinkHeader(core.settings.siteUrl);
  const routes = operationRoutes({
    core,
    operations: exposedOn(operations, 'rest'),
    codeSet: errorCodes,
    logger,
    bodyLimitBytes,
    ...(streamKeepAliveMs === undefined ? {} : { streamKeepAliveMs }),
    extraHeaders: new Map(operations.filter((operation) => operation.path === '/').map((operation) => [operation.name, [['Link', catalogLink] as const]])),
  });

  const app = express();
  const serverClasses = expressShaped(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (trustedProxies !== undefined) app.set('trust proxy', trustedProxies);
  for (const mount of mounts) app.use(mount.path, mount.handler);
  // Discovery (OpenAPI, catalog, skills, pages) answers what no operation did. It loads on the
  // first request that gets this far, which keeps it out of start-up (bench/RESULTS-NOTES.md).
  app.use(lazyHandler(async () => (await import('./discovery/create-discovery-router.js')).createDiscoveryRouter({ core, operations })));
  // The API answers no CORS preflight (browsers are not its clients; MCP and discovery are where
  // CORS is meant), so OPTIONS meets 405 with Allow like any other method a path does not take.
  app.use(notFound(routes.knownPaths));
  // Only answers under the API base report a quota: a key is the API's, not the site's or MCP's.
  const quotaOf = quotaOfUnroutedRequest(core);
  app.use(errorHandler(errorResponder(logger, errorCodes, (req) => (isUnderApiBase(pathOf(req)) ? quotaOf(req) : Promise.resolve(null)), core.logStoreOutage)));

  // Behind a proxy that is not trusted every client has the proxy's address, so one client's
  // attempts use up the per-address limits of all (sign-in, OAuth registration). A request that
  // came through a proxy says so; the operator is told once per process, not once per request.
  let forwardedForExplained = trustedProxies !== undefined;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const context = open(req, res);
    if (!forwardedForExplained && req.headers['x-forwarded-for'] !== undefined) {
      forwardedForExplained = true;
      logger.warn(UNTRUSTED_FORWARDED_FOR_WARNING);
    }
    // HTTP/1.1 requires Host (RFC 9112, 3.2). Node would refuse it with a bare 400 before any
    // handler, so its check is off (requireHostHeader, main.ts) and the refusal is made here.
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      res.setHeader('Connection', 'close');
      sendError(res, new PorchError('VALIDATION_ERROR', 'The request has no Host header, which HTTP/1.1 requires.'), errorCodes, context.requestId);
      return;
    }
    if (nodeDoors.length > 0 && nodeDoorFor(context.path)?.serve(req, res, context)) return;
    if (routes.serve(req, res, context)) return;
    handOverToExpress(res, context);
    app(req, res);
  };
  return Object.assign(listener, { serverClasses });
}
