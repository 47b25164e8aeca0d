import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import type { StoreOutageLog } from '../core/store-outage-log.js';
import { logFieldsOf, type RequestScope } from '../core/telemetry/telemetry.js';
import type { InvocationMeta } from '../operations/invoke.js';
import { sendError, setMetaHeaders } from './envelope.js';

/** 404 for paths no route knows; 405 (with Allow) for a known path called with another method. */
export function notFound(knownPaths: ReadonlyMap<RegExp, readonly string[]>): RequestHandler {
  return (req, _res, next) => {
    for (const [pattern, methods] of knownPaths) {
      if (pattern.test(req.path)) {
        return next(new PorchError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}.`, { allow: methods }));
      }
    }
    next(new PorchError('NOT_FOUND', `No route for ${req.method} ${req.path}.`));
  };
}

/**
 * Express and its parsers throw for some malformed requests before any Porch code runs: a path
 * with a broken percent-escape (the router's URIError, status 400), or a body stream error. Those
 * are the client's fault and must be a 4xx envelope, not a 500 (regression: the fuzzer sent
 * `/workflows/%E0%A4%A/execute` and got INTERNAL_ERROR).
 */
function fromTransportError(err: unknown): PorchError | null {
  if (err instanceof URIError) return malformedPathError();
  if (typeof err !== 'object' || err === null) return null;
  const status = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return new PorchError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
  if (status === 415) return new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
  return new PorchError('VALIDATION_ERROR', 'The request could not be read.');
}

/** A path segment whose percent-escapes do not decode. */
export function malformedPathError(): PorchError {
  return new PorchError('VALIDATION_ERROR', 'The request path is not valid: it holds a malformed percent-escape.');
}

/**
 * What an answer no operation gave reports about the caller's quota, when the caller has a
 * working key; null when there is nothing to report.
 */
export type QuotaLookup = (req: IncomingMessage) => Promise<InvocationMeta | null>;

/** Answers an error for the request, once; `scope` ties the log line of a fault to the request. */
export type ErrorResponder = (err: unknown, req: IncomingMessage, res: ServerResponse, requestId: string, scope: RequestScope | undefined) => Promise<void>;

/**
 * The one place REST turns an error into the envelope. Faults are logged; their details never
 * sent. `quotaOf` adds the rate-limit and credits headers to answers no operation gave (404,
 * 405, a malformed path) for a caller whose key works.
 */
export function errorResponder(logger: Logger, codeSet: ErrorCodeSet, quotaOf?: QuotaLookup, logStoreOutage?: StoreOutageLog): ErrorResponder {
  return async (err, req, res, requestId, scope) => {
    const error = err instanceof PorchError ? err : (fromTransportError(err) ?? toPorchError(err));
    if (error.code === 'INTERNAL_ERROR') logger.error({ err, ...logFieldsOf(scope) }, 'unhandled error');
    logStoreOutage?.(error, logFieldsOf(scope));
    const meta = quotaOf ? await quotaOf(req) : null;
    if (meta && !res.headersSent) setMetaHeaders(res, meta);
    if (res.headersSent) return;
    sendError(res, error, codeSet, requestId);
  };
}

/** The responder as Express's last error handler (an operation route already checked the key: no second lookup). */
export function errorHandler(respond: ErrorResponder): ErrorRequestHandler {
  return async (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    await respond(err, req, res, String(res.locals.requestId ?? ''), res.locals.scope);
  };
}
