import { and, asc, count, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { accounts, apiKeys, creditBalances, creditLedger, organisations, partnerKeys } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { AccountRepository, ApiKeyRepository, KeyReplacement, OrganisationRepository, PartnerKeyRepository } from '../store.js';

export function createOrganisationRepository(db: PostgresDatabase): OrganisationRepository {
  const byId = db
    .select()
    .from(organisations)
    .where(eq(organisations.id, sql.placeholder('id')))
    .prepare('organisation_by_id');
  return {
    async findById(id) {
      return (await byId.execute({ id }))[0] ?? null;
    },
    async update({ id, changes }) {
      if (Object.keys(changes).length === 0) return (await byId.execute({ id }))[0] ?? null;
      return (await db.update(organisations).set(changes).where(eq(organisations.id, id)).returning())[0] ?? null;
    },
  };
}

export function createAccountRepository(db: PostgresDatabase): AccountRepository {
  const byId = db
    .select()
    .from(accounts)
    .where(eq(accounts.id, sql.placeholder('id')))
    .prepare('account_by_id');
  return {
    async create({ account, organisation, initialTokens, grantEntryId }) {
      await inTransaction(db, async (tx) => {
        if (organisation) await tx.insert(organisations).values(organisation);
        await tx.insert(accounts).values(account);
        await tx.insert(creditBalances).values({ accountId: account.id, balanceTokens: initialTokens, reservedTokens: 0, updatedAt: account.createdAt });
        if (initialTokens > 0) {
          await tx.insert(creditLedger).values({
            id: grantEntryId,
            accountId: account.id,
            kind: 'grant',
            deltaTokens: initialTokens,
            balanceAfterTokens: initialTokens,
            reference: 'account created',
            createdAt: account.createdAt,
          });
        }
      });
    },
    async findById(id) {
      return (await byId.execute({ id }))[0] ?? null;
    },
    async findByEmail(email) {
      return (await db.select().from(accounts).where(eq(accounts.email, email)))[0] ?? null;
    },
    async list() {
      return db.select().from(accounts).orderBy(asc(accounts.id));
    },
    async listByOrganisation(organisationId) {
      return db.select().from(accounts).where(eq(accounts.organisationId, organisationId)).orderBy(asc(accounts.createdAt), asc(accounts.id));
    },
    async count() {
      return (await db.select({ n: count() }).from(accounts))[0]?.n ?? 0;
    },
    async setPlan({ id, plan, downgradedAt, revokeKeysAt }) {
      return inTransaction(db, async (tx) => {
        if (revokeKeysAt !== null) {
          await tx
            .update(apiKeys)
            .set({ revokedAt: revokeKeysAt })
            .where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt)));
        }
        return (await tx.update(accounts).set({ plan, downgradedAt }).where(eq(accounts.id, id)).returning())[0] ?? null;
      });
    },
  };
}

/**
 * The account holder's working keys at `now`, under the account row's lock: it queues concurrent
 * creations and rotations for one account (from any process), so two of them cannot both see
 * room for the last key. Connected apps' credentials do not count.
 */
async function lockedActiveCount(tx: PostgresTransaction, accountId: string, now: number): Promise<number> {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
  const [active] = await tx
    .select({ n: count() })
    .from(apiKeys)
    .where(
      and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, 'user'), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))),
    );
  return active?.n ?? 0;
}

export function createApiKeyRepository(db: PostgresDatabase): ApiKeyRepository {
  const byHash = db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.hash, sql.placeholder('hash')))
    .prepare('api_key_by_hash');
  // Read by every request with a key: the key and its account in one round trip.
  const usableByHash = db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(
      and(eq(apiKeys.hash, sql.placeholder('hash')), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now')))),
    )
    .prepare('api_key_usable_by_hash_with_account');
  const byId = db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare('api_key_by_id');
  return {
    async insertIfBelowLimit({ key, maxActive, now }) {
      return inTransaction(db, async (tx) => {
        if ((await lockedActiveCount(tx, key.accountId, now)) >= maxActive) return false;
        await tx.insert(apiKeys).values(key);
        return true;
      });
    },
    async findByHash(hash) {
      return (await byHash.execute({ hash }))[0] ?? null;
    },
    async findUsableByHash({ hash, now }) {
      return (await usableByHash.execute({ hash, now }))[0] ?? null;
    },
    async findById(id) {
      return (await byId.execute({ id }))[0] ?? null;
    },
    async listByAccount(accountId) {
      return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.id));
    },
    async revoke({ id, at }) {
      await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
      return (await byId.execute({ id }))[0] ?? null;
    },
    async revokeAllForAccount({ accountId, at }) {
      const revoked = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return revoked.length;
    },
    async replace({ oldId, replacement, at, graceUntil, maxWorking }) {
      return inTransaction(db, async (tx): Promise<KeyReplacement> => {
        // A graceful rotation adds a working key; a revoking one only swaps one for another.
        if (graceUntil !== undefined && replacement.kind === 'user' && (await lockedActiveCount(tx, replacement.accountId, at)) >= maxWorking) return 'full';
        const retired = await tx
          .update(apiKeys)
          .set(
            graceUntil === undefined
              ? { revokedAt: at, replacedBy: replacement.id }
              : { expiresAt: sql`least(coalesce(${apiKeys.expiresAt}, ${graceUntil}::bigint), ${graceUntil}::bigint)`, replacedBy: replacement.id },
          )
          .where(and(eq(apiKeys.id, oldId), isNull(apiKeys.revokedAt), isNull(apiKeys.replacedBy), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, at))))
          .returning({ id: apiKeys.id });
        if (retired.length === 0) return 'inactive';
        await tx.insert(apiKeys).values(replacement);
        return 'replaced';
      });
    },
  };
}

export function createPartnerKeyRepository(db: PostgresDatabase): PartnerKeyRepository {
  const byHash = db
    .select()
    .from(partnerKeys)
    .where(eq(partnerKeys.hash, sql.placeholder('hash')))
    .prepare('partner_key_by_hash');
  const usableByHash = db
    .select()
    .from(partnerKeys)
    .where(and(eq(partnerKeys.hash, sql.placeholder('hash')), isNull(partnerKeys.revokedAt)))
    .prepare('partner_key_usable_by_hash');
  const byId = db
    .select()
    .from(partnerKeys)
    .where(eq(partnerKeys.id, sql.placeholder('id')))
    .prepare('partner_key_by_id');
  return {
    async insert(key) {
      await db.insert(partnerKeys).values(key);
    },
    async findByHash(hash) {
      return (await byHash.execute({ hash }))[0] ?? null;
    },
    async findUsableByHash(hash) {
      return (await usableByHash.execute({ hash }))[0] ?? null;
    },
    async findById(id) {
      return (await byId.execute({ id }))[0] ?? null;
    },
    async listByOrganisation(organisationId) {
      return db.select().from(partnerKeys).where(eq(partnerKeys.organisationId, organisationId)).orderBy(asc(partnerKeys.id));
    },
    async revoke({ id, at }) {
      await db
        .update(partnerKeys)
        .set({ revokedAt: at })
        .where(and(eq(partnerKeys.id, id), isNull(partnerKeys.revokedAt)));
      return (await byId.execute({ id }))[0] ?? null;
    },
  };
}
