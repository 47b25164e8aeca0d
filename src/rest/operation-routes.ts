/**
 * The operations' routes: one per operation exposed on REST, all through the shared invocation
 * path; handlers only translate. They answer on Node's own request and response, ahead of
 * Express, which serves everything else (MCP, the console, discovery, 404 and 405): Express's
 * router and response helpers cost about half of what a small authenticated answer costs over
 * bare Node (bench/RESULTS-NOTES.md). Matching keeps Express's rules, so a path is answered the
 * same way as before: case-insensitive, one optional trailing slash, parameters percent-decoded
 * (a malformed escape is a 400), HEAD answered as GET without a body, the first route in order
 * winning.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Logger } from 'pino';
import type { Caller } from '../core/access/caller.js';
import type { AccountRefusal, Credentials } from '../core/access/authenticator.js';
import { presentedActingAccount, presentedKey } from '../core/access/presented-key.js';
import type { Core } from '../core/core.js';
import { CallStopped, type PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import { describeQuota, type InvocationMeta, type InvocationRequest, invokeOperation, isOperationOpenTo } from '../operations/invoke.js';
import type { HttpMethod, Operation } from '../operations/operation.js';
import { SITE_PATHS, siteLink } from '../operations/site-paths.js';
import { sendBody, sendError, sendSuccess, setMetaHeaders } from './envelope.js';
import { errorResponder, malformedPathError, type ErrorResponder, type QuotaLookup } from './error-handler.js';
import { sendOperationAsEvents, wantsEventStream } from './event-stream.js';
import { hasBody, jsonBodyReader } from './json-body.js';
import { sendListPages } from './list-stream.js';
import type { RequestContext } from './request-context.js';

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether the request prefers an asynchronous answer (RFC 7240 `Prefer: respond-async`, possibly
 * among other preferences and with parameters).
 */
function prefersRespondAsync(req: IncomingMessage): boolean {
  const prefer = req.headers.prefer;
  if (prefer === undefined) return false;
  return (Array.isArray(prefer) ? prefer : [prefer])
    .flatMap((header) => header.split(','))
    .some((preference) => preference.split(/[;=]/, 1)[0]?.trim().toLowerCase() === 'respond-async');
}

/** The REST API as a protected resource: OAuth access tokens, bound to the MCP endpoint, are refused here. */
function credentialsFrom(core: Core, req: IncomingMessage): Credentials {
  return {
    ...presentedKey(req.headersDistinct['x-api-key'] ?? [], req.headersDistinct.authorization ?? []),
    ...presentedActingAccount(req.headersDistinct['x-porch-account'] ?? []),
    resource: siteLink(core.settings.siteUrl, SITE_PATHS.apiBase),
  };
}

/**
 * A request refused before its body was read is answered, then its connection closed: keeping it
 * alive would mean reading (and discarding) whatever body is still coming, up to the request
 * timeout, for a caller who may not send anything.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (hasBody(req)) res.setHeader('Connection', 'close');
}

/**
 * The quota an answer no operation gave reports (an unknown route's 404, a 405, a path with a
 * malformed escape): once a key is authenticated, every answer carries the rate-limit and credits
 * headers (DECISIONS.md, Headers, limits, small rules). Only the headers are read, so this costs
 * what the key check of a keyed route costs; nothing is counted. A missing or refused key leaves
 * the answer as it is: the route's own status says more than a 401 would.
 */
export function quotaOfUnroutedRequest(core: Core): QuotaLookup {
  return async (req) => {
    const credentials = credentialsFrom(core, req);
    if (credentials.apiKey === undefined) return null;
    const authenticated = await core.authenticator.authenticateKey(credentials).catch(() => null);
    if (!authenticated) return null;
    const meta: InvocationMeta = { rateLimit: null, creditsRemaining: null };
    // A good key refused for the account it named reports its windows, and no account's credits.
    if ('refusal' in authenticated) meta.rateLimit = await core.rateLimiter.peek(authenticated).catch(() => null);
    else await describeQuota(core, authenticated, meta);
    return meta;
  };
}

/** A document export (responseType 'markdown'): the output string itself, not the JSON envelope. */
function sendMarkdown(res: ServerResponse, status: number, data: unknown): void {
  sendBody(res, status, 'text/markdown; charset=utf-8', typeof data === 'string' ? data : String(data));
}

type RouteHandler = (req: IncomingMessage, res: ServerResponse, context: RequestContext, params: Record<string, string>) => Promise<void>;

interface Route {
  operation: Operation;
  /** The whole path (API base included), case-insensitive, one optional trailing slash; one group per parameter. */
  pattern: RegExp;
  parameterNames: string[];
  handle: RouteHandler;
}

/** What a request's method and path lead to: a route with its decoded parameters, a path that does not decode, or nothing. */
type RouteMatch = { route: Route; params: Record<string, string> } | { malformed: true } | null;

const PARAMETER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function compile(operation: Operation, handle: RouteHandler): Route {
  const fullPath = (SITE_PATHS.apiBase + operation.path).replace(/\/$/, '');
  const parameterNames = [...fullPath.matchAll(PARAMETER)].map((match) => match[1] ?? '');
  const source = fullPath
    .split(PARAMETER)
    .map((part, index) => (index % 2 === 1 ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return { operation, pattern: new RegExp(`^${source}/?$`, 'i'), parameterNames, handle };
}

/** The routes of one method: a direct lookup for paths without parameters, the rest tried in order. */
interface MethodRoutes {
  exact: Map<string, Route>;
  patterns: Route[];
}

/** The route's decoded parameters, or null when one of them holds a malformed percent-escape. */
function decodedParams(route: Route, found: RegExpExecArray): Record<string, string> | null {
  const params: Record<string, string> = {};
  try {
    route.parameterNames.forEach((name, index) => {
      params[name] = decodeURIComponent(found[index + 1] ?? '');
    });
  } catch {
    return null;
  }
  return params;
}

/**
 * A routed request's span, as the HTTP semantic conventions name a server span: by method and
 * route template (`GET /api/public/v1/context-cards/{id}`), which keeps span names few.
 */
function nameSpanByRoute(context: RequestContext, method: string, operation: Operation): void {
  const span = context.scope.requestSpan;
  if (span === undefined) return;
  const route = SITE_PATHS.apiBase + operation.path;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}

/**
 * Builds the route table. A path without parameters is looked up directly (lower-cased, without
 * its trailing slash) unless an earlier route would also match it, which keeps Express's rule
 * that the first route in order wins.
 */
function routeTable(routes: readonly Route[]): (method: string, path: string) => RouteMatch {
  const byMethod = new Map<string, MethodRoutes>();
  for (const route of routes) {
    const methodRoutes = byMethod.get(route.operation.method) ?? { exact: new Map<string, Route>(), patterns: [] };
    byMethod.set(route.operation.method, methodRoutes);
    const fullPath = (SITE_PATHS.apiBase + route.operation.path).replace(/\/$/, '').toLowerCase();
    const shadowed = methodRoutes.patterns.some((earlier) => earlier.pattern.test(fullPath)) || methodRoutes.exact.has(fullPath);
    if (route.parameterNames.length === 0 && !shadowed) methodRoutes.exact.set(fullPath, route);
    else methodRoutes.patterns.push(route);
  }
  /**
   * Express decodes the parameters of every route whose path matches, whatever its method, and
   * answers 400 for a malformed escape before it looks at methods (so before a 405); OPTIONS
   * never reached the API's router.
   */
  const holdsMalformedEscape = (method: string, path: string) =>
    method !== 'OPTIONS' &&
    path.includes('%') &&
    routes.some((route) => {
      const found = route.pattern.exec(path);
      return found !== null && decodedParams(route, found) === null;
    });
  return (method, path) => {
    // Express answers HEAD with the GET route (Node leaves out the body).
    const methodRoutes = byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (methodRoutes !== undefined) {
      const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
      const exact = methodRoutes.exact.get(trimmed.toLowerCase());
      if (exact !== undefined) return { route: exact, params: {} };
      for (const route of methodRoutes.patterns) {
        const found = route.pattern.exec(path);
        if (found === null) continue;
        const params = decodedParams(route, found);
        return params === null ? { malformed: true } : { route, params };
      }
    }
    return holdsMalformedEscape(method, path) ? { malformed: true } : null;
  };
}

export interface OperationRoutesOptions {
  core: Core;
  /** The operations exposed on REST. */
  operations: readonly Operation[];
  codeSet: ErrorCodeSet;
  logger: Logger;
  bodyLimitBytes: number;
  /** How often an event stream with nothing to send writes a keep-alive comment (tests shorten it). */
  streamKeepAliveMs?: number;
  /** Headers a route adds before it answers (the API root's `Link`), by operation name. */
  extraHeaders?: ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;
}

export interface OperationRoutes {
  /**
   * Answers the request when an operation's route matches it and returns true; returns false
   * (having written nothing) when none does.
   */
  serve(req: IncomingMessage, res: ServerResponse, context: RequestContext): boolean;
  /** The methods of every operation path, for 405 answers: path pattern → methods. */
  knownPaths: ReadonlyMap<RegExp, HttpMethod[]>;
}

export function operationRoutes({
  core,
  operations,
  codeSet,
  logger,
  bodyLimitBytes,
  streamKeepAliveMs,
  extraHeaders,
}: OperationRoutesOptions): OperationRoutes {
  const readBody = jsonBodyReader(bodyLimitBytes);
  const answerError: ErrorResponder = errorResponder(logger, codeSet, undefined, core.logStoreOutage);
  const answerUnrouted: ErrorResponder = errorResponder(logger, codeSet, quotaOfUnroutedRequest(core), core.logStoreOutage);
  // Where a queued run is polled: GET /runs/{id} under the public origin.
  const runsUrl = `${core.settings.siteUrl}${SITE_PATHS.apiBase}/runs`;

  const handlerFor = (operation: Operation): RouteHandler => {
    const headers = extraHeaders?.get(operation.name) ?? [];
    /** Runs the operation with the caller the route authenticated (if it is keyed) and the body it read. */
    const answer = async (
      req: IncomingMessage,
      res: ServerResponse,
      context: RequestContext,
      params: Record<string, string>,
      caller: Caller | undefined,
      readsBody: boolean,
    ) => {
      const { body, error: bodyError } = readsBody ? await readBody(req, res) : {};
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort(new CallStopped('the client closed the request'));
      });
      const respondAsync = prefersRespondAsync(req);
      // Prefer: respond-async wins over Accept: text/event-stream: the run is queued, so there is nothing to stream.
      const asEvents = !respondAsync && wantsEventStream(req, operation);
      // Every field in one literal: on Node 20, a property added to a spread copy (`{ ...request,
      // respondAsync }`) gives each request's object a map of its own, a slow store and a miss at
      // every property read of it after (bench/RESULTS-NOTES.md).
      const request: InvocationRequest = {
        credentials: credentialsFrom(core, req),
        authenticated: caller,
        params,
        query: parseQuery(context.query ?? ''),
        body,
        bodyError,
        requestId: context.requestId,
        idempotencyKey: headerValue(req, 'idempotency-key'),
        signal: abort.signal,
        scope: context.scope,
        door: 'rest',
        pathStyle: 'located',
        streamLists: !asEvents,
        respondAsync,
      };
      if (asEvents) {
        await sendOperationAsEvents(core, operation, request, res, codeSet, streamKeepAliveMs);
        return;
      }
      const result = await invokeOperation(core, operation, request);
      setMetaHeaders(res, result.meta);
      for (const [name, value] of headers) res.setHeader(name, value);
      if (result.ok && result.queuedRunId !== undefined) {
        res.setHeader('Location', `${runsUrl}/${result.queuedRunId}`);
        res.setHeader('Preference-Applied', 'respond-async');
      }
      if (result.ok && result.pages) {
        await sendListPages(res, result.status, result.pages).catch((err: unknown) => {
          logger.error({ err, ...logFieldsOf(context.scope), operation: operation.name }, 'list failed while it was being sent');
          if (res.headersSent) res.destroy();
          else sendError(res, toPorchError(err), codeSet, context.requestId);
        });
      } else if (result.ok && operation.responseType === 'markdown') sendMarkdown(res, result.status, result.data);
      else if (result.ok) sendSuccess(res, result.status, result.data);
      else sendError(res, result.error, codeSet, context.requestId);
    };
    // Only operations that take a body read one (regression: a GET with a body, or a body sent
    // to `/workflows//execute`, was answered 415 before routing instead of being ignored or 404).
    const takesBody = operation.body !== undefined;
    if (operation.access !== 'keyed') return (req, res, context, params) => answer(req, res, context, params, undefined, takesBody);
    /**
     * A keyed request is authenticated from its headers before its body is read, so a request
     * with a missing or bad key, or one its key's scopes refuse, costs a key lookup and never the
     * reading and parsing of up to a megabyte of JSON, which anyone could otherwise make the
     * server do (figures in bench/RESULTS-NOTES.md). The caller found is handed to the shared
     * invocation path, which therefore keeps its order (authenticate → scope → rate limit →
     * validate → run) without a second lookup.
     */
    return async (req, res, context, params) => {
      const startedAt = process.hrtime.bigint();
      /** Refused before the shared path ran: counted here, so a flood of bad keys shows in the metrics. */
      const countRefusal = (err: unknown) => {
        const durationSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
        core.telemetry.events.operation({ operation: operation.name, door: 'rest', code: toPorchError(err).code, durationSeconds });
      };
      let authenticated: Caller | AccountRefusal;
      try {
        authenticated = await core.authenticator.authenticateKey(credentialsFrom(core, req));
      } catch (err) {
        closeAfterAnswer(req, res);
        countRefusal(err);
        await answerError(err, req, res, context.requestId, context.scope);
        return;
      }
      if ('refusal' in authenticated) {
        closeAfterAnswer(req, res);
        const refusal = await countAccountRefusal(authenticated, res);
        countRefusal(refusal);
        await answerError(refusal, req, res, context.requestId, context.scope);
        return;
      }
      const caller = authenticated;
      core.telemetry.setCaller(context.scope, caller);
      if (isOperationOpenTo(operation, caller.credential)) return answer(req, res, context, params, caller, takesBody);
      // The shared path refuses it at the scope (or credential) step; with the body left unread it cannot get further.
      closeAfterAnswer(req, res);
      return answer(req, res, context, params, caller, false);
    };
  };

  /**
   * A good key refused only for the account it named (X-Porch-Account outside its organisation,
   * say) is still an authenticated key: the request is counted against its limits, as every other
   * answered request is, and the answer reports them (DECISIONS.md, Headers, limits, small rules;
   * regression: such refusals were neither counted nor reported, so a partner could send them
   * without limit). Beyond a limit the answer is the 429 instead. No credits header: the balance
   * of an account the key may not act for is not the key's to read. Returns the error to answer with.
   */
  async function countAccountRefusal({ refusal, credential }: AccountRefusal, res: ServerResponse): Promise<PorchError> {
    const decision = await core.rateLimiter.consume({ credential });
    setMetaHeaders(res, { rateLimit: decision.state, creditsRemaining: null });
    return decision.refusal ?? refusal;
  }

  const routes = operations.map((operation) => compile(operation, handlerFor(operation)));
  const match = routeTable(routes);
  const knownPaths = new Map<RegExp, HttpMethod[]>();
  for (const route of routes) {
    const existing = [...knownPaths.keys()].find((pattern) => pattern.source === route.pattern.source) ?? route.pattern;
    knownPaths.set(existing, [...(knownPaths.get(existing) ?? []), route.operation.method]);
  }

  return {
    knownPaths,
    serve(req, res, context) {
      const method = req.method ?? 'GET';
      const found = match(method, context.path);
      if (found === null) return false;
      if (!('malformed' in found)) nameSpanByRoute(context, method, found.route.operation);
      const answered =
        'malformed' in found
          ? answerUnrouted(malformedPathError(), req, res, context.requestId, context.scope)
          : found.route.handle(req, res, context, found.params);
      answered.catch((err: unknown) => {
        if (res.headersSent) {
          logger.error({ err, ...logFieldsOf(context.scope) }, 'request failed after its answer started');
          res.destroy();
        } else void answerError(err, req, res, context.requestId, context.scope);
      });
      return true;
    },
  };
}
