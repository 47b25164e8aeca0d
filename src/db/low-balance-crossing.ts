/**
 * When a charge reports `credits.low`, the same on every engine: the charge that takes an
 * account's balance from at or above its threshold to below it, and only that one (a balance
 * already below stays quiet until it went back above).
 */
import type { AccruedCharging, WebhookEventRecord } from './store.js';

/**
 * The `credits.low` event of a charge that took the balance from `before` to `after`, when that
 * crosses the account's threshold (from at or above it to below); none otherwise.
 */
export function lowBalanceCrossing(
  build: AccruedCharging['lowBalanceEvent'],
  crossing: { accountId: string; before: number; after: number; thresholdTokens: number | null; at: number },
): WebhookEventRecord[] {
  const { accountId, before, after, thresholdTokens, at } = crossing;
  if (build === undefined || thresholdTokens === null || before < thresholdTokens || after >= thresholdTokens) return [];
  return [build({ accountId, balanceTokens: after, thresholdTokens, at })];
}
