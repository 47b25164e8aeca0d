/**
 * Calls stopped from outside: the client went away, the run was cancelled, the process is
 * shutting down. The call then ends with an error (its provider request was aborted), but nothing
 * failed: metrics, spans and logs report it as stopped, never as the provider's fault or Porch's,
 * or an alert on provider failures would page whenever users close a tab.
 */
import type { Span } from '@opentelemetry/api';
import { isCallStop } from '../errors.js';

/** The outcome code a stopped call is reported with, in metrics and as the span's `error.type`. */
export const STOPPED_CODE = 'CANCELLED';

/**
 * Whether `signal` stopped its call from outside (a CallStopped reason, or one caused by it),
 * rather than a deadline or a fault: the test a run's status uses too (`isCallStop`), so the two
 * never disagree on a stop wrapped a few causes deep.
 */
export function stoppedFromOutside(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && isCallStop(signal.reason);
}

/** Names the stop on the span without marking it failed: the span's status stays unset. */
export function recordStopped(span: Span): void {
  span.setAttribute('error.type', STOPPED_CODE);
}
