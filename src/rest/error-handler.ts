import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { PorchError, toPorchError, type ErrorCodeSet } from '../core/errors.js';
import { sendError } from './envelope.js';

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

/** The one place REST turns an error into the envelope. Faults are logged; their details never sent. */
export function errorHandler(logger: Logger, codeSet: ErrorCodeSet): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) return next(err);
    const error = toPorchError(err);
    if (error.code === 'INTERNAL_ERROR') logger.error({ err, requestId: res.locals.requestId }, 'unhandled error');
    sendError(res, error, codeSet);
  };
}
