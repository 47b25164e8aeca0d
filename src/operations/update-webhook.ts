import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { changesSomething, idParams, oneFieldToChange } from './schemas.js';
import { webhookEndpointSchema, webhookScopes, webhookTag, webhookWriteFields } from './webhook-schemas.js';

export const updateWebhook = defineKeyedOperation({
  name: 'update_webhook',
  title: 'Update a webhook endpoint',
  description:
    'Changes some fields of a webhook endpoint (a partial update: send at least one of url, events, description, enabled). A new URL passes the same checks as at creation.',
  method: 'PATCH',
  path: '/webhooks/{id}',
  tag: webhookTag,
  effect: 'write',
  idempotent: true,
  successStatus: 200,
  scopes: webhookScopes,
  params: idParams,
  body: z
    .strictObject({ ...webhookWriteFields, url: webhookWriteFields.url.optional(), events: webhookWriteFields.events.optional() })
    .refine(changesSomething, { message: 'send at least one field to change' })
    // The refinement as JSON Schema, so the document refuses an empty PATCH as the server does.
    .meta(oneFieldToChange(Object.keys(webhookWriteFields))),
  output: webhookEndpointSchema,
  run: ({ id, ...changes }, { core, caller }) => core.webhooks.update(caller.account.id, id, changes),
});
