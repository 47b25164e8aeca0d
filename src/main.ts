/**
 * The composition root of `porch serve`: config → store → core → doors. Only this file (and the
 * CLI entry) knows every part.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { createAiGateway } from './core/ai/ai-gateway.js';
import { loadSecretKey } from './core/ai/byok-crypto.js';
import type { ConsoleDoor } from './console/create-console-door.js';
import { type AuthorizationServer, type ConsentPort, OAUTH_MOUNT_PATHS } from './oauth/paths.js';
import { createCore, type Core } from './core/core.js';
import { SETTLE_AFTER_ABORT_MS } from './core/engine/run-workflow.js';
import { createStore, type PendingMigrations } from './db/create-store.js';
import type { Store } from './db/store.js';
import { createLogger } from './logger.js';
import { withOutputCheck, type OutputMismatchError } from './operations/check-output.js';
import { operations as allOperations } from './operations/index.js';
import type { Operation } from './operations/operation.js';
import { queuedRunExecutor } from './operations/queued-runs.js';
import type { McpHttpDoor } from './mcp/http.js';
import { MCP_PATH } from './mcp/mcp-path.js';
import { answerClientError, answerConnect } from './rest/client-error.js';
import { createRestApp, type NodeDoor } from './rest/create-rest-app.js';
import { lazyHandler } from './rest/lazy-handler.js';
import { STREAM_KEEP_ALIVE_MS } from './rest/event-stream.js';
import { CONSOLE_PATHS } from './operations/site-paths.js';
import { API_VERSION } from './core/health.js';
import { createTelemetry, type Telemetry } from './core/telemetry/telemetry.js';
import { livenessRoute, metricsRoute, readinessRoute, startMetricsServer, type MetricsServer } from './observability/endpoints.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { timeStoreTransactions } from './observability/store-timing.js';
import { createTracing, FINAL_FLUSH_MS } from './observability/tracing.js';
import { createBackgroundFailureLog } from './core/store-outage-log.js';

export interface Application {
  core: Core;
  store: Store;
  app: ReturnType<typeof createRestApp>;
  logger: Logger;
  /** This application's Prometheus registry and recorders. */
  metrics: Metrics;
  telemetry: Telemetry;
  /** Exports every finished span now; nothing to do when tracing is off. */
  flushTraces(): Promise<void>;
  /** From now on /readyz answers 503, so a load balancer sends no new requests, and no queued run is claimed here. */
  beginShutdown(): void;
  /**
   * Starts stopping the background work: the runs in flight get `graceMs` from now (the same
   * grace as the requests in flight, counted from the same moment), then go back to the queue;
   * webhook attempts in flight finish. `close` waits for it, and starts it if nothing did.
   */
  windDown(graceMs: number): Promise<void>;
  /** Starts executing queued (asynchronous) runs in this process; `close` stops it. */
  startRunQueue(): void;
  /**
   * Starts what every Porch process that serves calls does in the background: executing queued
   * runs and delivering webhooks (both claimed atomically, so processes share them); `close` stops both.
   */
  startBackgroundWork(): void;
  close(): Promise<void>;
}

export interface ApplicationOptions {
  clock?: Clock;
  logger?: Logger;
  /** Where the logger built here writes (when `logger` is not given); stderr by default. */
  logDestination?: NodeJS.WritableStream | number;
  /** Process metrics (CPU, memory, event loop) in the registry; default true. */
  processMetrics?: boolean;
  /** Overrides of the HTTP server's timeouts (tests use short ones). */
  serverTimeouts?: Partial<ServerTimeouts>;
  /** Checks every operation's answer against its output schema and reports each mismatch here (tests). */
  onOutputMismatch?: (error: OutputMismatchError) => void;
  /**
   * Whether the server executes queued runs and delivers webhooks (default true). Tests that
   * compare the database before and after each request turn it off, so work an earlier request
   * queued cannot land in the middle of a later one.
   */
  backgroundWork?: boolean;
  /**
   * Whether opening the database applies the migrations it lacks (default) or refuses it: only
   * the server and the commands that create or migrate a database change its schema.
   */
  pendingMigrations?: PendingMigrations;
  /**
   * Whether the caller encrypts or decrypts with the secret key (default), which is then read, or
   * generated when missing. A command that does neither (`porch account list`) passes false: it
   * runs on a throwaway key and never reads nor creates `secret.key` (regressions: every read-only
   * command created the key file; one refused to run where the file existed but its user could
   * not read it).
   */
  usesSecretKey?: boolean;
}

/** How long the HTTP server waits for slow or idle clients, in milliseconds. */
export interface ServerTimeouts {
  /** Until the request headers are complete: a client trickling headers (slowloris) is cut off with 408. */
  headersTimeoutMs: number;
  /** Until the whole request (headers and body) is received; answering may take longer. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open for the next request. */
  keepAliveTimeoutMs: number;
  /** How often the server checks connections against the two timeouts above. */
  connectionsCheckingIntervalMs: number;
  /** After a shutdown starts, how long in-flight requests may take before their connections are cut. */
  shutdownGraceMs: number;
  /** How often an event stream with nothing to send writes a keep-alive comment. */
  streamKeepAliveMs: number;
}

/**
 * After a shutdown has cut the connections still open, how long the calls they carried (aborted,
 * so normally a few milliseconds) may take to settle before the database closes: the one budget
 * for settling after an abort, which a workflow's wait for its node calls fits in (run-workflow.ts).
 */
const SETTLE_AFTER_CUT_MS = SETTLE_AFTER_ABORT_MS;

/** During shutdown, how often sockets that became idle are closed. */
const IDLE_SWEEP_INTERVAL_MS = 50;

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  // Real clients send their headers in milliseconds; ten seconds tolerates a bad mobile link.
  headersTimeoutMs: 10_000,
  // A 1 MiB body (the limit) takes well under a second on any working link; 30 s leaves room for a
  // very slow one while freeing a socket held by a client that stops sending.
  requestTimeoutMs: 30_000,
  // Node's default: long enough to reuse a connection between a client's back-to-back requests,
  // short enough that idle sockets do not pile up.
  keepAliveTimeoutMs: 5_000,
  // Node checks every 30 s by default, which would let a slow client hold a socket 30 s past its timeout.
  connectionsCheckingIntervalMs: 1_000,
  // Executions take seconds; a shutdown (deploy, restart) waits this long for them before cutting.
  shutdownGraceMs: 10_000,
  streamKeepAliveMs: STREAM_KEEP_ALIVE_MS,
};

/** Builds every service once; nothing is started or listening yet. */
export async function createApplication(config: Config, options: ApplicationOptions = {}): Promise<Application> {
  // One registry and one tracer provider per application: nothing global, so applications
  // sharing a process (tests, the bench) never count into each other.
  const metrics = createMetrics({ processMetrics: options.processMetrics ?? true });
  const logger = options.logger ?? createLogger(config.logLevel, options.logDestination ?? 2);
  const tracing =
    config.tracing === null ? null : await createTracing(config.tracing, API_VERSION, { logger, onSpansDropped: (spans) => metrics.spansDropped(spans) });
  const telemetry = createTelemetry({ tracer: tracing?.tracer, events: metrics.events, captureMessageContent: config.tracing?.captureMessageContent ?? false });
  const clock = options.clock ?? systemClock;
  const openedStore = await createStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    // Dropped by a database that went away, every idle connection fails at once.
    onIdleError: createBackgroundFailureLog(logger, 'an idle database connection failed; it will be replaced', { throttled: () => true }),
    pendingMigrations: options.pendingMigrations,
  });
  const store = timeStoreTransactions(openedStore, metrics.storeTransaction);
  // An in-memory database keeps no BYOK keys beyond the process, so it needs no key file either.
  const throwawayKey = config.secretKey === undefined && (store.describe().ephemeral || options.usesSecretKey === false);
  const secretKey = throwawayKey ? randomBytes(32) : loadSecretKey({ envValue: config.secretKey, dataDir: config.dataDir });
  const ai = createAiGateway({ config: config.ai, env: config.env, logger });
  const core = createCore({
    store,
    clock,
    logger,
    ai,
    secretKey,
    telemetry,
    settings: {
      siteUrl: config.publicUrl,
      minimumTokens: config.minimumTokens,
      judgeThresholds: config.judgeThresholds,
      workflowLimits: config.workflowLimits,
      maxInFlightPerKey: config.maxInFlightPerKey,
      instanceLeaseMs: config.instanceLeaseMs,
      quotas: config.quotas,
      runRetentionDays: config.runRetentionDays,
      errorCodes: config.errorCodes,
      runQueue: config.runQueue,
      webhooks: { allowHosts: config.webhooks.allowHosts, timeoutMs: config.webhooks.timeoutMs, concurrency: config.webhooks.concurrency },
    },
  });
  const report = options.onOutputMismatch;
  const operations: readonly Operation[] = report ? allOperations.map((operation) => withOutputCheck<Operation>(operation, report)) : allOperations;
  // The MCP SDK is the largest part of the process; it loads on the first MCP request, not at
  // start-up. Once loaded, the endpoint answers on Node's own request and response (a node door,
  // ahead of Express); until then, and for the paths under it, the Express mount serves it.
  let mcpDoor: McpHttpDoor | undefined;
  const mcp = lazyHandler(async () => {
    mcpDoor ??= (await import('./mcp/http.js')).createMcpHttpDoor({
      core,
      operations,
      errorCodes: config.errorCodes,
      publicUrl: config.publicUrl,
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
    });
    return mcpDoor.router;
  });
  const mcpNodeDoor: NodeDoor = {
    path: MCP_PATH,
    door: 'mcp',
    serve(req, res, context) {
      if (mcpDoor === undefined) return false;
      mcpDoor.serve(req, res, context);
      return true;
    },
  };
  // The OAuth authorization server (oidc-provider and Koa) loads on the first OAuth request, or
  // when the console's consent page needs it.
  let authorizationServerLoading: Promise<AuthorizationServer> | undefined;
  const loadAuthorizationServer = () =>
    (authorizationServerLoading ??= import('./oauth/authorization-server.js')
      .then((module) => module.createAuthorizationServer({ core, secretKey }))
      .catch((err: unknown) => {
        authorizationServerLoading = undefined;
        throw err;
      }));
  const oauthHandler = lazyHandler(async () => (await loadAuthorizationServer()).handler);
  const oauthConsent: ConsentPort = {
    details: async (req, res, uid) => (await loadAuthorizationServer()).consent.details(req, res, uid),
    approve: async (req, res, request) => (await loadAuthorizationServer()).consent.approve(req, res, request),
    deny: async (req, res, uid) => (await loadAuthorizationServer()).consent.deny(req, res, uid),
  };
  // The console (pages, sign-in, argon2) also loads on its first request.
  // One door serves both mounts (/console and the public /refine), built once on the first request to either.
  let consoleDoorLoading: Promise<ConsoleDoor> | undefined;
  const loadConsoleDoor = () =>
    (consoleDoorLoading ??= import('./console/create-console-door.js')
      .then((module) => module.createConsoleDoor({ core, operations, oauthConsent }))
      .catch((err: unknown) => {
        consoleDoorLoading = undefined;
        throw err;
      }));
  const consoleDoor = lazyHandler(async () => (await loadConsoleDoor()).handler);
  const refinePage = lazyHandler(async () => (await loadConsoleDoor()).refine);
  let accepting = true;
  const mounts = [
    { path: MCP_PATH, handler: mcp, door: 'mcp' },
    { path: CONSOLE_PATHS.root, handler: consoleDoor, door: 'console' },
    ...OAUTH_MOUNT_PATHS.map((path) => ({ path, handler: oauthHandler, door: 'oauth' })),
    { path: CONSOLE_PATHS.refine, handler: refinePage, door: 'console' },
    { path: '/livez', handler: livenessRoute(), door: 'operations' },
    {
      path: '/readyz',
      handler: readinessRoute({
        store,
        providersLoaded: () => ai.listModels().some((model) => model.id === ai.defaultModel),
        accepting: () => accepting,
      }),
      door: 'operations',
    },
    // Without a token the metrics are not on the main port at all (404): only metrics.port serves them.
    ...(config.metrics.token === undefined ? [] : [{ path: '/metrics', handler: metricsRoute(metrics, config.metrics.token), door: 'operations' }]),
  ];
  const app = createRestApp({
    core,
    operations,
    logger,
    errorCodes: config.errorCodes,
    mounts,
    nodeDoors: [mcpNodeDoor],
    trustRequestId: config.trustRequestId,
    trustedProxies: config.trustedProxies,
    streamKeepAliveMs: options.serverTimeouts?.streamKeepAliveMs ?? DEFAULT_SERVER_TIMEOUTS.streamKeepAliveMs,
    onAnswered: (door, status, seconds) => metrics.httpRequest(door, status, seconds),
  });
  const startRunQueue = () => core.runQueue.start(queuedRunExecutor(core, operations));
  let windingDown: Promise<void> | undefined;
  const windDown = (graceMs: number): Promise<void> => {
    windingDown ??= Promise.all([core.runQueue.stop(graceMs), core.webhookWorker.stop()]).then(() => undefined);
    return windingDown;
  };
  return {
    core,
    store,
    app,
    logger,
    metrics,
    telemetry,
    flushTraces: async () => tracing?.flush(),
    beginShutdown() {
      accepting = false;
      core.runQueue.stopClaiming();
    },
    startRunQueue,
    startBackgroundWork() {
      startRunQueue();
      core.webhookWorker.start(config.webhooks.pollIntervalMs);
    },
    windDown,
    async close() {
      accepting = false;
      // Runs in flight get the same grace as requests, from the same moment when the server started
      // it (regression: theirs began only after the requests' and the settling, so a shutdown took
      // 20 s and more, and `--workers` killed a worker before it released what it held). What is
      // still running then goes back to the queue; webhook attempts in flight finish (each within
      // its timeout) before the database closes under them.
      const background = windDown(options.serverTimeouts?.shutdownGraceMs ?? DEFAULT_SERVER_TIMEOUTS.shutdownGraceMs);
      // Calls whose connections the server cut were aborted; each still settles its charge, usage
      // row and run, which needs the store open.
      if (!(await core.inFlight.idle(SETTLE_AFTER_CUT_MS))) {
        logger.warn({ calls: core.inFlight.count }, 'calls still running after the shutdown cut their connections; closing the database under them');
      }
      await background;
      // Writes still waiting for the store get one more try while it is open.
      await core.deferredWrites.flush();
      // A clean shutdown releases at once what this process still holds (reservations, slots,
      // claims of requests cut off by the shutdown), instead of waiting for its lease to run out.
      await core.instance.retire().catch((err: unknown) => logger.warn({ err }, 'could not release this process lease'));
      await core.sanitiser.close();
      await store.close();
      // Spans of the last requests are sent before the process goes, for at most FINAL_FLUSH_MS:
      // a receiver that hangs must not push a stop past the orchestrator's grace period
      // (regression: 19 s with one request in flight). What is not sent by then is logged.
      await tracing?.shutdown(FINAL_FLUSH_MS);
    },
  };
}

export interface RunningServer {
  application: Application;
  server: Server;
  /** The loopback-only metrics listener (`metrics.port`); null when not configured. */
  metricsServer: MetricsServer | null;
  /** The address it listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  /**
   * Answers /readyz with 503 (for `processes.drain_seconds` before anything else), stops accepting
   * connections, lets in-flight requests finish, then closes the database.
   */
  close(): Promise<void>;
}

export async function startServer(config: Config, options: ApplicationOptions = {}): Promise<RunningServer> {
  const application = await createApplication(config, options);
  const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.serverTimeouts };
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.connectionsCheckingIntervalMs,
      // The application refuses a request without Host itself, in the error envelope.
      requireHostHeader: false,
      ...application.app.serverClasses,
    },
    application.app,
  );
  server.on('clientError', answerClientError(config.errorCodes));
  server.on('connect', answerConnect(config.errorCodes));
  // An expectation other than 100-continue may be ignored (RFC 9110 §10.1.1): the request is
  // served as if it had none, rather than Node's bare 417 without the envelope or X-API-Version.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const metricsServer = config.metrics.port === undefined ? null : await startMetricsServer(application.metrics, config.metrics.port);
  if (options.backgroundWork ?? true) application.startBackgroundWork();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    application,
    server,
    metricsServer,
    url: `http://${host}:${port}`,
    async close() {
      application.beginShutdown();
      // With `processes.drain_seconds`, the port stays open while /readyz answers 503, until load
      // balancers polling it have stopped sending new requests here; closing it at once would
      // refuse the requests they still send meanwhile.
      if (config.shutdownDrainMs > 0) await delay(config.shutdownDrainMs);
      // Runs in flight get their grace from now, as the requests do.
      const background = application.windDown(timeouts.shutdownGraceMs);
      // Stop accepting, let requests in flight finish (idle keep-alive sockets close at once),
      // and cut what is still open after the grace period; only then close the database, so no
      // acknowledged write is interrupted.
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), timeouts.shutdownGraceMs);
        // A keep-alive socket whose request finishes after close() began would otherwise stay
        // open until its keep-alive timeout; sweep idle sockets until the server is closed.
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_INTERVAL_MS);
        cut.unref();
        sweep.unref();
        server.close(() => {
          clearTimeout(cut);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      await metricsServer?.close();
      await background;
      await application.close();
    },
  };
}
