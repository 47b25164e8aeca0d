/**
 * The composition root of `porch serve`: config → store → core → doors. Only this file (and the
 * CLI entry) knows every part.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { createAiGateway } from './core/ai/ai-gateway.js';
import { loadSecretKey } from './core/ai/byok-crypto.js';
import { createCore, type Core } from './core/core.js';
import { createStore } from './db/create-store.js';
import type { Store } from './db/store.js';
import { createLogger } from './logger.js';
import { withOutputCheck, type OutputMismatchError } from './operations/check-output.js';
import { operations as allOperations } from './operations/index.js';
import type { Operation } from './operations/operation.js';
import { MCP_PATH } from './mcp/mcp-path.js';
import { answerClientError } from './rest/client-error.js';
import { createRestApp } from './rest/create-rest-app.js';
import { lazyHandler } from './rest/lazy-handler.js';

export interface Application {
  core: Core;
  store: Store;
  app: ReturnType<typeof createRestApp>;
  logger: Logger;
  close(): Promise<void>;
}

export interface ApplicationOptions {
  clock?: Clock;
  logger?: Logger;
  /** Overrides of the HTTP server's timeouts (tests use short ones). */
  serverTimeouts?: Partial<ServerTimeouts>;
  /** Checks every operation's answer against its output schema and reports each mismatch here (tests). */
  onOutputMismatch?: (error: OutputMismatchError) => void;
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
}

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
};

/** Builds every service once; nothing is started or listening yet. */
export async function createApplication(config: Config, options: ApplicationOptions = {}): Promise<Application> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const store = await createStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    onIdleError: (err) => logger.warn({ err }, 'an idle database connection failed; it will be replaced'),
  });
  // An in-memory database keeps no BYOK keys beyond the process, so it needs no key file either.
  const secretKey =
    config.secretKey === undefined && store.describe().ephemeral ? randomBytes(32) : loadSecretKey({ envValue: config.secretKey, dataDir: config.dataDir });
  const ai = createAiGateway({ config: config.ai, env: config.env, logger });
  const core = createCore({
    store,
    clock,
    logger,
    ai,
    secretKey,
    settings: {
      siteUrl: config.publicUrl,
      minimumTokens: config.minimumTokens,
      judgeThresholds: config.judgeThresholds,
      workflowLimits: config.workflowLimits,
      maxInFlightPerKey: config.maxInFlightPerKey,
      instanceLeaseMs: config.instanceLeaseMs,
      quotas: config.quotas,
      runRetentionDays: config.runRetentionDays,
    },
  });
  const report = options.onOutputMismatch;
  const operations: readonly Operation[] = report ? allOperations.map((operation) => withOutputCheck<Operation>(operation, report)) : allOperations;
  // The MCP SDK is the largest part of the process; it loads on the first MCP request, not at start-up.
  const mcp = lazyHandler(async () =>
    (await import('./mcp/http.js')).createMcpHttpHandler({
      core,
      operations,
      errorCodes: config.errorCodes,
      publicUrl: config.publicUrl,
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
    }),
  );
  const app = createRestApp({ core, operations, logger, errorCodes: config.errorCodes, mounts: [{ path: MCP_PATH, handler: mcp }] });
  return {
    core,
    store,
    app,
    logger,
    async close() {
      // A clean shutdown releases at once what this process still holds (reservations, slots,
      // claims of requests cut off by the shutdown), instead of waiting for its lease to run out.
      await core.instance.retire().catch((err: unknown) => logger.warn({ err }, 'could not release this process lease'));
      await core.sanitiser.close();
      await store.close();
    },
  };
}

export interface RunningServer {
  application: Application;
  server: Server;
  /** The address it listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
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
    },
    application.app,
  );
  server.on('clientError', answerClientError(config.errorCodes));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    application,
    server,
    url: `http://${host}:${port}`,
    async close() {
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
      await application.close();
    },
  };
}
