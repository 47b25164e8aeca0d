import { defineKeyedOperation } from './operation.js';
import { deliveryParams, webhookDeliverySchema, webhookScopes, webhookTag } from './webhook-schemas.js';

export const redeliverWebhook = defineKeyedOperation({
  name: 'redeliver_webhook',
  title: 'Redeliver a webhook event',
  description:
    'Sends a succeeded or failed delivery again: it is queued at once with a fresh retry schedule and the same webhook-id (receivers that deduplicate by it see the same event). 409 while it is still pending, or once retention dropped its payload.',
  method: 'POST',
  path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
  tag: webhookTag,
  effect: 'write',
  successStatus: 200,
  scopes: webhookScopes,
  params: deliveryParams,
  output: webhookDeliverySchema,
  run: ({ id, delivery_id }, { core, caller }) => core.webhooks.redeliver(caller.account.id, id, delivery_id),
});
