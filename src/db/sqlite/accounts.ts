import { and, asc, count, eq, getTableColumns, gt, isNull, or, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { rowStatement } from './row-statement.js';
import { accounts, apiKeys, creditBalances, creditLedger, organisations, partnerKeys } from './schema.js';
import type {
  AccountRecord,
  AccountRepository,
  ApiKeyRepository,
  KeyReplacement,
  OrganisationRepository,
  PartnerKeyRecord,
  PartnerKeyRepository,
} from '../store.js';

export function createOrganisationRepository(db: PorchDatabase): OrganisationRepository {
  const byId = onFirstUse(() =>
    db
      .select()
      .from(organisations)
      .where(eq(organisations.id, sql.placeholder('id')))
      .prepare(),
  );
  return {
    async findById(id) {
      return byId().get({ id }) ?? null;
    },
    async update({ id, changes }) {
      return db.update(organisations).set(changes).where(eq(organisations.id, id)).returning().get() ?? null;
    },
  };
}

export function createAccountRepository(db: PorchDatabase): AccountRepository {
  // Read by every authenticated request.
  const byId = onFirstUse(() =>
    rowStatement(db, getTableColumns(accounts), (fields) =>
      db
        .select(fields)
        .from(accounts)
        .where(eq(accounts.id, sql.placeholder('id'))),
    ),
  );
  return {
    async create({ account, organisation, initialTokens, grantEntryId }) {
      db.transaction(
        (tx) => {
          if (organisation) tx.insert(organisations).values(organisation).run();
          tx.insert(accounts).values(account).run();
          tx.insert(creditBalances).values({ accountId: account.id, balanceTokens: initialTokens, reservedTokens: 0, updatedAt: account.createdAt }).run();
          if (initialTokens > 0) {
            tx.insert(creditLedger)
              .values({
                id: grantEntryId,
                accountId: account.id,
                kind: 'grant',
                deltaTokens: initialTokens,
                balanceAfterTokens: initialTokens,
                reference: 'account created',
                createdAt: account.createdAt,
              })
              .run();
          }
        },
        { behavior: 'immediate' },
      );
    },
    async findById(id) {
      return (byId().get({ id }) as AccountRecord | undefined) ?? null;
    },
    async findByEmail(email) {
      return (db.select().from(accounts).where(eq(accounts.email, email)).get() as AccountRecord | undefined) ?? null;
    },
    async list() {
      return db.select().from(accounts).orderBy(asc(accounts.id)).all() as AccountRecord[];
    },
    async listByOrganisation(organisationId) {
      return db
        .select()
        .from(accounts)
        .where(eq(accounts.organisationId, organisationId))
        .orderBy(asc(accounts.createdAt), asc(accounts.id))
        .all() as AccountRecord[];
    },
    async count() {
      return db.select({ n: count() }).from(accounts).get()?.n ?? 0;
    },
    async setPlan({ id, plan, downgradedAt, revokeKeysAt }) {
      return db.transaction(
        (tx) => {
          if (revokeKeysAt !== null) {
            tx.update(apiKeys)
              .set({ revokedAt: revokeKeysAt })
              .where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt)))
              .run();
          }
          return (tx.update(accounts).set({ plan, downgradedAt }).where(eq(accounts.id, id)).returning().get() as AccountRecord | undefined) ?? null;
        },
        { behavior: 'immediate' },
      );
    },
  };
}

export function createApiKeyRepository(db: PorchDatabase): ApiKeyRepository {
  const byHash = onFirstUse(() =>
    db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.hash, sql.placeholder('hash')))
      .prepare(),
  );
  // Read by every request with a key: the key and its account in one read.
  const usableByHash = onFirstUse(() =>
    rowStatement(db, { key: getTableColumns(apiKeys), account: getTableColumns(accounts) }, (fields) =>
      db
        .select(fields)
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(
          and(
            eq(apiKeys.hash, sql.placeholder('hash')),
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now'))),
          ),
        ),
    ),
  );
  const activeCount = (accountId: string, now: number) =>
    db
      .select({ n: count() })
      .from(apiKeys)
      // Only the account holder's own keys count towards the limit; connected apps' credentials do not.
      .where(
        and(
          eq(apiKeys.accountId, accountId),
          eq(apiKeys.kind, 'user'),
          isNull(apiKeys.revokedAt),
          sql`(${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > ${now})`,
        ),
      )
      .get()?.n ?? 0;
  return {
    async insertIfBelowLimit({ key, maxActive, now }) {
      return db.transaction(
        (tx) => {
          if (activeCount(key.accountId, now) >= maxActive) return false;
          tx.insert(apiKeys).values(key).run();
          return true;
        },
        { behavior: 'immediate' },
      );
    },
    async findByHash(hash) {
      return byHash().get({ hash }) ?? null;
    },
    async findUsableByHash({ hash, now }) {
      return usableByHash().get({ hash, now }) ?? null;
    },
    async findById(id) {
      return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get() ?? null;
    },
    async listByAccount(accountId) {
      return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.id)).all();
    },
    async revoke({ id, at }) {
      db.update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .run();
      return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get() ?? null;
    },
    async revokeAllForAccount({ accountId, at }) {
      return db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
        .run().changes;
    },
    async replace({ oldId, replacement, at, graceUntil, maxWorking }) {
      return db.transaction(
        (tx): KeyReplacement => {
          // A graceful rotation adds a working key; a revoking one only swaps one for another.
          if (graceUntil !== undefined && replacement.kind === 'user' && activeCount(replacement.accountId, at) >= maxWorking) return 'full';
          const retired = tx
            .update(apiKeys)
            .set(
              graceUntil === undefined
                ? { revokedAt: at, replacedBy: replacement.id }
                : { expiresAt: sql`min(coalesce(${apiKeys.expiresAt}, ${graceUntil}), ${graceUntil})`, replacedBy: replacement.id },
            )
            .where(and(eq(apiKeys.id, oldId), isNull(apiKeys.revokedAt), isNull(apiKeys.replacedBy), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, at))))
            .run().changes;
          if (retired === 0) return 'inactive';
          tx.insert(apiKeys).values(replacement).run();
          return 'replaced';
        },
        { behavior: 'immediate' },
      );
    },
  };
}

export function createPartnerKeyRepository(db: PorchDatabase): PartnerKeyRepository {
  const byHash = onFirstUse(() =>
    db
      .select()
      .from(partnerKeys)
      .where(eq(partnerKeys.hash, sql.placeholder('hash')))
      .prepare(),
  );
  const usableByHash = onFirstUse(() =>
    db
      .select()
      .from(partnerKeys)
      .where(and(eq(partnerKeys.hash, sql.placeholder('hash')), isNull(partnerKeys.revokedAt)))
      .prepare(),
  );
  return {
    async insert(key: PartnerKeyRecord) {
      db.insert(partnerKeys).values(key).run();
    },
    async findByHash(hash) {
      return byHash().get({ hash }) ?? null;
    },
    async findUsableByHash(hash) {
      return usableByHash().get({ hash }) ?? null;
    },
    async findById(id) {
      return db.select().from(partnerKeys).where(eq(partnerKeys.id, id)).get() ?? null;
    },
    async listByOrganisation(organisationId) {
      return db.select().from(partnerKeys).where(eq(partnerKeys.organisationId, organisationId)).orderBy(asc(partnerKeys.id)).all();
    },
    async revoke({ id, at }) {
      db.update(partnerKeys)
        .set({ revokedAt: at })
        .where(and(eq(partnerKeys.id, id), isNull(partnerKeys.revokedAt)))
        .run();
      return db.select().from(partnerKeys).where(eq(partnerKeys.id, id)).get() ?? null;
    },
  };
}
