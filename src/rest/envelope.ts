/** The spec's response envelope, written in one place for the REST door. */
import type { Response } from 'express';
import { ERROR_TABLE, type ErrorCodeSet, type PorchError } from '../core/errors.js';
import { errorEnvelope } from '../operations/envelope.js';
import type { InvocationMeta } from '../operations/invoke.js';

/** Rate-limit and credit headers, on every authenticated response (DECISIONS.md, Headers). */
export function setMetaHeaders(res: Response, meta: InvocationMeta): void {
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

export function sendError(res: Response, error: PorchError, codeSet: ErrorCodeSet): void {
  const requestId = String(res.locals.requestId ?? '');
  if (error.details.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  if (error.details.allow) res.setHeader('Allow', error.details.allow.join(', '));
  res.status(ERROR_TABLE[error.code].status).json(errorEnvelope(error, requestId, codeSet));
}

export function sendSuccess(res: Response, status: number, data: unknown): void {
  if (status === 204) {
    res.status(204).end();
    return;
  }
  res.status(status).json({ success: true, data });
}
