/** `porch/client`: the typed REST client with the spec's retry rules. */
export { createPorchClient, type CallOptions, type OperationRequest, type PorchClient, type PorchClientOptions, type RetryEvent } from './client.js';
export { PorchApiError } from './errors.js';
export { AI_BACKOFF_MS, DEFAULT_RETRY_AFTER_SECONDS, MAX_RETRIES } from './retry-policy.js';
export { PorchWebhookError, verifyWebhook, type PorchWebhookEvent, type WebhookHeaders } from './verify-webhook.js';
