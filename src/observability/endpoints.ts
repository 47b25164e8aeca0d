/**
 * The operator's endpoints: GET /metrics (on the main port behind a bearer token, or on a
 * loopback-only port of its own) and the orchestrator probes GET /livez and GET /readyz. They are
 * mounted by the composition root; answers are plain text or small JSON, never the API envelope,
 * because Prometheus and Kubernetes are their readers.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import { PorchError } from '../core/errors.js';
import type { Store } from '../db/store.js';
import type { Metrics } from './metrics.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compares digests, so neither the token's length nor its prefix leaks through timing. */
function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined || !authorization.toLowerCase().startsWith('bearer ')) return false;
  return timingSafeEqual(digest(authorization.slice('bearer '.length).trim()), digest(token));
}

/**
 * Whether a route of this file answers this request: GET or HEAD of its own path. Another method
 * there is 405 with Allow, as on every other known path (regression: POST /livez answered 404).
 */
function answersHere(req: Parameters<RequestHandler>[0], next: Parameters<RequestHandler>[2]): boolean {
  if (req.path !== '/') {
    next();
    return false;
  }
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  next(new PorchError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.baseUrl}.`, { allow: ['GET', 'HEAD'] }));
  return false;
}

/** Mounted at /metrics on the main port; only when PORCH_METRICS_TOKEN is set. */
export function metricsRoute(metrics: Metrics, token: string): RequestHandler {
  return (req, res, next) => {
    if (!answersHere(req, next)) return;
    if (!bearerMatches(req.headers.authorization, token)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('A bearer token (PORCH_METRICS_TOKEN) is required.\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => res.status(200).type(contentType).send(body),
      (err: unknown) => next(err),
    );
  };
}

export interface MetricsServer {
  server: Server;
  /** http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

/**
 * `metrics.port`: GET /metrics on 127.0.0.1 only, without a token: what can reach the loopback
 * interface already runs on the host. A scraper on another host reaches it through a sidecar or
 * the main port with the token (docs/operations.md).
 */
export async function startMetricsServer(metrics: Metrics, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    // The query is ignored, as on the main port (regression: GET /metrics?x=1 answered 404 here).
    const path = req.url?.split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return {
    server,
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** GET /livez: the process answers HTTP. Nothing else is checked, so a slow database never gets a live process restarted. */
export function livenessRoute(): RequestHandler {
  return (req, res, next) => {
    if (!answersHere(req, next)) return;
    res.status(200).type('application/json').setHeader('Cache-Control', 'no-store').send({ status: 'ok' });
  };
}

export interface ReadinessChecks {
  store: Store;
  /** Whether the provider configuration was loaded: at least one model, the default among them. */
  providersLoaded: () => boolean;
  /** False once a shutdown began: a load balancer stops sending new requests before the server closes. */
  accepting: () => boolean;
}

/**
 * GET /readyz: whether this process should get traffic. 200 when the store answers, its
 * migrations are the ones this code knows, and the providers are configured; 503 naming the
 * failing checks otherwise. The answer names states only, never addresses or error text.
 */
export function readinessRoute({ store, providersLoaded, accepting }: ReadinessChecks): RequestHandler {
  return (req, res, next) => {
    if (!answersHere(req, next)) return;
    Promise.all([store.ping(), store.schemaStatus()]).then(
      ([reachable, schema]) => {
        const checks = {
          store: reachable ? 'ok' : 'unavailable',
          migrations: schema === 'current' ? 'ok' : schema,
          providers: providersLoaded() ? 'ok' : 'missing',
          shutdown: accepting() ? 'no' : 'in progress',
        };
        const ready = reachable && schema === 'current' && checks.providers === 'ok' && checks.shutdown === 'no';
        res
          .status(ready ? 200 : 503)
          .type('application/json')
          .setHeader('Cache-Control', 'no-store')
          .send({ status: ready ? 'ready' : 'not ready', checks });
      },
      (err: unknown) => next(err),
    );
  };
}
