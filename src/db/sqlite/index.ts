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
import { guarded } from '../guarded-repository.js';
import { createLockWaits } from './lock-waits.js';
import { sqliteErrorTranslator } from './unavailable-errors.js';

export { databaseDirectory } from './open-database.js';

/**
 * How long after the disk or the file refused a write the store reports itself unreachable to
 * readiness: a full disk lasts until an operator acts, and a load balancer should stop sending
 * traffic meanwhile, although `select 1` still answers. Each refused write extends it.
 */
const LASTING_OUTAGE_MS = 10_000;

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
  // Opening waited for locks inside SQLite (migrations run before anything is served); from
  // here a lock is waited out on a timer, so the process keeps serving meanwhile (lock-waits.ts).
  sqlite.pragma('busy_timeout = 0');
  const description = { engine: 'sqlite', location, ephemeral: isInMemory(location) } as const;
  let lastingOutageAt = Number.NEGATIVE_INFINITY;
  const translate = sqliteErrorTranslator(() => {
    lastingOutageAt = Date.now();
  });
  const waitingOutLocks = createLockWaits(sqlite);
  const guardedRepository = <Repository extends object>(repository: Repository): Repository => guarded(waitingOutLocks(repository), translate);
  return {
    database,
    organisations: guardedRepository(createOrganisationRepository(db)),
    accounts: guardedRepository(createAccountRepository(db)),
    apiKeys: guardedRepository(createApiKeyRepository(db)),
    partnerKeys: guardedRepository(createPartnerKeyRepository(db)),
    rateLimits: guardedRepository(createRateLimitRepository(db)),
    credits: guardedRepository(createCreditRepository(db)),
    usage: guardedRepository(createUsageRepository(db)),
    contextCards: guardedRepository(createContextCardRepository(db)),
    catalog: guardedRepository(createCatalogRepository(db)),
    byokKeys: guardedRepository(createByokKeyRepository(db)),
    idempotency: guardedRepository(createIdempotencyRepository(db)),
    runs: guardedRepository(createRunRepository(db)),
    webhooks: guardedRepository(createWebhookRepository(db)),
    sanitiserRules: guardedRepository(createSanitiserRuleRepository(db)),
    instances: guardedRepository(createInstanceRepository(db)),
    executionSlots: guardedRepository(createExecutionSlotRepository(db)),
    signIn: guardedRepository(createSignInRepository(db)),
    oauth: guardedRepository(createOAuthRepository(db)),
    describe: () => description,
    async ping() {
      if (Date.now() - lastingOutageAt < LASTING_OUTAGE_MS) return false;
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
