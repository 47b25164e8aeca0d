import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { API_VERSION } from '../core/health.js';
import { PorchError } from '../core/errors.js';
import { MAX_JSON_DEPTH } from '../operations/invoke.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { logFieldsOf, type RequestScope, type Telemetry } from '../core/telemetry/telemetry.js';

/** A proxy's request id is kept only when it is short and plain, so it is safe to log and echo. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** A body that could not be read or parsed (413, 415, 400); reported after authentication. */
    bodyError?: PorchError;
  }
  interface Locals {
    /**
     * Set once an operation's route tried the request's key, so the error handler does not look
     * it up a second time (a refused key stays refused; a working one already set its headers).
     */
    keyChecked?: boolean;
    /** The request's scope (ids and trace), which the operation path and every log line of the request take from here. */
    scope?: RequestScope;
  }
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
 * X-Request-Id and X-API-Version on every response, errors included; one span per request (a
 * child of the caller's `traceparent`); the request's scope in `res.locals.scope`, which the
 * operation path carries on and every log line of the request reads; and one access-log line.
 */
export function requestContext(logger: Logger, { telemetry, trustRequestId, doorOf, onAnswered }: RequestContextOptions): RequestHandler {
  return (req, res, next) => {
    const inbound = trustRequestId ? req.headers['x-request-id'] : undefined;
    const requestId = typeof inbound === 'string' && SAFE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-API-Version', API_VERSION);
    const started = process.hrtime.bigint();
    const door = doorOf(req.path);
    const traceparent = req.headers.traceparent;
    const attributes = { 'http.request.method': req.method, 'url.path': req.path, 'porch.door': door };
    const { scope, span } = telemetry.request(requestId, `${req.method} ${door}`, typeof traceparent === 'string' ? traceparent : undefined, { attributes });
    res.locals.scope = scope;
    res.on('finish', () => {
      const durationSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (telemetry.tracing) {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      onAnswered?.(door, res.statusCode, durationSeconds);
      if (logger.isLevelEnabled('info')) {
        logger.info({ ...logFieldsOf(scope), method: req.method, path: req.path, status: res.statusCode, durationMs: durationSeconds * 1e3 }, 'request');
      }
    });
    next();
  };
}

/** Whether the request announces a body (which may still be on its way). */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function notJson(): PorchError {
  return new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json.');
}

/**
 * A chunked request without Content-Type may carry nothing at all (some clients send a body-less
 * POST that way), and no body means `{}` (DECISIONS.md: an execute without a body). Whether it is
 * empty is known only at its end; its first byte settles that it is a body that is not JSON.
 */
function expectEmptyBody(req: Request, report: (error: PorchError) => void, next: NextFunction): void {
  let settled = false;
  const settle = (error?: PorchError) => {
    if (settled) return;
    settled = true;
    if (error) report(error);
    else next();
  };
  req.on('data', (chunk: Buffer) => {
    if (chunk.length > 0) settle(notJson());
  });
  req.on('end', () => settle());
  req.on('error', () => settle(new PorchError('VALIDATION_ERROR', 'The request body could not be read.')));
}

/** DECISIONS.md: the default body limit is 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

const TOO_DEEP = 'entity.too.deep';

/**
 * Refuses, before JSON.parse, a body nesting deeper than MAX_JSON_DEPTH: one linear pass over the
 * bytes is far cheaper than parsing a megabyte of nested arrays, a cost any authenticated
 * caller, or anyone calling a public operation, could otherwise impose (figures in
 * bench/RESULTS-NOTES.md).
 */
function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (inString) {
      if (byte === 0x5c)
        index += 1; // a backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw Object.assign(new Error('JSON nests too deeply'), { type: TOO_DEEP });
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
}

/**
 * JSON bodies only. Mounted on the routes of operations that take a body, so a body sent to an
 * unknown path or with GET/DELETE is ignored (Node discards it, bounded by the request timeout)
 * rather than answered 413/415 before routing. Every problem with the body (413 too large, 415
 * not JSON or compressed, 400 malformed or too deeply nested) is kept as `req.bodyError` and
 * reported by the shared invocation path at its validation step: the caller is authenticated and
 * counted first, so the answer carries the rate-limit and credits headers like any other answer
 * to an authenticated caller (DECISIONS.md, Headers).
 *
 * Keyed operations run it only after the key was checked (mount-operations.ts). Compressed bodies
 * (Content-Encoding) are refused: 19 bytes of brotli inflate to a megabyte of JSON, and public
 * operations read their body without any key.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, inflate: false, verify: refuseDeepNesting });
  return (req: Request, res: Response, next: NextFunction) => {
    const report = (error: PorchError) => {
      req.bodyError = error;
      next();
    };
    if (!hasBody(req)) return next();
    if (req.headers['content-type'] === undefined && req.headers['content-length'] === undefined) return expectEmptyBody(req, report, next);
    if (!req.is(['application/json', '+json'])) return report(notJson());
    parse(req, res, (err?: unknown) => {
      if (err === undefined || err === null) return next();
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return report(new PorchError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limitBytes} bytes.`));
      if (type === 'encoding.unsupported') {
        return report(new PorchError('UNSUPPORTED_MEDIA_TYPE', 'Compressed request bodies are not accepted; send the JSON without Content-Encoding.'));
      }
      if (type === 'charset.unsupported') return report(new PorchError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.'));
      if (type === 'entity.parse.failed') return report(new PorchError('VALIDATION_ERROR', 'The request body is not valid JSON.'));
      if (type === TOO_DEEP) return report(new PorchError('VALIDATION_ERROR', `Invalid request: the body nests deeper than ${MAX_JSON_DEPTH} levels.`));
      return report(new PorchError('VALIDATION_ERROR', 'The request body could not be read.'));
    });
  };
}
