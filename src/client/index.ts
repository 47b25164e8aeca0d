/** `porch/client`: the typed REST client with the spec's retry rules. */
export {
  createPorchClient,
  type AsyncRunMethods,
  type CallOptions,
  type OperationRequest,
  type PorchClient,
  type PorchClientOptions,
  type QueuedRun,
  type RetryEvent,
  type RunDetail,
  type WaitOptions,
} from './client.js';
export { PorchApiError } from './errors.js';
export { AI_BACKOFF_MS, DEFAULT_RETRY_AFTER_SECONDS, MAX_RETRIES } from './retry-policy.js';
export type { StreamedNode, StreamEvent, StreamOptions } from './stream.js';
export { PorchWebhookError, verifyWebhook, type PorchWebhookEvent, type WebhookHeaders } from './verify-webhook.js';
