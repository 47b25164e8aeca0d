/**
 * The domain library as one object, built once by the composition root and handed to the doors.
 * Core never imports a door (REST, MCP, CLI) and knows nothing of HTTP.
 */
import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import { createAccountService } from './accounts/accounts.js';
import { createAuthenticator } from './access/authenticator.js';
import { createRateLimiter } from './access/rate-limiter.js';
import { createBundleService } from './bundle/bundles.js';
import { createCatalogService } from './catalog/catalog.js';
import type { Clock } from './clock.js';
import { createContextCardService } from './context-cards/context-cards.js';
import { createCreditService } from './credits/credits.js';
import { createDemoService } from './demo/demo.js';
import { createHealthService } from './health.js';

export interface CoreSettings {
  /** `{site_url}`: the public origin for absolute links. */
  siteUrl: string;
  /** Minimum available balance to start an execution, in tokens. */
  minimumTokens: number;
}

export interface CoreDependencies {
  store: Store;
  clock: Clock;
  logger: Logger;
  settings: CoreSettings;
}

export function createCore({ store, clock, logger, settings }: CoreDependencies) {
  const credits = createCreditService(store.credits, clock, settings.minimumTokens);
  const accounts = createAccountService(store, clock);
  const bundles = createBundleService(store, clock);
  return {
    settings,
    clock,
    logger,
    authenticator: createAuthenticator(store, clock),
    rateLimiter: createRateLimiter(store.rateLimits, clock),
    credits,
    accounts,
    contextCards: createContextCardService(store, clock),
    catalog: createCatalogService(store),
    bundles,
    demo: createDemoService(accounts, bundles),
    health: createHealthService(store, clock),
  };
}

export type Core = ReturnType<typeof createCore>;
