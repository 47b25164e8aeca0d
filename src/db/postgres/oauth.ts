import { and, asc, eq, gt, isNotNull, isNull, lt, lte, notExists, or, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { apiKeys, oauthConnections, oauthRecords } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { OAuthRepository } from '../store.js';

const ACCESS_TOKEN_MODEL = 'AccessToken';
const GRANT_MODEL = 'Grant';

/**
 * Serialises connect and revokeGrant for one grant with an advisory lock held to the end of the
 * transaction, taken before any row lock: a row lock on the grant here would be taken in the
 * opposite order to pruneExpired and revokeConnection, which lock the connection first and then
 * delete the grant's rows (the review found the deadlock). Statements after it see what the other
 * committed (READ COMMITTED).
 */
async function lockGrant(tx: PostgresTransaction, grantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`oauth-grant:${grantId}`}, 0))`);
}

/** Whether the grant's object still exists (not revoked). */
async function grantExists(tx: PostgresTransaction, grantId: string): Promise<boolean> {
  const grant = await tx.execute(sql`select 1 from oauth_records where model = ${GRANT_MODEL} and grant_id = ${grantId}`);
  return grant.rows.length > 0;
}

export function createOAuthRepository(db: PostgresDatabase): OAuthRepository {
  const unexpired = (now: number) => or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, now));
  // Read on every MCP request made with an OAuth token, so prepared once per connection.
  const accessToken = db
    .select({ record: oauthRecords, key: apiKeys })
    .from(oauthRecords)
    .innerJoin(oauthConnections, eq(oauthConnections.grantId, oauthRecords.grantId))
    .innerJoin(apiKeys, eq(apiKeys.id, oauthConnections.keyId))
    .where(
      and(
        eq(oauthRecords.model, ACCESS_TOKEN_MODEL),
        eq(oauthRecords.idHash, sql.placeholder('idHash')),
        gt(oauthRecords.expiresAt, sql.placeholder('now')),
        isNull(oauthConnections.revokedAt),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now'))),
      ),
    )
    .prepare('oauth_access_token_by_hash');
  return {
    async upsert(record) {
      const { payload, grantId, uidHash, expiresAt } = record;
      await db
        .insert(oauthRecords)
        .values({ ...record, consumedAt: null })
        .onConflictDoUpdate({ target: [oauthRecords.model, oauthRecords.idHash], set: { payload, grantId, uidHash, expiresAt } });
    },
    async update({ model, idHash, payload, expiresAt }) {
      const updated = await db
        .update(oauthRecords)
        .set({ payload, expiresAt })
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash)))
        .returning({ idHash: oauthRecords.idHash });
      return updated.length > 0;
    },
    async find({ model, idHash, now }) {
      const rows = await db
        .select()
        .from(oauthRecords)
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash), unexpired(now)));
      return rows[0] ?? null;
    },
    async findByUid({ model, uidHash, now }) {
      const rows = await db
        .select()
        .from(oauthRecords)
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.uidHash, uidHash), unexpired(now)))
        .limit(1);
      return rows[0] ?? null;
    },
    async consume({ model, idHash, at }) {
      // The UPDATE's WHERE is the check: of concurrent uses only one gets the row.
      const consumed = await db
        .update(oauthRecords)
        .set({ consumedAt: at })
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash), isNull(oauthRecords.consumedAt)))
        .returning({ idHash: oauthRecords.idHash });
      return consumed.length > 0;
    },
    async destroy({ model, idHash }) {
      await db.delete(oauthRecords).where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash)));
    },
    async connect({ key, connection }) {
      return inTransaction(db, async (tx) => {
        await lockGrant(tx, connection.grantId);
        if (!(await grantExists(tx, connection.grantId))) return false;
        await tx.insert(apiKeys).values(key);
        await tx.insert(oauthConnections).values(connection);
        return true;
      });
    },
    async findAccessToken(request) {
      return (await accessToken.execute(request))[0] ?? null;
    },
    async listConnections({ accountId, now }) {
      // A connection whose grant expired has no token that works: it is no longer connected.
      const grantExpired = db
        .select({ one: sql`1` })
        .from(oauthRecords)
        .where(
          and(
            eq(oauthRecords.model, GRANT_MODEL),
            eq(oauthRecords.grantId, oauthConnections.grantId),
            isNotNull(oauthRecords.expiresAt),
            lte(oauthRecords.expiresAt, now),
          ),
        );
      const rows = await db
        .select({ connection: oauthConnections, scopes: apiKeys.scopes })
        .from(oauthConnections)
        .innerJoin(apiKeys, eq(apiKeys.id, oauthConnections.keyId))
        .where(and(eq(oauthConnections.accountId, accountId), isNull(oauthConnections.revokedAt), notExists(grantExpired)))
        .orderBy(asc(oauthConnections.createdAt), asc(oauthConnections.keyId));
      return rows.map(({ connection, scopes }) => ({ ...connection, scopes }));
    },
    async revokeConnection({ keyId, accountId, at }) {
      return inTransaction(db, async (tx) => {
        // The UPDATE's WHERE is the check: of two concurrent revocations only one gets the row.
        const [revoked] = await tx
          .update(oauthConnections)
          .set({ revokedAt: at })
          .where(and(eq(oauthConnections.keyId, keyId), eq(oauthConnections.accountId, accountId), isNull(oauthConnections.revokedAt)))
          .returning();
        if (!revoked) return null;
        await tx
          .update(apiKeys)
          .set({ revokedAt: at })
          .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
        await tx.delete(oauthRecords).where(eq(oauthRecords.grantId, revoked.grantId));
        return revoked;
      });
    },
    async revokeGrant({ grantId, at }) {
      await inTransaction(db, async (tx) => {
        // First, so a connection made concurrently is either seen below or refused (see connect).
        await lockGrant(tx, grantId);
        const [ended] = await tx
          .update(oauthConnections)
          .set({ revokedAt: at })
          .where(and(eq(oauthConnections.grantId, grantId), isNull(oauthConnections.revokedAt)))
          .returning({ keyId: oauthConnections.keyId });
        if (ended) {
          await tx
            .update(apiKeys)
            .set({ revokedAt: at })
            .where(and(eq(apiKeys.id, ended.keyId), isNull(apiKeys.revokedAt)));
        }
        await tx.delete(oauthRecords).where(eq(oauthRecords.grantId, grantId));
      });
    },
    async pruneExpired(before) {
      return inTransaction(db, async (tx) => {
        // Connections whose grant expired end with it, as of its expiry.
        const ended = await tx
          .select({ keyId: oauthConnections.keyId, expiresAt: oauthRecords.expiresAt })
          .from(oauthConnections)
          .innerJoin(oauthRecords, and(eq(oauthRecords.model, GRANT_MODEL), eq(oauthRecords.grantId, oauthConnections.grantId)))
          .where(and(isNull(oauthConnections.revokedAt), lt(oauthRecords.expiresAt, before)));
        for (const { keyId, expiresAt } of ended) {
          const at = expiresAt ?? before;
          await tx
            .update(oauthConnections)
            .set({ revokedAt: at })
            .where(and(eq(oauthConnections.keyId, keyId), isNull(oauthConnections.revokedAt)));
          await tx
            .update(apiKeys)
            .set({ revokedAt: at })
            .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
        }
        const removed = await tx.delete(oauthRecords).where(lt(oauthRecords.expiresAt, before)).returning({ model: oauthRecords.model });
        return removed.length;
      });
    },
  };
}
