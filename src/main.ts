/**
 * The composition root of `porch serve`: config → store → core → doors. Only this file (and the
 * CLI entry) knows every part.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { createAiGateway } from './core/ai/ai-gateway.js';
import { loadSecretKey } from './core/ai/byok-crypto.js';
import { createCore, type Core } from './core/core.js';
import { createSqliteStore, type SqliteStore } from './db/sqlite/index.js';
import { createLogger } from './logger.js';
import { operations } from './operations/index.js';
import { createMcpHttpHandler, MCP_PATH } from './mcp/http.js';
import { createRestApp } from './rest/create-rest-app.js';

export interface Application {
  core: Core;
  store: SqliteStore;
  app: ReturnType<typeof createRestApp>;
  logger: Logger;
  close(): Promise<void>;
}

export interface ApplicationOptions {
  clock?: Clock;
  logger?: Logger;
}

/** Builds every service once; nothing is started or listening yet. */
export function createApplication(config: Config, options: ApplicationOptions = {}): Application {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const store = createSqliteStore(config.databaseUrl);
  // An in-memory database keeps no BYOK keys beyond the process, so it needs no key file either.
  const secretKey =
    config.secretKey === undefined && store.database.location === ':memory:'
      ? randomBytes(32)
      : loadSecretKey({ envValue: config.secretKey, dataDir: config.dataDir });
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
    },
  });
  const mcp = createMcpHttpHandler({ core, operations, errorCodes: config.errorCodes, publicUrl: config.publicUrl, allowedOrigins: config.allowedOrigins });
  const app = createRestApp({ core, operations, logger, errorCodes: config.errorCodes, mounts: [{ path: MCP_PATH, handler: mcp }] });
  return {
    core,
    store,
    app,
    logger,
    close: () => store.close(),
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
  const application = createApplication(config, options);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = application.app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(listening)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    application,
    server,
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await application.close();
    },
  };
}
