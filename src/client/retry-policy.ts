/**
 * The spec's client handling rules (§7), as one decision function:
 *
 * | Condition                 | Action                                                         |
 * |---------------------------|----------------------------------------------------------------|
 * | 429                       | wait Retry-After seconds (60 if absent), retry; at most 3 retries |
 * |                           | (not when the wait is longer than `maxDelayMs`: a daily limit)  |
 * | 402 INSUFFICIENT_CREDITS  | do not retry                                                   |
 * | 402 BILLING_FAILED        | check the balance, then retry once                             |
 * | 500 AI_SERVICE_ERROR      | back off 1 s, 2 s, 4 s; at most 3 retries                      |
 * | 401                       | do not retry                                                   |
 *
 * At most 3 retries after the first try, 4 attempts in all, as the docs say: one for each of
 * the three backoff delays (1 s, 2 s, 4 s).
 */
import type { PorchApiError } from './errors.js';

export const MAX_RETRIES = 3;
/** Spec §7: wait this long on a 429 that carries no Retry-After. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
export const AI_BACKOFF_MS = [1_000, 2_000, 4_000] as const;

export type RetryDecision =
  | { action: 'stop' }
  | { action: 'wait'; delayMs: number }
  /** BILLING_FAILED: look at the balance first, then retry once. */
  | { action: 'check-balance' };

export interface RetryState {
  /** Retries already made for this kind of failure. */
  retries: number;
  /**
   * The longest wait worth making before a retry. A 429 that asks for longer (a daily limit,
   * until UTC midnight) is not waited out: the call fails at once with the error, whose
   * `retryAfter` says when to come back, rather than stay pending for hours.
   */
  maxDelayMs: number;
}

/** The default `maxDelayMs`: a minute, the longest a per-minute limit asks for. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

export function decideRetry(error: PorchApiError, state: RetryState): RetryDecision {
  if (error.status === 429) {
    if (state.retries >= MAX_RETRIES) return { action: 'stop' };
    const delayMs = (error.retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
    return delayMs > state.maxDelayMs ? { action: 'stop' } : { action: 'wait', delayMs };
  }
  if (error.status === 500 && error.code === 'AI_SERVICE_ERROR') {
    const delayMs = AI_BACKOFF_MS[state.retries];
    return delayMs === undefined ? { action: 'stop' } : { action: 'wait', delayMs };
  }
  if (error.status === 402 && error.code === 'BILLING_FAILED') {
    return state.retries >= 1 ? { action: 'stop' } : { action: 'check-balance' };
  }
  return { action: 'stop' };
}
