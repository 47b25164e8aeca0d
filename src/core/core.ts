/**
 * The domain library as one object, built once by the composition root and handed to the doors.
 * Core never imports a door (REST, MCP, CLI) and knows nothing of HTTP.
 */
import type { Logger } from 'pino';
import type { AiGateway } from './ai/ai-gateway.js';
import { createByokService } from './byok/byok.js';
import { createExecutionService, type WorkflowLimits } from './execution/executions.js';
import { createModelCaller } from './execution/model-calls.js';
import { createJudgeService } from './judge/judge-service.js';
import type { JudgeThresholds } from './judge/thresholds.js';
import { createGuardrails } from './sanitiser/guardrails.js';
import { createSanitiserService } from './sanitiser/sanitiser-service.js';
import type { ContentQuotas, Store } from '../db/store.js';
import { createAccountService } from './accounts/accounts.js';
import { createOrganisationAdmin } from './accounts/organisation-admin.js';
import { createSelfService } from './accounts/self-service.js';
import { createAuthenticator } from './access/authenticator.js';
import { type ConsoleSessionSettings, createConsoleSessions } from './access/console-sessions.js';
import { createRateLimiter } from './access/rate-limiter.js';
import { createBundleService } from './bundle/bundles.js';
import { createCatalogService } from './catalog/catalog.js';
import { createLifecycleService } from './catalog/lifecycle.js';
import { createPromptCatalog } from './catalog/prompt-catalog.js';
import type { Clock } from './clock.js';
import type { ErrorCodeSet } from './errors.js';
import { createContextCardService } from './context-cards/context-cards.js';
import { accruedChargingAt, createCreditService } from './credits/credits.js';
import { createDemoService } from './demo/demo.js';
import { createHealthService } from './health.js';
import { createDeferredWrites } from './deferred-writes.js';
import { createIdempotencyService } from './idempotency.js';
import { createInstance } from './instance.js';
import { createMaintenance } from './maintenance.js';
import { createOAuthService, mcpResourceUrl } from './access/oauth.js';
import { createInFlightCalls } from './in-flight.js';
import { createRunQueue, type RunQueueSettings } from './runs/run-queue.js';
import { createRunService } from './runs/runs.js';
import { createUsageService } from './usage/usage.js';
import { createWebhookWorker } from './webhooks/delivery-worker.js';
import { lowBalanceEvent } from './webhooks/events.js';
import { createWebhookService } from './webhooks/webhooks.js';

/** Webhook delivery when the composition root gives no settings (tools and tests that never deliver). */
const DEFAULT_WEBHOOK_SETTINGS = { allowHosts: [], timeoutMs: 10_000, concurrency: 16 };
import { instrumentAiGateway, instrumentExecutions, instrumentModelCaller, instrumentSanitiser } from './telemetry/instrument.js';
import { createTelemetry, type Telemetry } from './telemetry/telemetry.js';
import { createStoreOutageLog } from './store-outage-log.js';

export interface CoreSettings {
  /** `{site_url}`: the public origin for absolute links. */
  siteUrl: string;
  /** Minimum available balance to start an execution, in tokens. */
  minimumTokens: number;
  judgeThresholds: JudgeThresholds;
  workflowLimits: WorkflowLimits;
  /** Executions one key may have in flight at once, across every process. */
  maxInFlightPerKey: number;
  /** How long this process counts as alive after renewing its lease; the default suits production. */
  instanceLeaseMs?: number;
  /** What one account may hold of each kind of content. */
  quotas: ContentQuotas;
  /** Days run payloads are kept before the housekeeping sweep drops them. */
  runRetentionDays: number;
  /** The error codes the deployment answers with (PORCH_ERROR_CODES), for codes shown inside results: a failed run's. Set A when omitted. */
  errorCodes?: ErrorCodeSet;
  /** Asynchronous runs: concurrency per process, the per-account bound, how often other processes' runs are looked for. */
  runQueue: RunQueueSettings;
  /** Console sign-in: session idle and absolute expiry, invite and reset link lifetimes (defaults when omitted). */
  consoleSessions?: ConsoleSessionSettings;
  /** Webhook delivery: the SSRF allow-list, attempt timeout and concurrency. */
  webhooks?: { allowHosts: readonly string[]; timeoutMs: number; concurrency: number };
}

export interface CoreDependencies {
  store: Store;
  clock: Clock;
  logger: Logger;
  settings: CoreSettings;
  ai: AiGateway;
  /** Encrypts BYOK keys at rest. */
  secretKey: Buffer;
  /** Spans and metric events; none are recorded without it. */
  telemetry?: Telemetry;
}

export function createCore({ store, clock, logger, settings, ai: bareAi, secretKey, telemetry = createTelemetry() }: CoreDependencies) {
  const ai = instrumentAiGateway(bareAi, telemetry);
  const accruedCharging = () => accruedChargingAt(clock.now(), lowBalanceEvent);
  const instance = createInstance({ store: store.instances, clock, logger, leaseMs: settings.instanceLeaseMs, accruedCharging });
  const credits = createCreditService(store.credits, clock, settings.minimumTokens, instance, lowBalanceEvent, store.usage);
  const accounts = createAccountService(store, clock);
  const models = {
    has: (modelId: string) => ai.listModels().some((model) => model.id === modelId),
    list: () => ai.listModels().map((model) => model.id),
  };
  const lifecycle = createLifecycleService(store, clock, settings.quotas, models, settings.runRetentionDays);
  const bundles = createBundleService(store, clock, settings.quotas, models, lifecycle.resolveRef);
  const catalog = createCatalogService(store, lifecycle);
  const sanitiser = instrumentSanitiser(createSanitiserService(store, clock), telemetry);
  const byokProviders = () => [...new Set(ai.listModels().map((model) => model.provider))].filter((provider) => provider !== 'echo');
  const byok = createByokService({ store, clock, secretKey, providers: byokProviders });
  const modelCaller = instrumentModelCaller(
    createModelCaller({ ai, credits, byok, usage: store.usage, clock, guardrails: createGuardrails(sanitiser) }),
    telemetry,
  );
  const judge = createJudgeService({ ai, modelCaller, thresholds: settings.judgeThresholds, siteUrl: settings.siteUrl });
  const deferredWrites = createDeferredWrites(logger);
  const executions = instrumentExecutions(
    createExecutionService({
      store,
      ai,
      catalog,
      lifecycle,
      credits,
      byok,
      modelCaller,
      judge,
      scanText: async (organisationId, text) => ({ ...(await sanitiser.scan(organisationId, text)) }),
      clock,
      workflowLimits: settings.workflowLimits,
      maxInFlightPerKey: settings.maxInFlightPerKey,
      instance,
      deferredWrites,
      telemetry,
    }),
    telemetry,
  );
  const idempotency = createIdempotencyService(store.idempotency, clock, instance, accruedCharging);
  const runs = createRunService(store, clock, settings.runRetentionDays, settings.errorCodes ?? 'a');
  const oauth = createOAuthService(store, clock);
  const authenticator = createAuthenticator(store, clock, { oauth, mcpResource: mcpResourceUrl(settings.siteUrl) });
  const consoleSessions = createConsoleSessions(store, clock, settings.consoleSessions);
  const runQueue = createRunQueue({ store, authenticator, lifecycle, ai, instance, clock, logger, deferredWrites, telemetry, settings: settings.runQueue });
  const webhookSettings = settings.webhooks ?? DEFAULT_WEBHOOK_SETTINGS;
  const webhooks = createWebhookService(store, clock, secretKey, { allowHosts: webhookSettings.allowHosts, retentionDays: settings.runRetentionDays });
  const webhookWorker = createWebhookWorker({ store: store.webhooks, clock, logger, secretKey, ...webhookSettings });
  return {
    deferredWrites,
    /** Says why the database could not answer, once in a while, wherever a 503 is answered. */
    logStoreOutage: createStoreOutageLog(logger),
    ai,
    settings,
    clock,
    logger,
    telemetry,
    authenticator,
    consoleSessions,
    oauth,
    rateLimiter: createRateLimiter(store.rateLimits, clock),
    credits,
    accounts,
    contextCards: createContextCardService(store, clock, settings.quotas),
    catalog,
    lifecycle,
    prompts: createPromptCatalog(catalog, lifecycle),
    byok,
    executions,
    idempotency,
    instance,
    organisationAdmin: createOrganisationAdmin({ store, sanitiser, byok, providers: byokProviders }),
    selfService: createSelfService({ store, accounts, ai, byok, clock, maxInFlightPerKey: settings.maxInFlightPerKey }),
    runs,
    runQueue,
    inFlight: createInFlightCalls(),
    webhooks,
    webhookWorker,
    usage: createUsageService(store, clock),
    maintenance: createMaintenance({
      credits,
      idempotency,
      runs,
      runQueue,
      webhooks,
      consoleSessions,
      oauth,
      catalog: lifecycle,
      instances: store.instances,
      accruedCharging,
      instance,
      logger,
    }),
    judge,
    sanitiser,
    bundles,
    demo: createDemoService(accounts, bundles),
    health: createHealthService(store, clock),
  };
}

export type Core = ReturnType<typeof createCore>;
