import { and, asc, eq, gt, isNotNull, isNull, lt, lte, notExists, or, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { apiKeys, oauthConnections, oauthRecords } from './schema.js';
import type { OAuthRepository } from '../store.js';

const ACCESS_TOKEN_MODEL = 'AccessToken';
const GRANT_MODEL = 'Grant';

export function createOAuthRepository(db: PorchDatabase): OAuthRepository {
  const unexpired = (now: number) => or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, now));
  // Read on every MCP request made with an OAuth token, so planned once.
  const accessToken = onFirstUse(() =>
    db
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
      .prepare(),
  );
  return {
    async upsert(record) {
      const { payload, grantId, uidHash, expiresAt } = record;
      db.insert(oauthRecords)
        .values({ ...record, consumedAt: null })
        .onConflictDoUpdate({ target: [oauthRecords.model, oauthRecords.idHash], set: { payload, grantId, uidHash, expiresAt } })
        .run();
    },
    async update({ model, idHash, payload, expiresAt }) {
      return (
        db
          .update(oauthRecords)
          .set({ payload, expiresAt })
          .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash)))
          .run().changes > 0
      );
    },
    async find({ model, idHash, now }) {
      return (
        db
          .select()
          .from(oauthRecords)
          .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash), unexpired(now)))
          .get() ?? null
      );
    },
    async findByUid({ model, uidHash, now }) {
      return (
        db
          .select()
          .from(oauthRecords)
          .where(and(eq(oauthRecords.model, model), eq(oauthRecords.uidHash, uidHash), unexpired(now)))
          .get() ?? null
      );
    },
    async consume({ model, idHash, at }) {
      // The UPDATE's WHERE is the check: of concurrent uses (several processes) only one gets the row.
      return (
        db
          .update(oauthRecords)
          .set({ consumedAt: at })
          .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash), isNull(oauthRecords.consumedAt)))
          .run().changes > 0
      );
    },
    async destroy({ model, idHash }) {
      db.delete(oauthRecords)
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.idHash, idHash)))
        .run();
    },
    async connect({ key, connection }) {
      // IMMEDIATE: serialised with revokeGrant's transaction, so the grant read here is still there at the commit.
      return db.transaction(
        (tx) => {
          const grant = tx
            .select({ one: sql`1` })
            .from(oauthRecords)
            .where(and(eq(oauthRecords.model, GRANT_MODEL), eq(oauthRecords.grantId, connection.grantId)))
            .get();
          if (grant === undefined) return false;
          tx.insert(apiKeys).values(key).run();
          tx.insert(oauthConnections).values(connection).run();
          return true;
        },
        { behavior: 'immediate' },
      );
    },
    async findAccessToken(request) {
      return accessToken().get(request) ?? null;
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
      const rows = db
        .select({ connection: oauthConnections, scopes: apiKeys.scopes })
        .from(oauthConnections)
        .innerJoin(apiKeys, eq(apiKeys.id, oauthConnections.keyId))
        .where(and(eq(oauthConnections.accountId, accountId), isNull(oauthConnections.revokedAt), notExists(grantExpired)))
        .orderBy(asc(oauthConnections.createdAt), asc(oauthConnections.keyId))
        .all();
      return rows.map(({ connection, scopes }) => ({ ...connection, scopes }));
    },
    async revokeConnection({ keyId, accountId, at }) {
      return db.transaction(
        (tx) => {
          const revoked = tx
            .update(oauthConnections)
            .set({ revokedAt: at })
            .where(and(eq(oauthConnections.keyId, keyId), eq(oauthConnections.accountId, accountId), isNull(oauthConnections.revokedAt)))
            .returning()
            .get();
          if (!revoked) return null;
          tx.update(apiKeys)
            .set({ revokedAt: at })
            .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
            .run();
          tx.delete(oauthRecords).where(eq(oauthRecords.grantId, revoked.grantId)).run();
          return revoked;
        },
        { behavior: 'immediate' },
      );
    },
    async revokeGrant({ grantId, at }) {
      db.transaction(
        (tx) => {
          const ended = tx
            .update(oauthConnections)
            .set({ revokedAt: at })
            .where(and(eq(oauthConnections.grantId, grantId), isNull(oauthConnections.revokedAt)))
            .returning({ keyId: oauthConnections.keyId })
            .get();
          if (ended) {
            tx.update(apiKeys)
              .set({ revokedAt: at })
              .where(and(eq(apiKeys.id, ended.keyId), isNull(apiKeys.revokedAt)))
              .run();
          }
          tx.delete(oauthRecords).where(eq(oauthRecords.grantId, grantId)).run();
        },
        { behavior: 'immediate' },
      );
    },
    async pruneExpired(before) {
      return db.transaction(
        (tx) => {
          // Connections whose grant expired end with it, as of its expiry.
          const ended = tx
            .select({ keyId: oauthConnections.keyId, expiresAt: oauthRecords.expiresAt })
            .from(oauthConnections)
            .innerJoin(oauthRecords, and(eq(oauthRecords.model, GRANT_MODEL), eq(oauthRecords.grantId, oauthConnections.grantId)))
            .where(and(isNull(oauthConnections.revokedAt), lt(oauthRecords.expiresAt, before)))
            .all();
          for (const { keyId, expiresAt } of ended) {
            const at = expiresAt ?? before;
            tx.update(oauthConnections)
              .set({ revokedAt: at })
              .where(and(eq(oauthConnections.keyId, keyId), isNull(oauthConnections.revokedAt)))
              .run();
            tx.update(apiKeys)
              .set({ revokedAt: at })
              .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
              .run();
          }
          return tx.delete(oauthRecords).where(lt(oauthRecords.expiresAt, before)).run().changes;
        },
        { behavior: 'immediate' },
      );
    },
  };
}
