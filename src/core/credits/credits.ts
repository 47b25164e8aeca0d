import type { CreditBalance, CreditRepository, LowBalanceEventBuilder, UsageRecord } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import type { Instance } from '../instance.js';

export const TOKENS_PER_CREDIT = 1_000;

/**
 * A reservation still open this long after it was made was left behind by a crash (no run lasts
 * this long: the per-run time limit is far shorter), so the sweeper may release it.
 */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;

/** Credits as shown to callers: whole credits, rounded down. */
export function tokensToCredits(tokens: number): number {
  return Math.floor(Math.max(0, tokens) / TOKENS_PER_CREDIT);
}

function formatCredits(tokens: number): string {
  const credits = tokens / TOKENS_PER_CREDIT;
  return Number.isInteger(credits) ? String(credits) : credits.toFixed(3).replace(/0+$/, '');
}

export interface Reservation {
  id: string;
  accountId: string;
  tokens: number;
}

export interface CreditService {
  /** Whole credits the account can spend now (balance less open reservations). */
  remainingCredits(accountId: string): Promise<number>;
  balance(accountId: string): Promise<CreditBalance>;
  grant(accountId: string, credits: number, reference?: string): Promise<CreditBalance>;
  /** 402 INSUFFICIENT_CREDITS unless the account has the minimum balance to start an execution. */
  requireMinimum(accountId: string): Promise<void>;
  /** Holds an estimate before a model call; 402 INSUFFICIENT_CREDITS when the account cannot cover it. */
  reserve(accountId: string, estimatedTokens: number): Promise<Reservation>;
  /**
   * Charges the actual usage and closes the reservation; 402 BILLING_FAILED when the balance no
   * longer covers it. A usage record passed in is written with the charge, atomically.
   */
  settle(reservation: Reservation, actualTokens: number, reference: string, usage?: UsageRecord): Promise<void>;
  /** Gives a reservation back untouched (the call failed). Never throws for an already-closed one. */
  release(reservation: Reservation): Promise<void>;
  /** Releases reservations left open by a crash. */
  releaseExpired(): Promise<number>;
}

/** `lowBalanceEvent` builds the `credits.low` webhook event a settlement emits when it crosses the account's threshold. */
export function createCreditService(
  store: CreditRepository,
  clock: Clock,
  minimumTokens: number,
  instance: Instance,
  lowBalanceEvent?: LowBalanceEventBuilder,
): CreditService {
  return {
    async remainingCredits(accountId) {
      const { balanceTokens, reservedTokens } = await store.balance(accountId);
      return tokensToCredits(balanceTokens - reservedTokens);
    },

    balance: (accountId) => store.balance(accountId),

    async requireMinimum(accountId) {
      const { balanceTokens, reservedTokens } = await store.balance(accountId);
      const available = balanceTokens - reservedTokens;
      if (available < minimumTokens) {
        throw new PorchError(
          'INSUFFICIENT_CREDITS',
          `Insufficient credits: ${formatCredits(Math.max(0, available))} available, ${formatCredits(minimumTokens)} required to start this execution.`,
        );
      }
    },

    async grant(accountId, credits, reference) {
      if (!Number.isFinite(credits) || credits <= 0) {
        throw new PorchError('VALIDATION_ERROR', 'Credits to grant must be a positive number.');
      }
      return store.grant({
        accountId,
        tokens: Math.round(credits * TOKENS_PER_CREDIT),
        reference: reference ?? 'operator grant',
        at: clock.now(),
        entryId: newId(),
      });
    },

    async reserve(accountId, estimatedTokens) {
      const tokens = Math.max(0, Math.ceil(estimatedTokens));
      const instanceId = await instance.ready();
      const now = clock.now();
      const reservationId = newId();
      const outcome = await store.reserve({
        accountId,
        tokens,
        minimumAvailableTokens: minimumTokens,
        at: now,
        expiresAt: now + RESERVATION_TTL_MS,
        reservationId,
        instanceId,
      });
      if (!outcome.ok) {
        const available = outcome.balance.balanceTokens - outcome.balance.reservedTokens;
        const required = Math.max(tokens, minimumTokens);
        throw new PorchError(
          'INSUFFICIENT_CREDITS',
          `Insufficient credits: ${formatCredits(Math.max(0, available))} available, ${formatCredits(required)} required to start this execution.`,
        );
      }
      return { id: reservationId, accountId, tokens };
    },

    async settle(reservation, actualTokens, reference, usage) {
      const outcome = await store.settle({
        reservationId: reservation.id,
        chargeTokens: Math.max(0, Math.ceil(actualTokens)),
        reference,
        at: clock.now(),
        entryId: newId(),
        usage,
        // The engine calls it only when this charge takes the balance below the account's threshold.
        ...(lowBalanceEvent === undefined ? {} : { lowBalanceEvent }),
      });
      if (!outcome.ok) {
        throw new PorchError('BILLING_FAILED', 'Credit deduction failed after execution, so the result was withheld. Check the balance, then retry once.');
      }
    },

    async release(reservation) {
      await store.release(reservation.id);
    },

    releaseExpired: () => store.releaseExpired(clock.now()),
  };
}
