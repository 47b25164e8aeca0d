/**
 * Webhooks on SQLite: endpoints, the outbox of deliveries and the attempt log.
 *
 * `prepareWebhookEnqueue` is the one write on the hot path: the runs repository (and the
 * settlement that emits `credits.low`) call it inside their own transaction, so a delivery is
 * written exactly when what it reports is. It is one INSERT ... SELECT per event over the
 * account's endpoints (an index probe that finds nothing for an account without any).
 */
import { and, asc, desc, eq, inArray, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PorchDatabase } from './open-database.js';
import { immediateTransaction } from './immediate-transaction.js';
import { onFirstUse } from './on-first-use.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './schema.js';
import { CANDIDATES_PER_SLOT, pickClaims, saturated } from '../webhook-claims.js';
import type {
  ClaimedWebhookDelivery,
  WebhookClaimRequest,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventRecord,
  WebhookEventType,
  WebhookRepository,
} from '../store.js';

/**
 * One delivery per enabled endpoint of the event's account subscribed to its type. `events` is a
 * JSON array of fixed type names (none holds a quote), so a search for the quoted name in its
 * text is exact.
 */
const ENQUEUE_SQL = `
  insert into webhook_deliveries (endpoint_id, event_id, account_id, type, payload, status, attempts, next_attempt_at, created_at)
  select id, @eventId, account_id, @type, @payload, 'pending', 0, @createdAt, @createdAt
  from webhook_endpoints
  where account_id = @accountId and enabled = 1 and instr(events, @quotedType) > 0`;

/** Writes one delivery per subscribed endpoint for each event; call it inside the caller's transaction. */
export function prepareWebhookEnqueue(db: PorchDatabase): (events: readonly WebhookEventRecord[]) => number {
  const statement = onFirstUse(() => db.$client.prepare(ENQUEUE_SQL));
  return (events) => {
    let written = 0;
    for (const event of events) {
      written += statement().run({
        eventId: event.id,
        type: event.type,
        payload: event.payload,
        createdAt: event.createdAt,
        accountId: event.accountId,
        quotedType: `"${event.type}"`,
      }).changes;
    }
    return written;
  };
}

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const toEndpoint = (row: EndpointRow): WebhookEndpointRecord => ({ ...row, events: row.events as WebhookEventType[] });
const toDelivery = (row: DeliveryRow): WebhookDeliveryRecord => ({ ...row });

export function createWebhookRepository(db: PorchDatabase): WebhookRepository {
  const enqueue = prepareWebhookEnqueue(db);
  const owned = (accountId: string, id: string) => and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, accountId));
  /** No rotation's grace period runs at `at`: no previous secret still signs. */
  const outsideGrace = (at: number) => or(isNull(webhookEndpoints.previousSecretExpiresAt), lte(webhookEndpoints.previousSecretExpiresAt, at));
  const findOwned = (accountId: string, id: string) => db.select().from(webhookEndpoints).where(owned(accountId, id)).get();

  const insertIfBelowLimit = immediateTransaction(db, (endpoint: WebhookEndpointRecord, maxPerAccount: number): boolean => {
    const count = db.select({ count: sql<number>`count(*)` }).from(webhookEndpoints).where(eq(webhookEndpoints.accountId, endpoint.accountId)).get();
    if ((count?.count ?? 0) >= maxPerAccount) return false;
    db.insert(webhookEndpoints).values(endpoint).run();
    return true;
  });

  // Every serving process polls about once a second: a plain read first, so an idle outbox never
  // takes the write lock (other processes on the same file would queue behind it).
  const anyDue = onFirstUse(() =>
    db.$client.prepare<{ now: number }, { due: number }>(
      `select 1 as due from webhook_deliveries
       where status = 'pending' and next_attempt_at <= @now and (claimed_until is null or claimed_until <= @now) limit 1`,
    ),
  );

  /**
   * The ids as one JSON parameter, so the statement stays the same size however many endpoints a
   * claim leaves out (regression: with a parameter each, a long list of failing endpoints went
   * past SQLite's limit on parameters, and no webhook was delivered).
   */
  const notAmong = (column: SQLiteColumn, ids: readonly string[]) =>
    ids.length === 0 ? undefined : sql`${column} not in (select value from json_each(${JSON.stringify(ids)}))`;

  const claim = immediateTransaction(db, (request: WebhookClaimRequest): ClaimedWebhookDelivery[] => {
    const { now, limit, claimUntil } = request;
    const full = saturated(request);
    const rows = db
      .select({
        delivery: webhookDeliveries,
        url: webhookEndpoints.url,
        encryptedSecret: webhookEndpoints.encryptedSecret,
        previousEncryptedSecret: webhookEndpoints.previousEncryptedSecret,
        previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          sql`${webhookDeliveries.nextAttemptAt} <= ${now}`,
          sql`(${webhookDeliveries.claimedUntil} is null or ${webhookDeliveries.claimedUntil} <= ${now})`,
          eq(webhookEndpoints.enabled, true),
          sql`${webhookDeliveries.payload} is not null`,
          notAmong(webhookDeliveries.endpointId, full.endpoints),
          notAmong(webhookDeliveries.accountId, full.accounts),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit * CANDIDATES_PER_SLOT)
      .all();
    const claimed: ClaimedWebhookDelivery[] = [];
    const picked = pickClaims(
      rows.map((row) => ({ ...row, endpointId: row.delivery.endpointId, accountId: row.delivery.accountId })),
      request,
    );
    for (const row of picked) {
      const { delivery } = row;
      if (delivery.payload === null) continue;
      db.update(webhookDeliveries)
        .set({ claimedUntil: claimUntil })
        .where(and(eq(webhookDeliveries.endpointId, delivery.endpointId), eq(webhookDeliveries.eventId, delivery.eventId)))
        .run();
      claimed.push({
        ...toDelivery(delivery),
        payload: delivery.payload,
        url: row.url,
        encryptedSecret: row.encryptedSecret,
        previousEncryptedSecret: row.previousEncryptedSecret,
        previousSecretExpiresAt: row.previousSecretExpiresAt,
      });
    }
    return claimed;
  });

  const recordAttempt = immediateTransaction(db, ({ attempt, status, nextAttemptAt }: Parameters<WebhookRepository['recordAttempt']>[0]) => {
    const moved = db
      .update(webhookDeliveries)
      .set({
        status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt,
        claimedUntil: null,
        lastAttemptAt: attempt.attemptedAt,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
      })
      .where(and(eq(webhookDeliveries.endpointId, attempt.endpointId), eq(webhookDeliveries.eventId, attempt.eventId)))
      .run().changes;
    // An endpoint deleted while the attempt ran took its deliveries and log with it: nothing to log.
    if (moved > 0) db.insert(webhookAttempts).values(attempt).run();
  });

  const deleteEndpoint = immediateTransaction(db, (accountId: string, id: string): boolean => {
    const removed = db.delete(webhookEndpoints).where(owned(accountId, id)).run().changes;
    if (removed === 0) return false;
    db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id)).run();
    db.delete(webhookAttempts).where(eq(webhookAttempts.endpointId, id)).run();
    return true;
  });

  const redeliver = immediateTransaction(db, (accountId: string, endpointId: string, eventId: string, now: number) => {
    if (!findOwned(accountId, endpointId)) return 'not_found' as const;
    const key = and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.eventId, eventId));
    const delivery = db
      .select({ status: webhookDeliveries.status, hasPayload: sql<number>`${webhookDeliveries.payload} is not null` })
      .from(webhookDeliveries)
      .where(key)
      .get();
    if (!delivery) return 'not_found' as const;
    if (delivery.status === 'pending') return 'pending' as const;
    if (delivery.hasPayload !== 1) return 'pruned' as const;
    db.update(webhookDeliveries).set({ status: 'pending', attempts: 0, nextAttemptAt: now, claimedUntil: null }).where(key).run();
    return 'queued' as const;
  });

  return {
    async insertEndpointIfBelowLimit({ endpoint, maxPerAccount }) {
      return insertIfBelowLimit(endpoint, maxPerAccount);
    },
    async findEndpoint({ accountId, id }) {
      const row = findOwned(accountId, id);
      return row ? toEndpoint(row) : null;
    },
    async listEndpoints(accountId) {
      return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId)).orderBy(asc(webhookEndpoints.id)).all().map(toEndpoint);
    },
    async updateEndpoint({ accountId, id, changes, at }) {
      const row = db
        .update(webhookEndpoints)
        .set({ ...changes, updatedAt: at })
        .where(owned(accountId, id))
        .returning()
        .get();
      return row ? toEndpoint(row) : null;
    },
    async rotateSecret({ accountId, id, encryptedSecret, previousExpiresAt, at }) {
      const row = db
        .update(webhookEndpoints)
        .set({
          previousEncryptedSecret: previousExpiresAt === null ? null : sql`${webhookEndpoints.encryptedSecret}`,
          previousSecretExpiresAt: previousExpiresAt,
          encryptedSecret,
          updatedAt: at,
        })
        // A graceful rotation while an earlier one's grace runs would cut that grace short (one previous secret is kept).
        .where(previousExpiresAt === null ? owned(accountId, id) : and(owned(accountId, id), outsideGrace(at)))
        .returning()
        .get();
      return row ? toEndpoint(row) : null;
    },
    async deleteEndpoint({ accountId, id }) {
      return deleteEndpoint(accountId, id);
    },
    async enqueue(event) {
      return enqueue([event]);
    },
    async claimDue(request) {
      if (anyDue().get({ now: request.now }) === undefined) return [];
      return claim(request);
    },
    async recordAttempt(result) {
      recordAttempt(result);
    },
    async listDeliveries({ accountId, id, status, page }) {
      if (!findOwned(accountId, id)) return [];
      return db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.endpointId, id),
            status === undefined ? undefined : eq(webhookDeliveries.status, status),
            page.cursor === undefined ? undefined : lt(webhookDeliveries.eventId, page.cursor),
          ),
        )
        .orderBy(desc(webhookDeliveries.eventId))
        .limit(page.limit ?? -1)
        .all()
        .map(toDelivery);
    },
    async findDelivery({ accountId, id, eventId }) {
      const row = db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.accountId, accountId)))
        .get();
      return row ? toDelivery(row) : null;
    },
    async listAttempts({ endpointId, eventIds }) {
      if (eventIds.length === 0) return [];
      return db
        .select()
        .from(webhookAttempts)
        .where(and(eq(webhookAttempts.endpointId, endpointId), inArray(webhookAttempts.eventId, [...eventIds])))
        .orderBy(asc(webhookAttempts.id))
        .all();
    },
    async redeliver({ accountId, id, eventId, now }) {
      return redeliver(accountId, id, eventId, now);
    },
    async prunePayloads({ before }) {
      return db
        .update(webhookDeliveries)
        .set({ payload: null })
        .where(and(lt(webhookDeliveries.createdAt, before), ne(webhookDeliveries.status, 'pending'), sql`${webhookDeliveries.payload} is not null`))
        .run().changes;
    },
  };
}
