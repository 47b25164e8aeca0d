import type { AccruedCharging, CreditBalance, CreditRepository, LowBalanceEventBuilder, UsageRecord, UsageRepository } from '../../db/store.js';
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

/**
 * The most credits an account may hold: a billion (10^12 tokens). Both engines keep balances as
 * exact whole numbers of tokens only below 2^53 (about 9 × 10^15); the bound keeps every balance,
 * and a few grants racing past it, far inside that, so the ledger always adds up to the balance.
 */
export const MAX_BALANCE_CREDITS = 1_000_000_000;
const MAX_BALANCE_TOKENS = MAX_BALANCE_CREDITS * TOKENS_PER_CREDIT;
const CREDIT_LIMIT_TEXT = MAX_BALANCE_CREDITS.toLocaleString('en');

/**
 * An amount of credits an operator gives (a grant, an account's initial credits) in whole tokens.
 * Refuses a fraction of a token (more than three decimals, which would be rounded away or written
 * as a zero entry) and more than an account may hold; `what` names the amount in the message.
 */
export function creditsToTokens(credits: number, what: string): number {
  const tokens = credits * TOKENS_PER_CREDIT;
  if (!Number.isFinite(tokens) || tokens < 0) throw new PorchError('VALIDATION_ERROR', `${what} must be a number of at least 0.`);
  const whole = Math.round(tokens);
  if (Math.abs(tokens - whole) > 0.001) {
    throw new PorchError('VALIDATION_ERROR', `${what} must have at most three decimals (a credit is 1,000 tokens), got ${credits}.`);
  }
  if (whole > MAX_BALANCE_TOKENS) throw new PorchError('VALIDATION_ERROR', `${what} must be at most ${CREDIT_LIMIT_TEXT}, the most an account may hold.`);
  return whole;
}

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
   * longer covers it, or the reservation was already closed (the store closed it either way, see
   * `settlementClosedReservation`). A usage record passed in is written with the charge, atomically.
   */
  settle(reservation: Reservation, actualTokens: number, reference: string, usage?: UsageRecord): Promise<void>;
  /** Gives a reservation back untouched (the call failed). Never throws for an already-closed one. */
  release(reservation: Reservation): Promise<void>;
  /** Releases reservations left open by a crash. */
  releaseExpired(): Promise<number>;
  /** The credits of one workflow run: one reservation for all its calls, settled once (see RunBudget). */
  openRun(accountId: string): RunBudget;
}

/**
 * How a workflow run pays for its model calls: one reservation for the whole run instead of a
 * reservation and a settlement per call. The reservation is opened by the first call and grown
 * when a call needs more than it has left; each call's record is accrued under it (one write);
 * the run's end settles it once. A crash at any point charges what was accrued (the store
 * charges it when the reservation is released) and gives back the rest, as it does for a call.
 * A run never spends beyond its reservation, so it can never overdraw, as single calls cannot.
 */
export interface RunBudget {
  /** Holds `tokens` for one call; 402 INSUFFICIENT_CREDITS when the balance cannot cover them. */
  hold(tokens: number): Promise<void>;
  /**
   * The call held `heldTokens` and cost `usage.chargedTokens`: its record is accrued under the
   * run's reservation. 402 BILLING_FAILED when the cost exceeds what the balance can still cover
   * (nothing is accrued then).
   */
  charge(heldTokens: number, usage: UsageRecord): Promise<void>;
  /** The call held `heldTokens` and failed: the hold goes back; its record (nothing charged) is written. */
  drop(heldTokens: number, usage: UsageRecord): Promise<void>;
  /** Ends the run: charges what was accrued and closes the reservation, writing the run's own record with it. */
  settle(reference: string, usage: UsageRecord): Promise<void>;
  /** Ends the run without its record (it failed to finish): what was accrued is still charged. */
  release(): Promise<void>;
}

/** What the ledger charges for a use of `tokens`: whole tokens, never negative. */
export function wholeTokens(tokens: number): number {
  return Math.max(0, Math.ceil(tokens));
}

/** `lowBalanceEvent` builds the `credits.low` webhook event a settlement emits when it crosses the account's threshold. */
function insufficient(available: number, required: number): PorchError {
  return new PorchError(
    'INSUFFICIENT_CREDITS',
    `Insufficient credits: ${formatCredits(Math.max(0, available))} available, ${formatCredits(required)} required to start this execution.`,
  );
}

/**
 * How the store charges, at `at`, what a reservation closed without a settlement accrued: as a
 * settlement's charge (its own new entry id, credits.low on a crossing), for every path that
 * closes one (a release, an expiry, a retired process, a taken-over idempotency claim).
 */
export function accruedChargingAt(at: number, lowBalanceEvent: LowBalanceEventBuilder | undefined): AccruedCharging {
  return { at, newEntryId: newId, lowBalanceEvent };
}

/**
 * Whether the settlement that failed with `err` still closed its reservation: only the store's
 * refusal (402 BILLING_FAILED: the balance could not cover the charge, or the reservation was
 * already closed) does. Any other failure, the store out of reach above all, changed nothing: the
 * reservation is still open and must not be reserved again beside it (regression: a stream whose
 * settlement met a locked SQLite file was charged from a second reservation, and the first stayed
 * held until it expired).
 */
export function settlementClosedReservation(err: unknown): boolean {
  return err instanceof PorchError && err.code === 'BILLING_FAILED';
}

const BILLING_FAILED_MESSAGE = 'Credit deduction failed after execution, so the result was withheld. Check the balance, then retry once.';

export function createCreditService(
  store: CreditRepository,
  clock: Clock,
  minimumTokens: number,
  instance: Instance,
  lowBalanceEvent?: LowBalanceEventBuilder,
  usageRecords?: UsageRepository,
): CreditService {
  const charging = () => accruedChargingAt(clock.now(), lowBalanceEvent);

  async function reserve(accountId: string, estimatedTokens: number): Promise<Reservation> {
    const tokens = wholeTokens(estimatedTokens);
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
    if (!outcome.ok) throw insufficient(outcome.balance.balanceTokens - outcome.balance.reservedTokens, Math.max(tokens, minimumTokens));
    return { id: reservationId, accountId, tokens };
  }

  function openRun(accountId: string): RunBudget {
    let reservation: Reservation | null = null;
    /** Tokens the reservation holds in the store. */
    let heldTokens = 0;
    /** Tokens accrued by finished calls plus those held by calls in flight; never above heldTokens once a hold returns. */
    let claimedTokens = 0;
    let closed = false;
    /**
     * Claims are made and covered one at a time: calls running in parallel (a workflow's nodes)
     * would otherwise each see the others' claims as their own shortfall, and grow the
     * reservation by all of them at once (regression: four parallel nodes reserved ten calls'
     * worth, and an account that could pay for them was refused).
     */
    let claiming: Promise<unknown> = Promise.resolve();
    const oneAtATime = <T>(task: () => Promise<T>): Promise<T> => {
      const result = claiming.then(task);
      claiming = result.catch(() => undefined);
      return result;
    };

    /** Grows the reservation until it covers what is claimed; false when the balance cannot. */
    async function cover(generously: boolean): Promise<boolean> {
      while (claimedTokens > heldTokens) {
        if (reservation === null) {
          // Opening: the store checks the minimum balance to start, as for any call.
          reservation = await reserve(accountId, claimedTokens);
          heldTokens = reservation.tokens;
          continue;
        }
        const shortfall = claimedTokens - heldTokens;
        // Doubling keeps the writes per run logarithmic in its cost; when the balance cannot
        // spare that much, exactly what is short is tried, so the run is refused only when a
        // call by itself would have been.
        const attempts = generously && heldTokens > shortfall ? [heldTokens, shortfall] : [shortfall];
        let grown = false;
        for (const tokens of attempts) {
          const outcome = await store.extend({ reservationId: reservation.id, tokens, at: clock.now() });
          if (outcome.ok) {
            heldTokens += tokens;
            grown = true;
            break;
          }
        }
        if (!grown) return false;
      }
      return true;
    }

    const openReservation = (): Reservation => {
      if (reservation === null || closed) throw new PorchError('INTERNAL_ERROR', 'The run has no open reservation.');
      return reservation;
    };

    return {
      async hold(tokens) {
        const needed = wholeTokens(tokens);
        const covered = await oneAtATime(async () => {
          claimedTokens += needed;
          let grown = false;
          try {
            grown = await cover(true);
          } finally {
            if (!grown) claimedTokens -= needed;
          }
          return grown;
        });
        if (!covered) {
          const { balanceTokens, reservedTokens } = await store.balance(accountId);
          throw insufficient(balanceTokens - reservedTokens, Math.max(needed, minimumTokens));
        }
      },

      async charge(held, usage) {
        const cost = wholeTokens(usage.chargedTokens);
        const accrued = await oneAtATime(async () => {
          claimedTokens += cost - held;
          let done = false;
          try {
            done = (await cover(false)) && (await store.accrue({ reservationId: openReservation().id, usage: { ...usage, chargedTokens: cost } }));
          } finally {
            if (!done) claimedTokens -= cost;
          }
          return done;
        });
        if (!accrued) throw new PorchError('BILLING_FAILED', BILLING_FAILED_MESSAGE);
      },

      async drop(held, usage) {
        claimedTokens -= held;
        const accrued = reservation !== null && !closed && (await store.accrue({ reservationId: reservation.id, usage }));
        if (!accrued) await usageRecords?.insert(usage);
      },

      async settle(reference, usage) {
        if (reservation === null) {
          await usageRecords?.insert(usage);
          return;
        }
        closed = true;
        const outcome = await store.settle({
          reservationId: reservation.id,
          chargeTokens: 0,
          reference,
          at: clock.now(),
          entryId: newId(),
          usage,
          ...(lowBalanceEvent === undefined ? {} : { lowBalanceEvent }),
        });
        if (!outcome.ok) throw new PorchError('BILLING_FAILED', BILLING_FAILED_MESSAGE);
      },

      async release() {
        if (reservation === null || closed) return;
        closed = true;
        await store.release(reservation.id, charging());
      },
    };
  }

  return {
    openRun,

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
      const tokens = creditsToTokens(credits, 'Credits to grant');
      if (tokens === 0) throw new PorchError('VALIDATION_ERROR', 'Credits to grant must be more than 0.');
      const { balanceTokens } = await store.balance(accountId);
      if (balanceTokens + tokens > MAX_BALANCE_TOKENS) {
        throw new PorchError(
          'VALIDATION_ERROR',
          `This grant would take the balance to ${formatCredits(balanceTokens + tokens)} credits; an account may hold at most ${CREDIT_LIMIT_TEXT}.`,
        );
      }
      return store.grant({
        accountId,
        tokens,
        reference: reference ?? 'operator grant',
        at: clock.now(),
        entryId: newId(),
      });
    },

    reserve,

    async settle(reservation, actualTokens, reference, usage) {
      const outcome = await store.settle({
        reservationId: reservation.id,
        chargeTokens: wholeTokens(actualTokens),
        reference,
        at: clock.now(),
        entryId: newId(),
        usage,
        // The engine calls it only when this charge takes the balance below the account's threshold.
        ...(lowBalanceEvent === undefined ? {} : { lowBalanceEvent }),
      });
      if (!outcome.ok) throw new PorchError('BILLING_FAILED', BILLING_FAILED_MESSAGE);
    },

    async release(reservation) {
      await store.release(reservation.id, charging());
    },

    releaseExpired: () => store.releaseExpired(charging()),
  };
}
