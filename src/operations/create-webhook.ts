import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { endpointWithSecretSchema, webhookScopes, webhookTag, webhookWriteFields } from './webhook-schemas.js';

export const createWebhook = defineKeyedOperation({
  name: 'create_webhook',
  title: 'Create a webhook endpoint',
  description:
    'Registers an endpoint to receive events (run.completed, run.failed, credits.low), signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers). Answers the signing secret once. The URL must be https and resolve to public addresses (400 naming the rule otherwise), unless the operator allow-lists its host.',
  method: 'POST',
  path: '/webhooks',
  tag: webhookTag,
  effect: 'write',
  successStatus: 201,
  scopes: webhookScopes,
  body: z.strictObject(webhookWriteFields),
  output: endpointWithSecretSchema,
  run: (input, { core, caller }) => core.webhooks.create(caller.account.id, input),
});
