/**
 * The webhook events Porch emits, built in core and handed to the repository that writes what
 * they report, so the outbox rows land in the same transaction (the outbox pattern). The body is
 * Standard Webhooks' `{type, timestamp, data}`, serialised once here: the bytes stored are the
 * bytes signed and sent on every attempt.
 */
import type { LowBalanceEventBuilder, RunRecord, WebhookEventRecord, WebhookEventType } from '../../db/store.js';
import { TOKENS_PER_CREDIT } from '../credits/credits.js';
import { newId } from '../ids.js';
import { runView } from '../runs/runs.js';
import { toIsoTimestamp } from '../views.js';

export function webhookEvent(accountId: string, type: WebhookEventType, data: unknown, at: number): WebhookEventRecord {
  const id = newId();
  return { id, accountId, type, payload: JSON.stringify({ type, timestamp: toIsoTimestamp(at), data }), createdAt: at };
}

/**
 * `run.completed` or `run.failed` for a finished run: its summary as `get_run` shows it, without
 * inputs and result (they may hold personal data; the receiver fetches them with the run id).
 * A run in any other state (queued, running, cancelled) emits nothing. `finishedAt` is the
 * event's time, for every run: when it finished, not when it started (regression: a synchronous
 * run's event was dated its start, minutes before it happened for a long workflow).
 */
export function runFinishedEvents(run: RunRecord, finishedAt: number): WebhookEventRecord[] {
  if (run.status !== 'completed' && run.status !== 'failed') return [];
  return [webhookEvent(run.accountId, `run.${run.status}`, runView(run, run.payload !== null), finishedAt)];
}

/** `credits.low`: the balance after the settlement that took it below the account's threshold. */
export const lowBalanceEvent: LowBalanceEventBuilder = ({ accountId, balanceTokens, thresholdTokens, at }) =>
  webhookEvent(
    accountId,
    'credits.low',
    {
      account_id: accountId,
      credits_remaining: Math.floor(balanceTokens / TOKENS_PER_CREDIT),
      threshold_credits: thresholdTokens / TOKENS_PER_CREDIT,
    },
    at,
  );
