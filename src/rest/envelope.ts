/** The spec's response envelope, written in one place for the REST door, on Node's own response. */
import type { ServerResponse } from 'node:http';
import { ERROR_TABLE, type ErrorCodeSet, type PorchError } from '../core/errors.js';
import { errorEnvelope } from '../operations/envelope.js';
import type { InvocationMeta } from '../operations/invoke.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Rate-limit and credit headers, on every authenticated response (DECISIONS.md, Headers). */
export function setMetaHeaders(res: ServerResponse, meta: InvocationMeta): void {
  if (meta.rateLimit) {
    res.setHeader('X-RateLimit-Limit', String(meta.rateLimit.limit));
    res.setHeader('X-RateLimit-Remaining', String(meta.rateLimit.remaining));
    res.setHeader('X-RateLimit-Reset', String(meta.rateLimit.resetSeconds));
    res.setHeader('X-RateLimit-Daily-Limit', String(meta.rateLimit.dailyLimit));
    res.setHeader('X-RateLimit-Daily-Remaining', String(meta.rateLimit.dailyRemaining));
  }
  if (meta.creditsRemaining !== null) res.setHeader('X-Credits-Remaining', String(meta.creditsRemaining));
  if (meta.pollAfterSeconds !== undefined) res.setHeader('Retry-After', String(meta.pollAfterSeconds));
}

/** A whole body at once, with its length (a HEAD request gets the headers only: Node drops the body). */
export function sendBody(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendError(res: ServerResponse, error: PorchError, codeSet: ErrorCodeSet, requestId: string): void {
  if (error.details.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  if (error.details.allow) res.setHeader('Allow', error.details.allow.join(', '));
  sendBody(res, ERROR_TABLE[error.code].status, JSON_CONTENT_TYPE, JSON.stringify(errorEnvelope(error, requestId, codeSet)));
}

export function sendSuccess(res: ServerResponse, status: number, data: unknown): void {
  if (status === 204) {
    res.statusCode = 204;
    res.end();
    return;
  }
  sendBody(res, status, JSON_CONTENT_TYPE, JSON.stringify({ success: true, data }));
}
