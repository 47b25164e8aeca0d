/**
 * Verifying a Porch webhook on the receiving side. Porch signs deliveries with Standard Webhooks
 * (https://www.standardwebhooks.com): HMAC-SHA256 over `webhook-id.webhook-timestamp.body` with
 * the endpoint's `whsec_` secret, several space-separated signatures while a rotated secret is in
 * its grace period. This uses the reference library (`standardwebhooks`), which also refuses a
 * timestamp more than five minutes from the receiver's clock, so a captured delivery cannot be
 * replayed later.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** The event a verified delivery carries: Standard Webhooks' `{type, timestamp, data}`. */
export interface PorchWebhookEvent<Data = Record<string, unknown>> {
  /** `run.completed`, `run.failed` or `credits.low`. */
  type: string;
  /** When the event happened (ISO 8601 UTC). */
  timestamp: string;
  /** For `run.*`: the run as GET /runs/{id} shows it, without inputs and result. For `credits.low`: `account_id`, `credits_remaining`, `threshold_credits`. */
  data: Data;
}

/** A delivery whose signature, headers or timestamp do not verify: answer it 400 and drop it. */
export class PorchWebhookError extends Error {
  override readonly name = 'PorchWebhookError';
}

/** Headers as Node (`IncomingHttpHeaders`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function readHeaders(headers: WebhookHeaders): Record<string, string> {
  const read: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    let value: string | readonly string[] | null | undefined;
    if (typeof Headers !== 'undefined' && headers instanceof Headers) value = headers.get(name);
    else {
      const plain = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
      value = plain[name] ?? Object.entries(plain).find(([key]) => key.toLowerCase() === name)?.[1];
    }
    const text = Array.isArray(value) ? value.join(' ') : value;
    if (typeof text !== 'string' || text === '') throw new PorchWebhookError(`The ${name} header is missing: this is not a Porch webhook delivery.`);
    read[name] = text;
  }
  return read;
}

/**
 * Checks a delivery and answers its event. `payload` must be the raw body exactly as received
 * (parse it only after verifying: re-serialised JSON does not match the signature); `secret` is
 * the `whsec_...` value shown when the endpoint was created or its secret rotated. Throws a
 * PorchWebhookError when the delivery does not verify. Deduplicate by the `webhook-id` header:
 * a retry or a redelivery carries the same one.
 */
export function verifyWebhook<Data = Record<string, unknown>>(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): PorchWebhookEvent<Data> {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  try {
    return new Webhook(secret).verify(body, readHeaders(headers)) as PorchWebhookEvent<Data>;
  } catch (err) {
    if (err instanceof PorchWebhookError) throw err;
    if (err instanceof WebhookVerificationError) throw new PorchWebhookError(`The webhook does not verify: ${err.message}.`, { cause: err });
    throw new PorchWebhookError('The webhook does not verify: the secret or the body is malformed.', { cause: err });
  }
}
