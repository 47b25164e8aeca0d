import { and, desc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { accountPasswords, accountTokens, consoleSessions } from './schema.js';
import type { SignInRepository } from '../store.js';

export function createSignInRepository(db: PorchDatabase): SignInRepository {
  // Read on every console request, so planned once.
  const usableSession = onFirstUse(() =>
    db
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
      .prepare(),
  );
  return {
    async passwordHash(accountId) {
      return db.select({ hash: accountPasswords.passwordHash }).from(accountPasswords).where(eq(accountPasswords.accountId, accountId)).get()?.hash ?? null;
    },
    async issueToken(token) {
      db.transaction(
        (tx) => {
          tx.update(accountTokens)
            .set({ usedAt: token.createdAt })
            .where(and(eq(accountTokens.accountId, token.accountId), isNull(accountTokens.usedAt)))
            .run();
          tx.insert(accountTokens).values(token).run();
        },
        { behavior: 'immediate' },
      );
    },
    async redeemToken({ tokenHash, passwordHash, now }) {
      return db.transaction(
        (tx) => {
          const token = tx
            .update(accountTokens)
            .set({ usedAt: now })
            .where(and(eq(accountTokens.tokenHash, tokenHash), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
            .returning()
            .get();
          if (!token) return null;
          tx.insert(accountPasswords)
            .values({ accountId: token.accountId, passwordHash, updatedAt: now })
            .onConflictDoUpdate({ target: accountPasswords.accountId, set: { passwordHash, updatedAt: now } })
            .run();
          tx.update(consoleSessions)
            .set({ revokedAt: now })
            .where(and(eq(consoleSessions.accountId, token.accountId), isNull(consoleSessions.revokedAt)))
            .run();
          return { accountId: token.accountId, purpose: token.purpose };
        },
        { behavior: 'immediate' },
      );
    },
    async isTokenUsable({ tokenHash, now }) {
      const token = db
        .select({ id: accountTokens.id })
        .from(accountTokens)
        .where(and(eq(accountTokens.tokenHash, tokenHash), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
        .get();
      return token !== undefined;
    },
    async createSession(session) {
      db.insert(consoleSessions).values(session).run();
    },
    async findSession(id) {
      return db.select().from(consoleSessions).where(eq(consoleSessions.id, id)).get() ?? null;
    },
    async findUsableSession(request) {
      return usableSession().get(request) ?? null;
    },
    async touchSession({ id, at }) {
      db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.id, id)).run();
    },
    async revokeSession({ id, accountId, at }) {
      return (
        db
          .update(consoleSessions)
          .set({ revokedAt: at })
          .where(and(eq(consoleSessions.id, id), eq(consoleSessions.accountId, accountId), isNull(consoleSessions.revokedAt)))
          .run().changes > 0
      );
    },
    async revokeAllSessions({ accountId, at, exceptId }) {
      return db
        .update(consoleSessions)
        .set({ revokedAt: at })
        .where(
          and(
            eq(consoleSessions.accountId, accountId),
            isNull(consoleSessions.revokedAt),
            exceptId === undefined ? undefined : ne(consoleSessions.id, exceptId),
          ),
        )
        .run().changes;
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
        .orderBy(desc(consoleSessions.createdAt), desc(consoleSessions.id))
        .all();
    },
    async pruneEnded(before) {
      return db.transaction(
        (tx) =>
          tx
            .delete(consoleSessions)
            .where(or(lt(consoleSessions.expiresAt, before), lt(consoleSessions.revokedAt, before)))
            .run().changes +
          tx
            .delete(accountTokens)
            .where(or(lt(accountTokens.expiresAt, before), lt(accountTokens.usedAt, before)))
            .run().changes,
        { behavior: 'immediate' },
      );
    },
  };
}
