/**
 * Webhook endpoints as an account manages them: create (the secret is answered once), list, read,
 * change, delete, rotate the secret (the old one keeps signing during a grace period), the
 * delivery log with its attempts, manual redelivery, and the account's `credits.low` threshold.
 * Another account's endpoint reads as missing (404), so ids cannot be probed.
 */
import type {
  PageRequest,
  Store,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointChanges,
  WebhookEndpointRecord,
  WebhookEventType,
} from '../../db/store.js';
import type { Clock } from '../clock.js';
import { TOKENS_PER_CREDIT } from '../credits/credits.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { fetchPage, type Page, pageOfOrdered } from '../pages.js';
import { toIsoTimestamp } from '../views.js';
import { encryptWebhookSecret, newWebhookSecret } from './secrets.js';
import { checkEndpointUrl, type HostResolver, systemResolver } from './url-guard.js';

/** Endpoints one account may register: enough for every environment and tool, bounded so a key cannot fan one event out without limit. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
/** How long the previous secret keeps signing after a rotation when no grace is given: a day to roll receivers over. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400;
/** The longest grace: a week. */
export const MAX_SECRET_GRACE_SECONDS = 7 * 86_400;

const MS_PER_DAY = 86_400_000;

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  /** Until when the secret before the last rotation still signs; null when only one secret signs. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptView {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  payload_available: boolean;
  attempt_log: WebhookAttemptView[];
}

export interface WebhookSettings {
  /** `webhooks.allow_hosts`. */
  allowHosts: readonly string[];
  /** Days delivery payloads are kept (`retention.run_days`); status codes and timings stay. */
  retentionDays: number;
  resolve?: HostResolver;
}

const isoOrNull = (epochMs: number | null): string | null => (epochMs === null ? null : toIsoTimestamp(epochMs));

/**
 * The URL as deliveries call it: what a URL is stored as since endpoints are checked with
 * `checkEndpointUrl`, and for one stored as typed before, its parsed form, so that a control
 * character it holds never reaches a terminal or a page.
 */
function calledUrl(stored: string): string {
  return URL.canParse(stored) ? new URL(stored).href : stored;
}

function endpointView(endpoint: WebhookEndpointRecord, now: number): WebhookEndpointView {
  const graceLive = endpoint.previousEncryptedSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return {
    id: endpoint.id,
    url: calledUrl(endpoint.url),
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.enabled,
    previous_secret_expires_at: graceLive ? isoOrNull(endpoint.previousSecretExpiresAt) : null,
    created_at: toIsoTimestamp(endpoint.createdAt),
    updated_at: toIsoTimestamp(endpoint.updatedAt),
  };
}

function attemptView(attempt: WebhookAttemptRecord): WebhookAttemptView {
  return { attempted_at: toIsoTimestamp(attempt.attemptedAt), status_code: attempt.statusCode, duration_ms: attempt.durationMs, error: attempt.error };
}

function deliveryView(delivery: WebhookDeliveryRecord, attempts: readonly WebhookAttemptRecord[]): WebhookDeliveryView {
  return {
    id: delivery.eventId,
    event_type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? isoOrNull(delivery.nextAttemptAt) : null,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    created_at: toIsoTimestamp(delivery.createdAt),
    payload_available: delivery.payload !== null,
    attempt_log: attempts.filter((attempt) => attempt.eventId === delivery.eventId).map(attemptView),
  };
}

export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

export function createWebhookService(store: Store, clock: Clock, secretKey: Buffer, settings: WebhookSettings) {
  const resolve = settings.resolve ?? systemResolver;
  const missing = (id: string) => new PorchError('RESOURCE_NOT_FOUND', `No webhook endpoint with id ${id}.`);

  /** The URL to store: as parsed, so what is shown is what is called. */
  async function requireSafeUrl(url: string): Promise<string> {
    const check = await checkEndpointUrl(url, settings.allowHosts, resolve);
    if (!check.ok) throw new PorchError('VALIDATION_ERROR', `url: ${check.rule}.`);
    return check.url.href;
  }

  async function requireEndpoint(accountId: string, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await store.webhooks.findEndpoint({ accountId, id });
    if (!endpoint) throw missing(id);
    return endpoint;
  }

  return {
    async create(accountId: string, input: EndpointInput): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
      // The CLI names accounts by id; a key's own account always exists, and is on Expert.
      const account = await store.accounts.findById(accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);
      if (account.plan !== 'expert')
        throw new PorchError('VALIDATION_ERROR', `Webhooks are an Expert-plan feature; this account is on the ${account.plan} plan.`);
      const url = await requireSafeUrl(input.url);
      const now = clock.now();
      const id = newId();
      const secret = newWebhookSecret();
      const endpoint: WebhookEndpointRecord = {
        id,
        accountId,
        url,
        description: input.description ?? null,
        events: [...new Set(input.events)],
        enabled: input.enabled ?? true,
        encryptedSecret: encryptWebhookSecret(secret, secretKey, id),
        previousEncryptedSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await store.webhooks.insertEndpointIfBelowLimit({ endpoint, maxPerAccount: MAX_ENDPOINTS_PER_ACCOUNT }))) {
        throw new PorchError('VALIDATION_ERROR', `The account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most allowed; delete one first.`);
      }
      return { endpoint: endpointView(endpoint, now), secret };
    },

    async list(accountId: string): Promise<WebhookEndpointView[]> {
      const now = clock.now();
      return (await store.webhooks.listEndpoints(accountId)).map((endpoint) => endpointView(endpoint, now));
    },

    /**
     * The account's endpoints, oldest first, paged as every list is (`limit`, and `cursor`: the
     * last id of the page before). An account has at most ten, so the page is cut from all of them.
     */
    async listPage(accountId: string, request: PageRequest): Promise<Page<WebhookEndpointView>> {
      const now = clock.now();
      return pageOfOrdered(
        (await store.webhooks.listEndpoints(accountId)).map((endpoint) => endpointView(endpoint, now)),
        request,
      );
    },

    async get(accountId: string, id: string): Promise<WebhookEndpointView> {
      return endpointView(await requireEndpoint(accountId, id), clock.now());
    },

    async update(accountId: string, id: string, changes: Partial<EndpointInput>): Promise<WebhookEndpointView> {
      await requireEndpoint(accountId, id);
      const update: WebhookEndpointChanges = {};
      if (changes.url !== undefined) update.url = await requireSafeUrl(changes.url);
      if (changes.events !== undefined) update.events = [...new Set(changes.events)];
      if (changes.description !== undefined) update.description = changes.description;
      if (changes.enabled !== undefined) update.enabled = changes.enabled;
      const now = clock.now();
      const updated = await store.webhooks.updateEndpoint({ accountId, id, changes: update, at: now });
      if (!updated) throw missing(id);
      return endpointView(updated, now);
    },

    async remove(accountId: string, id: string): Promise<void> {
      if (!(await store.webhooks.deleteEndpoint({ accountId, id }))) throw missing(id);
    },

    /** A new secret, answered once; the old one keeps signing beside it for `graceSeconds` (0: stops at once). */
    async rotateSecret(accountId: string, id: string, graceSeconds: number): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
      await requireEndpoint(accountId, id);
      const now = clock.now();
      const secret = newWebhookSecret();
      const rotate = () =>
        store.webhooks.rotateSecret({
          accountId,
          id,
          encryptedSecret: encryptWebhookSecret(secret, secretKey, id),
          previousExpiresAt: graceSeconds > 0 ? now + graceSeconds * 1_000 : null,
          at: now,
        });
      let rotated = await rotate();
      if (!rotated) {
        const graceEnd = (await requireEndpoint(accountId, id)).previousSecretExpiresAt;
        const running = graceEnd !== null && graceEnd > now;
        // The grace that refused it ended (or another rotation ended it) in between: once more.
        if (!running) rotated = await rotate();
        if (!rotated) {
          throw new PorchError(
            'CONFLICT',
            `Webhook endpoint ${id} is in a rotation's grace period${running ? ` until ${new Date(graceEnd).toISOString()}` : ''}: its previous secret still signs. Rotate again once it ends, or now with grace_seconds 0, which ends that grace too.`,
          );
        }
      }
      return { endpoint: endpointView(rotated, now), secret };
    },

    async deliveries(accountId: string, id: string, request: PageRequest & { status?: WebhookDeliveryStatus | undefined }): Promise<Page<WebhookDeliveryView>> {
      await requireEndpoint(accountId, id);
      // Pages are keyed by the event id (the delivery's id within its endpoint).
      const rows = await fetchPage(
        { limit: request.limit, cursor: request.cursor },
        async (page) => (await store.webhooks.listDeliveries({ accountId, id, status: request.status, page })).map((row) => ({ ...row, id: row.eventId })),
        (row): WebhookDeliveryRecord => row,
      );
      const attempts = await store.webhooks.listAttempts({ endpointId: id, eventIds: rows.items.map((row) => row.eventId) });
      return { ...rows, items: rows.items.map((row) => deliveryView(row, attempts)) };
    },

    /** Queues a finished delivery again (same `webhook-id`, a fresh retry schedule), due now. */
    async redeliver(accountId: string, id: string, eventId: string): Promise<WebhookDeliveryView> {
      const outcome = await store.webhooks.redeliver({ accountId, id, eventId, now: clock.now() });
      if (outcome === 'not_found') throw new PorchError('RESOURCE_NOT_FOUND', `No delivery ${eventId} for webhook endpoint ${id}.`);
      if (outcome === 'pending') throw new PorchError('CONFLICT', `Delivery ${eventId} is still pending; it is retried on its schedule.`);
      if (outcome === 'pruned')
        throw new PorchError('CONFLICT', `Delivery ${eventId} is older than retention.run_days; its payload is gone, so it cannot be sent again.`);
      const delivery = await store.webhooks.findDelivery({ accountId, id, eventId });
      if (!delivery) throw new PorchError('RESOURCE_NOT_FOUND', `No delivery ${eventId} for webhook endpoint ${id}.`);
      return deliveryView(delivery, await store.webhooks.listAttempts({ endpointId: id, eventIds: [eventId] }));
    },

    async setLowBalanceThreshold(accountId: string, thresholdCredits: number | null): Promise<{ threshold_credits: number | null }> {
      if (!(await store.accounts.findById(accountId))) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${accountId}.`);
      const thresholdTokens = thresholdCredits === null ? null : Math.round(thresholdCredits * TOKENS_PER_CREDIT);
      await store.credits.setLowBalanceThreshold({ accountId, thresholdTokens, at: clock.now() });
      return { threshold_credits: thresholdTokens === null ? null : thresholdTokens / TOKENS_PER_CREDIT };
    },

    async lowBalanceThreshold(accountId: string): Promise<number | null> {
      const tokens = await store.credits.lowBalanceThreshold(accountId);
      return tokens === null ? null : tokens / TOKENS_PER_CREDIT;
    },

    /** Drops delivery payloads older than retention; the attempts' status codes and timings stay. */
    async prunePayloads(): Promise<number> {
      return store.webhooks.prunePayloads({ before: clock.now() - settings.retentionDays * MS_PER_DAY });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
