import type { RateLimitRepository } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import type { Caller } from './caller.js';

/** What the rate-limit headers report: the key's per-minute window. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the minute window resets. */
  resetSeconds: number;
}

export interface RateLimitDecision {
  state: RateLimitState;
  /** The 429 to answer with, or null when the request may proceed. */
  refusal: PorchError | null;
}

export interface RateLimiter {
  consume(caller: Caller): Promise<RateLimitDecision>;
}

export function createRateLimiter(store: RateLimitRepository, clock: Clock): RateLimiter {
  return {
    async consume(caller) {
      const nowSeconds = Math.floor(clock.now() / 1000);
      const { requestsPerMinute, requestsPerDay, id } = caller.credential;
      const outcome = await store.consume({ keyId: id, requestsPerMinute, requestsPerDay, nowSeconds });
      const state: RateLimitState = {
        limit: requestsPerMinute,
        remaining: Math.max(0, requestsPerMinute - outcome.minuteCount),
        resetSeconds: outcome.minuteResetSeconds,
      };
      if (outcome.exceeded === 'minute') {
        const retryAfterSeconds = Math.max(1, outcome.minuteResetSeconds - nowSeconds);
        return {
          state,
          refusal: new PorchError(
            'RATE_LIMITED',
            `Rate limit of ${requestsPerMinute} requests per minute exceeded. Retry after ${retryAfterSeconds} seconds.`,
            { retryAfterSeconds },
          ),
        };
      }
      if (outcome.exceeded === 'day') {
        const retryAfterSeconds = Math.max(1, outcome.dayResetSeconds - nowSeconds);
        return {
          state: { ...state, remaining: 0, resetSeconds: outcome.dayResetSeconds },
          refusal: new PorchError(
            'DAILY_LIMIT_EXCEEDED',
            `Daily limit of ${requestsPerDay} requests exceeded; it resets at 00:00 UTC. Retry after ${retryAfterSeconds} seconds.`,
            { retryAfterSeconds },
          ),
        };
      }
      return { state, refusal: null };
    },
  };
}
