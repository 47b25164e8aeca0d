import type { RateLimitRepository, RateWindowLimits, RateWindowOutcome, SlotRequest } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import type { Caller } from './caller.js';

/**
 * What the rate-limit headers report. `limit`, `remaining` and `resetSeconds` always describe the
 * key's per-minute window, as the spec defines `X-RateLimit-*`, even when the day is what refused
 * the request; the day has its own pair (DECISIONS.md, Headers, limits, small rules).
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the minute window resets. */
  resetSeconds: number;
  dailyLimit: number;
  dailyRemaining: number;
}

export interface RateLimitDecision {
  state: RateLimitState;
  /** The 429 to answer with, or null when the request may proceed. */
  refusal: PorchError | null;
}

/** What the limiter reads of a caller: its credential's id and limits (a key refused for the account it named has no account). */
export type RateLimited = Pick<Caller, 'credential'>;

export interface RateLimiter {
  /** Counts the request, unless a window is full (then the decision holds the 429). */
  consume(caller: RateLimited): Promise<RateLimitDecision>;
  /**
   * `consume`, taking the execution slot `slot` in the same atomic step when the request is
   * counted (`slotAcquired`): an execution's admission in one transaction.
   */
  consumeWithSlot(caller: RateLimited, slot: SlotRequest): Promise<RateLimitDecision & { slotAcquired: boolean }>;
  /** The windows as they stand, counting nothing: for answers the limiter never decided (403 scope, 404 route). */
  peek(caller: RateLimited): Promise<RateLimitState>;
}

function stateOf(caller: RateLimited, outcome: RateWindowOutcome): RateLimitState {
  const { requestsPerMinute, requestsPerDay } = caller.credential;
  return {
    limit: requestsPerMinute,
    remaining: Math.max(0, requestsPerMinute - outcome.minuteCount),
    resetSeconds: outcome.minuteResetSeconds,
    dailyLimit: requestsPerDay,
    dailyRemaining: Math.max(0, requestsPerDay - outcome.dayCount),
  };
}

export function createRateLimiter(store: RateLimitRepository, clock: Clock): RateLimiter {
  const windowsOf = (caller: RateLimited) => ({
    keyId: caller.credential.id,
    requestsPerMinute: caller.credential.requestsPerMinute,
    requestsPerDay: caller.credential.requestsPerDay,
    nowSeconds: Math.floor(clock.now() / 1000),
  });
  function decide(caller: RateLimited, limits: RateWindowLimits, outcome: RateWindowOutcome): RateLimitDecision {
    const state = stateOf(caller, outcome);
    const { requestsPerMinute, requestsPerDay } = caller.credential;
    if (outcome.exceeded === 'minute') {
      const retryAfterSeconds = Math.max(1, outcome.minuteResetSeconds - limits.nowSeconds);
      return {
        state,
        refusal: new PorchError('RATE_LIMITED', `Rate limit of ${requestsPerMinute} requests per minute exceeded. Retry after ${retryAfterSeconds} seconds.`, {
          retryAfterSeconds,
        }),
      };
    }
    if (outcome.exceeded === 'day') {
      // Retry-After is the wait until the day window opens again: UTC midnight.
      const retryAfterSeconds = Math.max(1, outcome.dayResetSeconds - limits.nowSeconds);
      return {
        state,
        refusal: new PorchError(
          'DAILY_LIMIT_EXCEEDED',
          `Daily limit of ${requestsPerDay} requests exceeded; it resets at 00:00 UTC. Retry after ${retryAfterSeconds} seconds.`,
          { retryAfterSeconds },
        ),
      };
    }
    return { state, refusal: null };
  }

  return {
    async consume(caller) {
      const limits = windowsOf(caller);
      return decide(caller, limits, await store.consume(limits));
    },
    async consumeWithSlot(caller, slot) {
      const limits = windowsOf(caller);
      const outcome = await store.consumeWithSlot(limits, slot);
      const { state, refusal } = decide(caller, limits, outcome);
      // One literal rather than a spread copy with a property added: see runOutcome in executions.ts.
      return { state, refusal, slotAcquired: outcome.slotAcquired };
    },
    async peek(caller) {
      return stateOf(caller, await store.peek(windowsOf(caller)));
    },
  };
}
