/**
 * Webhook signing secrets: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format the
 * `standardwebhooks` libraries read), stored only encrypted, with the BYOK keys' AES-256-GCM
 * under PORCH_SECRET_KEY. The endpoint id is the associated data, so a secret copied onto another
 * endpoint's row does not decrypt there.
 */
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../ai/byok-crypto.js';

const SECRET_PREFIX = 'whsec_';
/** 256 bits, as HMAC-SHA256's key: more adds nothing, less weakens the signature. */
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

const associatedData = (endpointId: string) => `webhook:${endpointId}`;

export function encryptWebhookSecret(secret: string, key: Buffer, endpointId: string): string {
  return encryptSecret(secret, key, associatedData(endpointId));
}

export function decryptWebhookSecret(blob: string, key: Buffer, endpointId: string): string {
  return decryptSecret(blob, key, associatedData(endpointId));
}
