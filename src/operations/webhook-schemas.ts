/** Schemas shared by the webhook operations. */
import { z } from 'zod';
import type { Scope } from '../core/access/scopes.js';
import { DEFAULT_SECRET_GRACE_SECONDS, MAX_SECRET_GRACE_SECONDS } from '../core/webhooks/webhooks.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../db/store.js';
import { idInput, timestampSchema } from './schemas.js';
import { nonBlankText } from '../core/validation.js';

export const webhookScopes: readonly Scope[] = ['manage:webhooks'];
export const webhookTag = 'Webhooks';

/** Long enough for any real URL; a megabyte of URL would only be a way to fill the database. */
const MAX_URL_LENGTH = 2_048;
const MAX_DESCRIPTION_LENGTH = 500;

export const webhookWriteFields = {
  url: nonBlankText(MAX_URL_LENGTH)
    .describe(
      'Where events are POSTed: an https URL whose host resolves to public addresses only (loopback, private, link-local, CGNAT and metadata addresses are refused unless the operator lists the host in webhooks.allow_hosts, which also allows http). Control characters, whitespace (percent-encode them) and port 0 are refused. It is stored as parsed: host in lower case, an IPv4 address in dotted decimal, no default port.',
    )
    .meta({ examples: ['https://hooks.example.com/porch'] }),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1, 'must name at least one event')
    .max(WEBHOOK_EVENT_TYPES.length * 2)
    .describe(`The events to deliver: ${WEBHOOK_EVENT_TYPES.join(', ')}.`),
  description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable().optional().describe('A note for people: what the endpoint is for.'),
  enabled: z.boolean().optional().describe('Whether events are delivered (default true); a disabled endpoint keeps its log and gets no new deliveries.'),
};

export const webhookEndpointSchema = z
  .object({
    id: z.uuid().describe('Endpoint id.'),
    url: z
      .string()
      .describe('Where events are POSTed, as parsed when it was given: the URL deliveries call.')
      .meta({ examples: ['https://hooks.example.com/porch'] }),
    description: z.string().nullable().describe('A note for people.'),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).describe('The events delivered to it.'),
    enabled: z.boolean().describe('Whether events are delivered.'),
    previous_secret_expires_at: timestampSchema
      .nullable()
      .describe('After a rotation with grace: until when deliveries are also signed with the previous secret; null otherwise.'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .describe('A webhook endpoint (never its secret, which is shown once).');

export const endpointWithSecretSchema = z
  .object({
    endpoint: webhookEndpointSchema,
    secret: z.string().describe('The signing secret (whsec_...), shown only now: verify each delivery with it (Standard Webhooks). Store it like a password.'),
  })
  .describe('The endpoint and its signing secret, shown once.');

export const graceSecondsField = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be at least 0')
  .max(MAX_SECRET_GRACE_SECONDS, `must be at most ${MAX_SECRET_GRACE_SECONDS}`)
  .default(DEFAULT_SECRET_GRACE_SECONDS)
  .describe(
    `Seconds the previous secret keeps signing beside the new one (0-${MAX_SECRET_GRACE_SECONDS}; default ${DEFAULT_SECRET_GRACE_SECONDS}, a day), so receivers can switch without rejecting a delivery; 0 retires it at once.`,
  );

export const webhookDeliverySchema = z
  .object({
    id: z.uuid().describe('The delivery id within its endpoint: the event id, sent as the webhook-id header (the same on every retry).'),
    event_type: z.string().describe('The event type (run.completed, run.failed, credits.low).'),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).describe('pending (waiting for its next attempt), succeeded (a 2xx answer) or failed (every attempt failed).'),
    attempts: z.number().int().min(0).describe('Attempts since it was queued or last redelivered.'),
    next_attempt_at: timestampSchema.nullable().describe('When a pending delivery is tried next; null once it is done.'),
    last_status_code: z.number().int().nullable().describe("The receiver's HTTP status at the last attempt; null when none answered."),
    last_error: z
      .string()
      .nullable()
      .describe('Why the last attempt failed (timeout, connection, tls, redirect, http_status, blocked_address, dns, invalid_url, secret); null on success.'),
    created_at: timestampSchema,
    payload_available: z.boolean().describe('False once retention (retention.run_days) dropped the payload; such a delivery cannot be redelivered.'),
    attempt_log: z
      .array(
        z
          .object({
            attempted_at: timestampSchema,
            status_code: z.number().int().nullable().describe('HTTP status, or null when no response arrived.'),
            duration_ms: z.number().int().min(0).describe('How long the attempt took, in milliseconds.'),
            error: z.string().nullable().describe('Why it failed; null on success.'),
          })
          .describe('One attempt.'),
      )
      .describe('Every attempt, oldest first (kept after the payload is pruned).'),
  })
  .describe('One event sent (or being sent) to one endpoint, with its attempts.');

export const deliveryParams = z.object({
  id: idInput().describe('Endpoint id (uuid).'),
  delivery_id: idInput().describe('Delivery id (uuid): the event id, as sent in webhook-id.'),
});
