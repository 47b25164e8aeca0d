import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { webhookEndpointSchema, webhookScopes, webhookTag } from './webhook-schemas.js';

export const getWebhook = defineKeyedOperation({
  name: 'get_webhook',
  title: 'Get a webhook endpoint',
  description: "One of the account's webhook endpoints (never its secret). Another account's endpoint answers 404.",
  method: 'GET',
  path: '/webhooks/{id}',
  tag: webhookTag,
  effect: 'read',
  successStatus: 200,
  scopes: webhookScopes,
  params: idParams,
  output: webhookEndpointSchema,
  run: ({ id }, { core, caller }) => core.webhooks.get(caller.account.id, id),
});
