import { sql } from 'drizzle-orm';
import { isInMemory, openDatabase, schemaStatus, type OpenedDatabase } from './open-database.js';
import type { PendingMigrations } from '../migration-journal.js';
import type { Store } from '../store.js';
import { createAccountRepository, createApiKeyRepository, createOrganisationRepository, createPartnerKeyRepository } from './accounts.js';
import { createCatalogRepository, createContextCardRepository } from './content.js';
import { createCreditRepository, createUsageRepository } from './credits.js';
import { createByokKeyRepository, createIdempotencyRepository } from './executions.js';
import { createExecutionSlotRepository, createInstanceRepository } from './instances.js';
import { createRateLimitRepository } from './rate-limits.js';
import { createRunRepository } from './runs.js';
import { createSanitiserRuleRepository } from './sanitiser-rules.js';
import { createOAuthRepository } from './oauth.js';
import { createSignInRepository } from './sign-in.js';
import { createWebhookRepository } from './webhooks.js';

export { databaseDirectory } from './open-database.js';

export interface SqliteStore extends Store {
  /** The underlying connection, for tests and benchmarks that inspect the file. */
  readonly database: OpenedDatabase;
}

/** Whether `store` is the SQLite engine, for test helpers that inspect the file underneath. */
export function isSqliteStore(store: Store): store is SqliteStore {
  return store.describe().engine === 'sqlite' && 'database' in store;
}

/** The SQLite implementation of every storage port, over one better-sqlite3 connection. */
export function createSqliteStore(databaseUrl: string, pendingMigrations: PendingMigrations = 'apply'): SqliteStore {
  const database = openDatabase(databaseUrl, pendingMigrations);
  const { db, sqlite, location } = database;
  const description = { engine: 'sqlite', location, ephemeral: isInMemory(location) } as const;
  return {
    database,
    organisations: createOrganisationRepository(db),
    accounts: createAccountRepository(db),
    apiKeys: createApiKeyRepository(db),
    partnerKeys: createPartnerKeyRepository(db),
    rateLimits: createRateLimitRepository(db),
    credits: createCreditRepository(db),
    usage: createUsageRepository(db),
    contextCards: createContextCardRepository(db),
    catalog: createCatalogRepository(db),
    byokKeys: createByokKeyRepository(db),
    idempotency: createIdempotencyRepository(db),
    runs: createRunRepository(db),
    webhooks: createWebhookRepository(db),
    sanitiserRules: createSanitiserRuleRepository(db),
    instances: createInstanceRepository(db),
    executionSlots: createExecutionSlotRepository(db),
    signIn: createSignInRepository(db),
    oauth: createOAuthRepository(db),
    describe: () => description,
    async ping() {
      try {
        return db.get<{ ok: number }>(sql`select 1 as ok`)?.ok === 1;
      } catch {
        return false;
      }
    },
    async schemaStatus() {
      try {
        return schemaStatus(sqlite);
      } catch {
        return 'unavailable';
      }
    },
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
}
