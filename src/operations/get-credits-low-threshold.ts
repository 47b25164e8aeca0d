/**
 * `get_credits_low_threshold`: what `set_credits_low_threshold` last set, so a client (the
 * console's Webhooks page among them) can show the current value before changing it.
 */
import { defineKeyedOperation } from './operation.js';
import { thresholdSchema } from './set-credits-low-threshold.js';
import { webhookScopes, webhookTag } from './webhook-schemas.js';

export const getCreditsLowThreshold = defineKeyedOperation({
  name: 'get_credits_low_threshold',
  title: 'Get the credits.low threshold',
  description:
    "Reads the balance, in credits, below which the account's webhook endpoints subscribed to credits.low are told; null when credits.low is off (the default).",
  method: 'GET',
  path: '/account/credits-low-threshold',
  tag: webhookTag,
  effect: 'read',
  successStatus: 200,
  scopes: webhookScopes,
  output: thresholdSchema,
  run: async (_input, { core, caller }) => ({ threshold_credits: await core.webhooks.lowBalanceThreshold(caller.account.id) }),
});
