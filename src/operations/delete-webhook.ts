import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { webhookScopes, webhookTag } from './webhook-schemas.js';

export const deleteWebhook = defineKeyedOperation({
  name: 'delete_webhook',
  title: 'Delete a webhook endpoint',
  description: 'Deletes a webhook endpoint with its pending deliveries and its delivery log. Answers 204 with no body.',
  method: 'DELETE',
  path: '/webhooks/{id}',
  tag: webhookTag,
  effect: 'destructive',
  successStatus: 204,
  scopes: webhookScopes,
  params: idParams,
  output: null,
  run: ({ id }, { core, caller }) => core.webhooks.remove(caller.account.id, id),
});
