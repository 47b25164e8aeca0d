import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { webhookScopes, webhookTag } from './webhook-schemas.js';

/** A billion credits: above any balance, so any real threshold fits. */
const MAX_THRESHOLD_CREDITS = 1_000_000_000;

export const thresholdSchema = z
  .object({
    threshold_credits: z
      .number()
      .min(0, 'must be at least 0')
      .max(MAX_THRESHOLD_CREDITS, `must be at most ${MAX_THRESHOLD_CREDITS}`)
      .multipleOf(0.001, 'must have at most three decimals (a credit is 1,000 tokens)')
      .nullable()
      .describe(
        'credits.low fires when a charge takes the balance from at or above this many credits to below it (once per crossing); null turns it off (the default).',
      ),
  })
  .describe("The account's credits.low threshold.");

export const setCreditsLowThreshold = defineKeyedOperation({
  name: 'set_credits_low_threshold',
  title: 'Set the credits.low threshold',
  description:
    "Sets the balance, in credits, below which the account's webhook endpoints subscribed to credits.low are told: the event fires once, in the charge that crosses it, and again only after the balance went back above it and crossed again.",
  method: 'PATCH',
  path: '/account/credits-low-threshold',
  tag: webhookTag,
  effect: 'write',
  idempotent: true,
  successStatus: 200,
  scopes: webhookScopes,
  body: z.strictObject({ threshold_credits: thresholdSchema.shape.threshold_credits }),
  output: thresholdSchema,
  run: ({ threshold_credits }, { core, caller }) => core.webhooks.setLowBalanceThreshold(caller.account.id, threshold_credits),
});
