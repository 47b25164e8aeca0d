/**
 * Turns whatever a provider call threw into the PorchError a caller may see. Messages name the
 * provider and the HTTP status only: upstream bodies can quote the request or part of a key, so
 * they stay in `cause` (logged, never sent).
 */
import { openAiSdk } from './openai-sdk.js';

import { CallStopped, isCallStop, PorchError } from '../errors.js';

/** Statuses with which a provider says "this key is not acceptable". */
const KEY_REJECTED_STATUSES: ReadonlySet<number> = new Set([401, 403]);
/** Client errors a retry may get past (a timeout, a conflict, a rate limit); any other 4xx is likely to be refused again. */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 409, 429]);

export interface UpstreamErrorContext {
  provider: string;
  /** True when the call used the caller's own key: a key rejection is then theirs to fix. */
  byok: boolean;
  /** The per-attempt time limit, named in timeout messages. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * The caller's signal fired: distinguish a deadline (AbortSignal.timeout) from a cancellation.
 * A call stopped from outside keeps its CallStopped as the cause, so whoever records the
 * execution can tell a stop from a provider failure (a run its caller stopped ends `cancelled`,
 * with no error code that means an outage: run-recorder.ts).
 */
export function abortedError(provider: string, signal: AbortSignal, cause?: unknown): PorchError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  const message = timedOut
    ? `The call to the AI provider '${provider}' timed out before it answered. Retry with backoff.`
    : reason instanceof CallStopped
      ? `The call to the AI provider '${provider}' was stopped: ${reason.message}.`
      : `The call to the AI provider '${provider}' was stopped before it finished.`;
  return new PorchError('AI_SERVICE_ERROR', message, {}, { cause: isCallStop(reason) ? reason : (cause ?? reason) });
}

/** An upstream answer Porch could not use (not JSON, no choices, no text). */
export class MalformedUpstreamResponseError extends Error {
  override readonly name = 'MalformedUpstreamResponseError';
}

export function toUpstreamPorchError(err: unknown, context: UpstreamErrorContext): PorchError {
  const { provider } = context;
  if (err instanceof PorchError) return err;
  if (context.signal?.aborted === true) return abortedError(provider, context.signal, err);
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openAiSdk();
  if (err instanceof APIUserAbortError) {
    // Only our own signal aborts requests; without it aborted this is the SDK giving up.
    return new PorchError('AI_SERVICE_ERROR', `The call to the AI provider '${provider}' was aborted. Retry with backoff.`, {}, { cause: err });
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new PorchError(
      'AI_SERVICE_ERROR',
      `The AI provider '${provider}' did not answer within ${context.timeoutMs} ms. Retry with backoff.`,
      {},
      { cause: err },
    );
  }
  if (err instanceof APIConnectionError) {
    return new PorchError('AI_SERVICE_ERROR', `The AI provider '${provider}' could not be reached. Retry with backoff.`, {}, { cause: err });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    if (context.byok && KEY_REJECTED_STATUSES.has(status)) {
      return new PorchError(
        'BYOK_KEY_INVALID',
        `The AI provider '${provider}' rejected your own API key (HTTP ${status}). Replace the BYOK key; Porch does not fall back to the shared gateway.`,
        {},
        { cause: err },
      );
    }
    if (status >= 400 && status < 500 && !RETRYABLE_CLIENT_STATUSES.has(status)) {
      // The same request would be refused again (regression: agents were told to retry a 400 three times).
      const fix = KEY_REJECTED_STATUSES.has(status)
        ? "the server's key for it was not accepted: the operator must fix it"
        : 'check the model and the input, as the same request is likely to be refused again';
      return new PorchError('AI_SERVICE_ERROR', `The AI provider '${provider}' refused the request (HTTP ${status}); ${fix}.`, {}, { cause: err });
    }
    const what = status === 429 ? 'is rate limiting requests' : 'failed';
    return new PorchError('AI_SERVICE_ERROR', `The AI provider '${provider}' ${what} (HTTP ${status}). Retry with backoff.`, {}, { cause: err });
  }
  // JSON syntax errors from the SDK and our own shape checks: the provider answered nonsense.
  return new PorchError('AI_SERVICE_ERROR', `The AI provider '${provider}' returned an invalid response. Retry with backoff.`, {}, { cause: err });
}

/** Safe, structured fields describing a failure for the operator's log. */
export function describeUpstreamError(err: unknown): Record<string, unknown> {
  if (err instanceof openAiSdk().APIError) {
    return {
      errorClass: err.constructor.name,
      status: err.status ?? null,
      // OpenAI's short machine codes ("invalid_api_key", "rate_limit_exceeded"), not its prose.
      upstreamCode: typeof err.code === 'string' ? err.code : null,
      upstreamType: typeof err.type === 'string' ? err.type : null,
      upstreamRequestId: err.requestID ?? null,
    };
  }
  return { errorClass: err instanceof Error ? err.name : typeof err };
}
