import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery } from './schemas.js';
import { webhookEndpointSchema, webhookScopes, webhookTag } from './webhook-schemas.js';

export const listWebhooks = defineKeyedOperation({
  name: 'list_webhooks',
  title: 'List webhook endpoints',
  description:
    "Lists the account's webhook endpoints, oldest first: URL, events, enabled, and whether a rotated secret is still in its grace period. Never the secrets. Page with limit and cursor.",
  method: 'GET',
  path: '/webhooks',
  tag: webhookTag,
  effect: 'read',
  successStatus: 200,
  scopes: webhookScopes,
  query: pageQuery,
  output: listOf(webhookEndpointSchema, 'webhook endpoints', 'oldest first'),
  run: (query, { core, caller }) => core.webhooks.listPage(caller.account.id, query),
});
