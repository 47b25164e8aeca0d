import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Core } from '../core/core.js';
import type { ErrorCodeSet } from '../core/errors.js';
import type { Operation } from '../operations/operation.js';
import { createDiscoveryRouter } from './discovery/create-discovery-router.js';
import { errorHandler, notFound } from './error-handler.js';
import { jsonBody, requestContext } from './middleware.js';
import { mountOperations } from './mount-operations.js';

export const API_BASE_PATH = '/api/public/v1';

/** DECISIONS.md: the default body limit is 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface RestAppOptions {
  core: Core;
  operations: readonly Operation[];
  logger: Logger;
  errorCodes: ErrorCodeSet;
  bodyLimitBytes?: number;
  /**
   * Other doors served by the same app (the MCP endpoint), mounted before the API's 404 handler.
   * The composition root passes them in, so REST never imports another door.
   */
  mounts?: ReadonlyArray<{ path: string; handler: RequestHandler }>;
}

/** A path pattern for 405 detection: `{id}` matches one segment. */
function pathPattern(path: string): RegExp {
  const escaped = (API_BASE_PATH + path).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[A-Za-z_][A-Za-z0-9_]*\\?\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export function createRestApp({ core, operations, logger, errorCodes, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES, mounts = [] }: RestAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(logger));

  for (const mount of mounts) app.use(mount.path, mount.handler);
  app.use(API_BASE_PATH, jsonBody(bodyLimitBytes), mountOperations(core, operations, errorCodes));

  const knownPaths = new Map<RegExp, string[]>();
  for (const operation of operations) {
    const pattern = [...knownPaths.keys()].find((existing) => existing.source === pathPattern(operation.path).source) ?? pathPattern(operation.path);
    knownPaths.set(pattern, [...(knownPaths.get(pattern) ?? []), operation.method]);
  }
  // Discovery (OpenAPI, catalog, skills, pages, the API root) answers what no operation did.
  app.use(createDiscoveryRouter({ core, operations, errorCodes }));
  app.use(notFound(knownPaths));
  app.use(errorHandler(logger, errorCodes));
  return app;
}
