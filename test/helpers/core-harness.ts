/**
 * The core harness: the domain services over a fresh in-memory SQLite store, with a clock the
 * test moves by hand. No Express and no socket: for tests of core, which knows nothing of HTTP.
 * Tests of a door use `createHarness` (harness.ts) instead.
 */
import { ALL_SCOPES } from '../../src/core/access/scopes.js';
import { loadConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import type { Core } from '../../src/core/core.js';
import type { Plan } from '../../src/core/domain/plans.js';
import type { Store } from '../../src/db/store.js';
import { createSilentLogger } from '../../src/logger.js';
import { createApplication } from '../../src/main.js';

export interface CoreHarnessOptions {
  env?: Record<string, string>;
}

/** Accounts and keys made through the real services, as a test's starting point. */
export interface AccountHelpers {
  /** An account (Expert with 1,000 credits unless told otherwise). */
  createAccount(options?: { plan?: Plan; credits?: number; email?: string }): Promise<{ accountId: string; organisationId: string }>;
  createKey(accountId: string, options?: { scopes?: string[]; rpm?: number; rpd?: number }): Promise<{ id: string; key: string }>;
  expertWithKey(options?: {
    credits?: number;
    scopes?: string[];
    rpm?: number;
    rpd?: number;
  }): Promise<{ accountId: string; organisationId: string; keyId: string; key: string }>;
}

export interface CoreHarness extends AccountHelpers {
  core: Core;
  store: Store;
  clock: ManualClock;
  config: Config;
  /** Closes the database. */
  close(): Promise<void>;
}

let emailCounter = 0;

export function accountHelpers(core: Core): AccountHelpers {
  const helpers: AccountHelpers = {
    async createAccount({ plan = 'expert', credits = 1000, email } = {}) {
      emailCounter += 1;
      const account = await core.accounts.createAccount({ email: email ?? `user${emailCounter}-${Date.now()}@example.com`, plan, credits });
      return { accountId: account.id, organisationId: account.organisation_id };
    },
    async createKey(accountId, { scopes, rpm, rpd } = {}) {
      const created = await core.accounts.createKey({
        accountId,
        ...(scopes ? { scopes } : {}),
        ...(rpm ? { requestsPerMinute: rpm } : {}),
        ...(rpd ? { requestsPerDay: rpd } : {}),
      });
      return { id: created.key.id, key: created.plaintext };
    },
    /** An Expert account with a key holding `scopes`, by default every scope (so a test reaches any operation). */
    async expertWithKey({ credits = 1000, scopes = [...ALL_SCOPES], rpm, rpd } = {}) {
      const account = await helpers.createAccount({ credits });
      const key = await helpers.createKey(account.accountId, { scopes, ...(rpm ? { rpm } : {}), ...(rpd ? { rpd } : {}) });
      return { ...account, keyId: key.id, key: key.key };
    },
  };
  return helpers;
}

/**
 * Core over `:memory:`, built by the composition root (nothing listens, and the MCP door is never
 * loaded); close it in afterEach/afterAll.
 */
export async function createCoreHarness(options: CoreHarnessOptions = {}): Promise<CoreHarness> {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent', ...options.env });
  const clock = new ManualClock();
  const application = await createApplication(config, { clock, logger: createSilentLogger() });
  const { core, store } = application;
  return { core, store, clock, config, ...accountHelpers(core), close: () => application.close() };
}
