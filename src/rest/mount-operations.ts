import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Caller } from '../core/access/caller.js';
import type { Credentials } from '../core/access/authenticator.js';
import type { Core } from '../core/core.js';
import { toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import { describeQuota, type InvocationMeta, type InvocationRequest, invokeOperation, isOperationAllowed } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import { SITE_PATHS } from '../operations/site-paths.js';
import { sendError, sendSuccess, setMetaHeaders } from './envelope.js';
import { sendOperationAsEvents, wantsEventStream } from './event-stream.js';
import { sendListPages } from './list-stream.js';
import { DEFAULT_BODY_LIMIT_BYTES, hasBody, jsonBody } from './middleware.js';

/** `/context-cards/{id}` → `/context-cards/:id` (Express route syntax). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** The key from X-API-Key, or from `Authorization: Bearer` (accepted for MCP-style clients). */
export function apiKeyFrom(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const authorization = req.headers.authorization;
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice('bearer '.length);
  return undefined;
}

function headerValue(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether the request prefers an asynchronous answer (RFC 7240 `Prefer: respond-async`, possibly
 * among other preferences and with parameters).
 */
export function prefersRespondAsync(req: Request): boolean {
  const prefer = req.headers.prefer;
  if (prefer === undefined) return false;
  return (Array.isArray(prefer) ? prefer : [prefer])
    .flatMap((header) => header.split(','))
    .some((preference) => preference.split(/[;=]/, 1)[0]?.trim().toLowerCase() === 'respond-async');
}

function credentialsFrom(req: Request): Credentials {
  return { apiKey: apiKeyFrom(req), actingAccountId: headerValue(req, 'x-porch-account') };
}

/**
 * A request refused before its body was read is answered, then its connection closed: keeping it
 * alive would mean reading (and discarding) whatever body is still coming, up to the request
 * timeout, for a caller who may not send anything.
 */
function closeAfterAnswer(req: Request, res: Response): void {
  if (hasBody(req)) res.setHeader('Connection', 'close');
}

/**
 * Authenticates a keyed request from its headers before its body is read, so a request with a
 * missing or bad key, or one its key's scopes refuse, costs a key lookup and never the reading and
 * parsing of up to a megabyte of JSON, which anyone could otherwise make the server do (figures
 * in bench/RESULTS-NOTES.md). The caller found is handed to the shared invocation path, which
 * therefore keeps its order (authenticate → scope → rate limit → validate → run) without a
 * second lookup. An authentication failure goes to the error handler like any other error.
 */
function authenticateBeforeBody(core: Core, operation: Operation, callers: WeakMap<Request, Caller>, answerWithoutBody: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    res.locals.keyChecked = true;
    let caller: Caller;
    const startedAt = process.hrtime.bigint();
    try {
      caller = await core.authenticator.authenticate(credentialsFrom(req));
    } catch (err) {
      closeAfterAnswer(req, res);
      // Refused before the shared path ran: counted here, so a flood of bad keys shows in the metrics.
      const durationSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      core.telemetry.events.operation({ operation: operation.name, door: 'rest', code: toPorchError(err).code, durationSeconds });
      return next(err);
    }
    core.telemetry.setCaller(res.locals.scope, caller);
    callers.set(req, caller);
    if (isOperationAllowed(operation, caller.credential.scopes)) return next();
    // The shared path refuses it at the scope step; with the body left unread it cannot get further.
    closeAfterAnswer(req, res);
    return answerWithoutBody(req, res, next);
  };
}

/**
 * The quota an answer no operation gave reports (an unknown route's 404, a 405, a path with a
 * malformed escape): once a key is authenticated, every answer carries the rate-limit and credits
 * headers (DECISIONS.md, Headers, limits, small rules). Only the headers are read, so this costs
 * what the key check of a keyed route costs; nothing is counted. A missing or refused key leaves
 * the answer as it is: the route's own status says more than a 401 would.
 */
export function quotaOfUnroutedRequest(core: Core): (req: Request, res: Response) => Promise<InvocationMeta | null> {
  return async (req, res) => {
    if (res.locals.keyChecked === true) return null;
    const credentials = credentialsFrom(req);
    if (credentials.apiKey === undefined) return null;
    const caller = await core.authenticator.authenticate(credentials).catch(() => null);
    if (!caller) return null;
    const meta: InvocationMeta = { rateLimit: null, creditsRemaining: null };
    await describeQuota(core, caller, meta);
    return meta;
  };
}

/** A document export (responseType 'markdown'): the output string itself, not the JSON envelope. */
function sendMarkdown(res: Response, status: number, data: unknown): void {
  res
    .status(status)
    .type('text/markdown; charset=utf-8')
    .send(typeof data === 'string' ? data : String(data));
}

/** One route per operation it is given (the app passes those exposed on `rest`), all through the shared invocation path; handlers only translate. */
export function mountOperations(
  core: Core,
  operations: readonly Operation[],
  codeSet: ErrorCodeSet,
  bodyLimitBytes: number = DEFAULT_BODY_LIMIT_BYTES,
): Router {
  const router = Router();
  const parseBody = jsonBody(bodyLimitBytes);
  // Where a queued run is polled: GET /runs/{id} under the public origin.
  const runsUrl = `${core.settings.siteUrl}${SITE_PATHS.apiBase}/runs`;
  const callers = new WeakMap<Request, Caller>();
  for (const operation of operations) {
    const handler = async (req: Request, res: Response) => {
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const request: InvocationRequest = {
        credentials: credentialsFrom(req),
        authenticated: callers.get(req),
        params: req.params,
        query: req.query,
        body: req.body,
        ...(req.bodyError ? { bodyError: req.bodyError } : {}),
        requestId: String(res.locals.requestId),
        idempotencyKey: headerValue(req, 'idempotency-key'),
        signal: abort.signal,
        scope: res.locals.scope,
        door: 'rest',
        pathStyle: 'located',
      };
      const respondAsync = prefersRespondAsync(req);
      // Prefer: respond-async wins over Accept: text/event-stream: the run is queued, so there is nothing to stream.
      if (!respondAsync && wantsEventStream(req, operation)) {
        await sendOperationAsEvents(core, operation, request, res, codeSet);
        return;
      }
      const result = await invokeOperation(core, operation, { ...request, streamLists: true, respondAsync });
      setMetaHeaders(res, result.meta);
      if (result.ok && result.queuedRunId !== undefined) {
        res.setHeader('Location', `${runsUrl}/${result.queuedRunId}`);
        res.setHeader('Preference-Applied', 'respond-async');
      }
      if (result.ok && result.pages) {
        await sendListPages(res, result.status, result.pages).catch((err: unknown) => {
          core.logger.error({ err, ...logFieldsOf(res.locals.scope), operation: operation.name }, 'list failed while it was being sent');
          if (res.headersSent) res.destroy();
          else sendError(res, toPorchError(err), codeSet);
        });
      } else if (result.ok && operation.responseType === 'markdown') sendMarkdown(res, result.status, result.data);
      else if (result.ok) sendSuccess(res, result.status, result.data);
      else sendError(res, result.error, codeSet);
    };
    router[operation.method === 'GET' ? 'get' : operation.method === 'POST' ? 'post' : operation.method === 'PATCH' ? 'patch' : 'delete'](
      toExpressPath(operation.path),
      ...(operation.access === 'keyed' ? [authenticateBeforeBody(core, operation, callers, handler)] : []),
      // Only operations that take a body read one (regression: a GET with a body, or a body sent
      // to `/workflows//execute`, was answered 415 before routing instead of being ignored or 404).
      ...(operation.body ? [parseBody] : []),
      handler,
    );
  }
  return router;
}
