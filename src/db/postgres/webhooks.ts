/**
 * Webhooks on PostgreSQL: endpoints, the outbox of deliveries and the attempt log, as on SQLite
 * (src/db/sqlite/webhooks.ts). Deliveries are claimed with `FOR UPDATE SKIP LOCKED`, so any
 * number of processes share the outbox without two of them sending one delivery at once.
 */
import { and, asc, desc, eq, inArray, isNull, lt, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import { CANDIDATES_PER_SLOT, pickClaims, saturated } from '../webhook-claims.js';
import type { ClaimedWebhookDelivery, WebhookEndpointRecord, WebhookEventRecord, WebhookEventType, WebhookRepository } from '../store.js';

/**
 * Writes one delivery per enabled endpoint of each event's account subscribed to its type: one
 * INSERT ... SELECT per event. The runs repository and the settlement that emits `credits.low`
 * call it with their transaction, so the delivery lands with what it reports or not at all.
 */
export async function enqueueWebhookEvents(executor: PostgresDatabase | PostgresTransaction, events: readonly WebhookEventRecord[]): Promise<number> {
  let written = 0;
  for (const event of events) {
    const result = await executor.execute(sql`
      insert into webhook_deliveries (endpoint_id, event_id, account_id, type, payload, status, attempts, next_attempt_at, created_at)
      select id, ${event.id}, account_id, ${event.type}, ${event.payload}, 'pending', 0, ${event.createdAt}, ${event.createdAt}
      from webhook_endpoints
      where account_id = ${event.accountId} and enabled and events::jsonb ? ${event.type}`);
    written += result.rowCount ?? 0;
  }
  return written;
}

type EndpointRow = typeof webhookEndpoints.$inferSelect;
const toEndpoint = (row: EndpointRow): WebhookEndpointRecord => ({ ...row, events: row.events as WebhookEventType[] });

interface ClaimedRow extends Record<string, unknown> {
  endpoint_id: string;
  event_id: string;
  account_id: string;
  type: string;
  payload: string;
  status: 'pending';
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  url: string;
  encrypted_secret: string;
  previous_encrypted_secret: string | null;
  previous_secret_expires_at: string | null;
}

const numberOrNull = (value: string | null): number | null => (value === null ? null : Number(value));

export function createWebhookRepository(db: PostgresDatabase): WebhookRepository {
  const owned = (accountId: string, id: string) => and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, accountId));
  /** No rotation's grace period runs at `at`: no previous secret still signs. */
  const outsideGrace = (at: number) => or(isNull(webhookEndpoints.previousSecretExpiresAt), lte(webhookEndpoints.previousSecretExpiresAt, at));
  const findOwned = async (accountId: string, id: string) => (await db.select().from(webhookEndpoints).where(owned(accountId, id)))[0];

  return {
    async insertEndpointIfBelowLimit({ endpoint, maxPerAccount }) {
      return inTransaction(db, async (tx) => {
        // The account row's lock serialises one account's creates, so two cannot both pass the count.
        await tx.execute(sql`select id from accounts where id = ${endpoint.accountId} for update`);
        const [row] = await tx.select({ count: sql<number>`count(*)::int` }).from(webhookEndpoints).where(eq(webhookEndpoints.accountId, endpoint.accountId));
        if ((row?.count ?? 0) >= maxPerAccount) return false;
        await tx.insert(webhookEndpoints).values(endpoint);
        return true;
      });
    },
    async findEndpoint({ accountId, id }) {
      const row = await findOwned(accountId, id);
      return row ? toEndpoint(row) : null;
    },
    async listEndpoints(accountId) {
      return (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId)).orderBy(asc(webhookEndpoints.id))).map(toEndpoint);
    },
    async updateEndpoint({ accountId, id, changes, at }) {
      const [row] = await db
        .update(webhookEndpoints)
        .set({ ...changes, updatedAt: at })
        .where(owned(accountId, id))
        .returning();
      return row ? toEndpoint(row) : null;
    },
    async rotateSecret({ accountId, id, encryptedSecret, previousExpiresAt, at }) {
      const [row] = await db
        .update(webhookEndpoints)
        .set({
          previousEncryptedSecret: previousExpiresAt === null ? null : sql`${webhookEndpoints.encryptedSecret}`,
          previousSecretExpiresAt: previousExpiresAt,
          encryptedSecret,
          updatedAt: at,
        })
        // A graceful rotation while an earlier one's grace runs would cut that grace short (one previous secret is kept).
        .where(previousExpiresAt === null ? owned(accountId, id) : and(owned(accountId, id), outsideGrace(at)))
        .returning();
      return row ? toEndpoint(row) : null;
    },
    async deleteEndpoint({ accountId, id }) {
      return inTransaction(db, async (tx) => {
        const removed = await tx.delete(webhookEndpoints).where(owned(accountId, id)).returning({ id: webhookEndpoints.id });
        if (removed.length === 0) return false;
        await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
        await tx.delete(webhookAttempts).where(eq(webhookAttempts.endpointId, id));
        return true;
      });
    },
    async enqueue(event) {
      return enqueueWebhookEvents(db, [event]);
    },
    async claimDue(request) {
      const { now, limit, claimUntil } = request;
      const full = saturated(request);
      // The ids are one array parameter (`sql.param`: drizzle would bind each element of a bare
      // array as a parameter of its own), so the statement stays the same size however many
      // endpoints are left out (regression: past 65,535 ids PostgreSQL refused it, and no webhook
      // was delivered).
      const notIn = (column: SQL, ids: readonly string[]) => (ids.length === 0 ? sql`` : sql` and ${column} <> all(${sql.param(ids)}::text[])`);
      const rows = await inTransaction(db, async (tx) => {
        // Candidates are locked (SKIP LOCKED: another process's are passed over, never waited for);
        // the ones not picked are released when the transaction ends.
        const candidates = await tx.execute<{ endpoint_id: string; event_id: string; account_id: string }>(sql`
          select d.endpoint_id, d.event_id, d.account_id from webhook_deliveries d
          join webhook_endpoints e on e.id = d.endpoint_id
          where d.status = 'pending' and d.next_attempt_at <= ${now} and (d.claimed_until is null or d.claimed_until <= ${now})
            and e.enabled and d.payload is not null${notIn(sql`d.endpoint_id`, full.endpoints)}${notIn(sql`d.account_id`, full.accounts)}
          order by d.next_attempt_at
          limit ${limit * CANDIDATES_PER_SLOT}
          for update of d skip locked`);
        const picked = pickClaims(
          candidates.rows.map((row) => ({ endpointId: row.endpoint_id, eventId: row.event_id, accountId: row.account_id })),
          request,
        );
        if (picked.length === 0) return [];
        const keys = sql.join(
          picked.map((row) => sql`(${row.endpointId}, ${row.eventId})`),
          sql`, `,
        );
        const claimed = await tx.execute<ClaimedRow>(sql`
          with claimed as (
            update webhook_deliveries d set claimed_until = ${claimUntil}
            where (d.endpoint_id, d.event_id) in (${keys})
            returning d.*
          )
          select claimed.*, e.url, e.encrypted_secret, e.previous_encrypted_secret, e.previous_secret_expires_at
          from claimed join webhook_endpoints e on e.id = claimed.endpoint_id
          order by claimed.next_attempt_at`);
        return claimed.rows;
      });
      return rows.map(
        (row): ClaimedWebhookDelivery => ({
          endpointId: row.endpoint_id,
          eventId: row.event_id,
          accountId: row.account_id,
          type: row.type,
          payload: row.payload,
          status: row.status,
          attempts: Number(row.attempts),
          nextAttemptAt: numberOrNull(row.next_attempt_at),
          lastAttemptAt: numberOrNull(row.last_attempt_at),
          lastStatusCode: row.last_status_code,
          lastError: row.last_error,
          createdAt: Number(row.created_at),
          url: row.url,
          encryptedSecret: row.encrypted_secret,
          previousEncryptedSecret: row.previous_encrypted_secret,
          previousSecretExpiresAt: numberOrNull(row.previous_secret_expires_at),
        }),
      );
    },
    async recordAttempt({ attempt, status, nextAttemptAt }) {
      await inTransaction(db, async (tx) => {
        const moved = await tx
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
          .returning({ eventId: webhookDeliveries.eventId });
        // An endpoint deleted while the attempt ran took its deliveries and log with it: nothing to log.
        if (moved.length > 0) await tx.insert(webhookAttempts).values(attempt);
      });
    },
    async listDeliveries({ accountId, id, status, page }) {
      if (!(await findOwned(accountId, id))) return [];
      const query = db
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
        .$dynamic();
      return page.limit === undefined ? query : query.limit(page.limit);
    },
    async findDelivery({ accountId, id, eventId }) {
      const [row] = await db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.accountId, accountId)));
      return row ?? null;
    },
    async listAttempts({ endpointId, eventIds }) {
      if (eventIds.length === 0) return [];
      return db
        .select()
        .from(webhookAttempts)
        .where(and(eq(webhookAttempts.endpointId, endpointId), inArray(webhookAttempts.eventId, [...eventIds])))
        .orderBy(asc(webhookAttempts.id));
    },
    async redeliver({ accountId, id, eventId, now }) {
      return inTransaction(db, async (tx) => {
        const [endpoint] = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(owned(accountId, id));
        if (!endpoint) return 'not_found' as const;
        const key = and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.eventId, eventId));
        const [delivery] = await tx
          .select({ status: webhookDeliveries.status, hasPayload: sql<boolean>`${webhookDeliveries.payload} is not null` })
          .from(webhookDeliveries)
          .where(key)
          .for('update');
        if (!delivery) return 'not_found' as const;
        if (delivery.status === 'pending') return 'pending' as const;
        if (!delivery.hasPayload) return 'pruned' as const;
        await tx.update(webhookDeliveries).set({ status: 'pending', attempts: 0, nextAttemptAt: now, claimedUntil: null }).where(key);
        return 'queued' as const;
      });
    },
    async prunePayloads({ before }) {
      const pruned = await db
        .update(webhookDeliveries)
        .set({ payload: null })
        .where(and(lt(webhookDeliveries.createdAt, before), ne(webhookDeliveries.status, 'pending'), sql`${webhookDeliveries.payload} is not null`))
        .returning({ id: webhookDeliveries.eventId });
      return pruned.length;
    },
  };
}
