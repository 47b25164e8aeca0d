import { defineKeyedOperation } from './operation.js';
import { listOf } from './schemas.js';
import { webhookEndpointSchema, webhookScopes, webhookTag } from './webhook-schemas.js';

export const listWebhooks = defineKeyedOperation({
  name: 'list_webhooks',
  title: 'List webhook endpoints',
  description:
    "Lists the account's webhook endpoints, oldest first: URL, events, enabled, and whether a rotated secret is still in its grace period. Never the secrets.",
  method: 'GET',
  path: '/webhooks',
  tag: webhookTag,
  effect: 'read',
  successStatus: 200,
  scopes: webhookScopes,
  output: listOf(webhookEndpointSchema, 'webhook endpoints', 'oldest first'),
  run: async (_input, { core, caller }) => {
    const items = await core.webhooks.list(caller.account.id);
    return { items, count: items.length };
  },
});
