import { guarded } from '../guarded-repository.js';
import { translateError } from './connection-errors.js';
import { openPostgres, schemaStatus, type OpenedPostgres, type PostgresOptions } from './open-database.js';
import type { Store } from '../store.js';
import { createAccountRepository, createApiKeyRepository, createOrganisationRepository, createPartnerKeyRepository } from './accounts.js';
import { createCatalogRepository, createContextCardRepository } from './content.js';
import { createCreditRepository, createUsageRepository } from './credits.js';
import { createByokKeyRepository, createIdempotencyRepository } from './executions.js';
import { createExecutionSlotRepository, createInstanceRepository } from './instances.js';
import { createRateLimitRepository } from './rate-limits.js';
import { createRunRepository } from './runs.js';
import { createWebhookRepository } from './webhooks.js';
import { createSanitiserRuleRepository } from './sanitiser-rules.js';
import { createOAuthRepository } from './oauth.js';
import { createSignInRepository } from './sign-in.js';

/** How long closing waits for the connections still out (see close). */
const CLOSE_LIMIT_MS = 5_000;

export { isPostgresUrl, postgresLocation } from './location.js';
export type { PostgresOptions } from './open-database.js';

export interface PostgresStore extends Store {
  /** The pool underneath, for tests and tools that inspect the database. */
  readonly database: OpenedPostgres;
}

/** Whether `store` is the PostgreSQL engine, for test helpers that inspect the database underneath. */
export function isPostgresStore(store: Store): store is PostgresStore {
  return store.describe().engine === 'postgres' && 'database' in store;
}

/** Connection failures become StoreUnavailableError (connection-errors.ts). */
const guardedRepository = <Repository extends object>(repository: Repository): Repository => guarded(repository, translateError);

/** The PostgreSQL implementation of every storage port, over one connection pool per process. */
export async function createPostgresStore(databaseUrl: string, options: PostgresOptions = {}): Promise<PostgresStore> {
  const database = await openPostgres(databaseUrl, options);
  const { db, pool, location } = database;
  const description = { engine: 'postgres', location, ephemeral: false } as const;
  let closed = false;
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
      if (closed) return false;
      try {
        return (await pool.query<{ ok: number }>('select 1 as ok')).rows[0]?.ok === 1;
      } catch {
        return false;
      }
    },
    async schemaStatus() {
      if (closed) return 'unavailable';
      try {
        return await schemaStatus(db);
      } catch {
        return 'unavailable';
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // The pool ends once every connection is back; one cut mid-statement by a database restart
      // may never come back, and a shutdown must not wait for it for good (regression: a stop
      // never finished). Its idle connections are closed at once either way.
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([pool.end(), new Promise<void>((resolve) => (bound = setTimeout(resolve, CLOSE_LIMIT_MS)))]);
      clearTimeout(bound);
    },
  };
}
