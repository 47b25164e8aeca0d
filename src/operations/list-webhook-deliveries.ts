import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES } from '../db/store.js';
import { defineKeyedOperation } from './operation.js';
import { idParams, listOf, pageQuery } from './schemas.js';
import { webhookDeliverySchema, webhookScopes, webhookTag } from './webhook-schemas.js';

export const listWebhookDeliveries = defineKeyedOperation({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  description:
    "An endpoint's delivery log, newest first: each event sent to it with its status, the next attempt's time, and every attempt's status code, duration and error. Filter by status; page with limit and cursor. Payloads are dropped after retention.run_days; the attempts stay.",
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  tag: webhookTag,
  effect: 'read',
  successStatus: 200,
  scopes: webhookScopes,
  params: idParams,
  query: pageQuery.extend({ status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional().describe('Only deliveries with this status.') }),
  output: listOf(webhookDeliverySchema, 'deliveries'),
  run: ({ id, ...query }, { core, caller }) => core.webhooks.deliveries(caller.account.id, id, query),
});
