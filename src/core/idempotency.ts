/**
 * Idempotency-Key on executions: a retry with the same key and body within 24 hours replays the
 * stored response without running or charging again; the same key with another body is a 409.
 * Only successful responses are stored, so a failed attempt (500, 402 BILLING_FAILED) can be retried.
 */
import { createHash } from 'node:crypto';
import type { AccruedCharging, IdempotencyRepository } from '../db/store.js';
import type { Clock } from './clock.js';
import { LONGEST_PAUSE_MS } from './deferred-writes.js';
import { PorchError } from './errors.js';
import type { Instance } from './instance.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Visible ASCII, as HTTP header values allow, and short enough to index. */
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** JSON with sorted object keys, so equal bodies hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type IdempotencyStart = { kind: 'replay'; status: number; body: unknown } | { kind: 'claimed' };

/**
 * The same request asked in the other answering mode (at once, or queued with `Prefer:
 * respond-async`), which a key remembers apart: when the key was used for that one, the conflict
 * says so instead of sending the caller to look for a difference in a body that has none.
 */
export interface OtherMode {
  input: unknown;
  /** The message of the conflict when the key was used for `input`. */
  conflict: string;
}

function requestHashOf(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** `accruedCharging`: how what a dead claim's process accrued is charged when a retry takes the key over. */
export function createIdempotencyService(store: IdempotencyRepository, clock: Clock, instance: Instance, accruedCharging: () => AccruedCharging) {
  return {
    async begin(accountId: string, idempotencyKey: string, operation: string, input: unknown, otherMode?: OtherMode): Promise<IdempotencyStart> {
      if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
        throw new PorchError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
      }
      const instanceId = await instance.ready();
      const now = clock.now();
      const requestHash = requestHashOf(input);
      const claim = await store.claim({
        accountId,
        idempotencyKey,
        operation,
        requestHash,
        now,
        expiresAt: now + IDEMPOTENCY_TTL_MS,
        instanceId,
        charging: accruedCharging(),
        mayReleaseLapsed: instance.settlesIn() === 0,
      });
      if (claim.kind === 'conflict') {
        if (otherMode !== undefined && claim.operation === operation && claim.requestHash === requestHashOf(otherMode.input)) {
          throw new PorchError('IDEMPOTENCY_CONFLICT', otherMode.conflict);
        }
        throw new PorchError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request; use a new key for a new request.');
      }
      if (claim.kind === 'in_progress') {
        // The claim cannot tell a request still running from one that ended while the store was
        // out of reach, whose server writes the key's outcome only once the store is back
        // (deferred-writes.ts): a retry right after an outage finds the key so (regression: told
        // the request was still running when it had answered 503).
        throw new PorchError(
          'IDEMPOTENCY_CONFLICT',
          `A request with this Idempotency-Key is still running, or it ended while the database was out of reach and its server has yet to write the key's outcome (it does within ${LONGEST_PAUSE_MS / 1_000} s of the database's return). Retry in a few seconds: you get its stored answer or, if it answered an error, it runs again. If the server running it stopped, the key is released when that server's lease runs out (processes.lease_seconds, 30 s by default), or, on a server that has just started, some seconds later.`,
        );
      }
      return claim;
    },
    // Only the claim this process made: a write that lands late (core/deferred-writes.ts) never
    // ends a claim another process took over once this one's lease ran out.
    complete: async (accountId: string, idempotencyKey: string, status: number, body: unknown) =>
      store.complete({ accountId, idempotencyKey, instanceId: await instance.ready(), status, body }),
    abandon: async (accountId: string, idempotencyKey: string) => store.abandon({ accountId, idempotencyKey, instanceId: await instance.ready() }),
    deleteExpired: () => store.deleteExpired(clock.now()),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
