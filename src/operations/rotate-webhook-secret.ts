import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { endpointWithSecretSchema, graceSecondsField, webhookScopes, webhookTag } from './webhook-schemas.js';

export const rotateWebhookSecret = defineKeyedOperation({
  name: 'rotate_webhook_secret',
  title: "Rotate a webhook endpoint's secret",
  description:
    "Makes a new signing secret and answers it once. During grace_seconds (default a day) each delivery carries two signatures in webhook-signature, one per secret, so a receiver still holding the old secret keeps verifying until it switches. One previous secret is kept: a rotation with a grace period while an earlier one's grace runs answers 409 CONFLICT; grace_seconds 0 rotates at once and ends that grace too.",
  method: 'POST',
  path: '/webhooks/{id}/rotate-secret',
  tag: webhookTag,
  effect: 'write',
  successStatus: 201,
  scopes: webhookScopes,
  params: idParams,
  body: z.strictObject({ grace_seconds: graceSecondsField }),
  output: endpointWithSecretSchema,
  run: ({ id, grace_seconds }, { core, caller }) => core.webhooks.rotateSecret(caller.account.id, id, grace_seconds),
});
