import { and, desc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { accountPasswords, accountTokens, consoleSessions } from './schema.js';
import { inTransaction } from './transaction.js';
import type { SignInRepository } from '../store.js';

export function createSignInRepository(db: PostgresDatabase): SignInRepository {
  // Read on every console request, so prepared once per connection.
  const usableSession = db
    .select()
    .from(consoleSessions)
    .where(
      and(
        eq(consoleSessions.tokenHash, sql.placeholder('tokenHash')),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, sql.placeholder('now')),
        gt(consoleSessions.lastSeenAt, sql.placeholder('idleSince')),
      ),
    )
    .prepare('console_session_by_token');
  return {
    async passwordHash(accountId) {
      const rows = await db.select({ hash: accountPasswords.passwordHash }).from(accountPasswords).where(eq(accountPasswords.accountId, accountId));
      return rows[0]?.hash ?? null;
    },
    async issueToken(token) {
      await inTransaction(db, async (tx) => {
        await tx
          .update(accountTokens)
          .set({ usedAt: token.createdAt })
          .where(and(eq(accountTokens.accountId, token.accountId), isNull(accountTokens.usedAt)));
        await tx.insert(accountTokens).values(token);
      });
    },
    async redeemToken({ tokenHash, passwordHash, now }) {
      return inTransaction(db, async (tx) => {
        // The UPDATE's WHERE is the check: of two concurrent redemptions only one gets the row.
        const [token] = await tx
          .update(accountTokens)
          .set({ usedAt: now })
          .where(and(eq(accountTokens.tokenHash, tokenHash), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
          .returning();
        if (!token) return null;
        await tx
          .insert(accountPasswords)
          .values({ accountId: token.accountId, passwordHash, updatedAt: now })
          .onConflictDoUpdate({ target: accountPasswords.accountId, set: { passwordHash, updatedAt: now } });
        await tx
          .update(consoleSessions)
          .set({ revokedAt: now })
          .where(and(eq(consoleSessions.accountId, token.accountId), isNull(consoleSessions.revokedAt)));
        return { accountId: token.accountId, purpose: token.purpose };
      });
    },
    async isTokenUsable({ tokenHash, now }) {
      const [token] = await db
        .select({ id: accountTokens.id })
        .from(accountTokens)
        .where(and(eq(accountTokens.tokenHash, tokenHash), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)));
      return token !== undefined;
    },
    async createSession(session) {
      await db.insert(consoleSessions).values(session);
    },
    async findSession(id) {
      return (await db.select().from(consoleSessions).where(eq(consoleSessions.id, id)))[0] ?? null;
    },
    async findUsableSession(request) {
      return (await usableSession.execute(request))[0] ?? null;
    },
    async touchSession({ id, at }) {
      await db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.id, id));
    },
    async revokeSession({ id, accountId, at }) {
      const revoked = await db
        .update(consoleSessions)
        .set({ revokedAt: at })
        .where(and(eq(consoleSessions.id, id), eq(consoleSessions.accountId, accountId), isNull(consoleSessions.revokedAt)))
        .returning({ id: consoleSessions.id });
      return revoked.length > 0;
    },
    async revokeAllSessions({ accountId, at, exceptId }) {
      const revoked = await db
        .update(consoleSessions)
        .set({ revokedAt: at })
        .where(
          and(
            eq(consoleSessions.accountId, accountId),
            isNull(consoleSessions.revokedAt),
            exceptId === undefined ? undefined : ne(consoleSessions.id, exceptId),
          ),
        )
        .returning({ id: consoleSessions.id });
      return revoked.length;
    },
    async listSessions({ accountId, now, idleSince }) {
      return db
        .select()
        .from(consoleSessions)
        .where(
          and(
            eq(consoleSessions.accountId, accountId),
            isNull(consoleSessions.revokedAt),
            gt(consoleSessions.expiresAt, now),
            gt(consoleSessions.lastSeenAt, idleSince),
          ),
        )
        .orderBy(desc(consoleSessions.createdAt), desc(consoleSessions.id));
    },
    async pruneEnded(before) {
      return inTransaction(db, async (tx) => {
        const sessions = await tx
          .delete(consoleSessions)
          .where(or(lt(consoleSessions.expiresAt, before), lt(consoleSessions.revokedAt, before)))
          .returning({ id: consoleSessions.id });
        const tokens = await tx
          .delete(accountTokens)
          .where(or(lt(accountTokens.expiresAt, before), lt(accountTokens.usedAt, before)))
          .returning({ id: accountTokens.id });
        return sessions.length + tokens.length;
      });
    },
  };
}
