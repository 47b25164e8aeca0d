/**
 * The test harness: a real Porch server on 127.0.0.1 over a fresh in-memory SQLite database, a
 * clock the test moves by hand, and helpers to make accounts and keys through the real services.
 */
import { loadConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerTimeouts } from '../../src/main.js';
import { API_BASE_PATH } from '../../src/rest/create-rest-app.js';
import { accountHelpers, type AccountHelpers } from './core-harness.js';
import { validateAgainstOpenApi } from './openapi-validation.js';
import { freePort } from './free-port.js';

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Whether the server executes queued runs and delivers webhooks (default true); see ApplicationOptions. */
  backgroundWork?: boolean;
  /**
   * Listen on a free port named in PORCH_PUBLIC_URL, so the URLs Porch advertises (OAuth issuer
   * and metadata, the MCP origin) are the ones a client reaches; with the default port 0 they
   * name port 0.
   */
  publicPort?: boolean;
  /** Shorter server timeouts (the keep-alive of event streams, the shutdown grace). */
  serverTimeouts?: Partial<ServerTimeouts>;
}

/** The envelope as tests read it: `data` on success, `error` on failure. */
export interface ResponseBody<Data> {
  success: boolean;
  data: Data;
  error: { code: string; message: string; request_id: string; retry_after?: number };
}

export interface ApiResponse<Body = unknown> {
  status: number;
  headers: Headers;
  body: Body;
  /** The raw text, for bodies that are not JSON. */
  text: string;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Harness extends AccountHelpers {
  server: RunningServer;
  clock: ManualClock;
  config: Config;
  url: string;
  core: RunningServer['application']['core'];
  store: RunningServer['application']['store'];
  /** A request under the API base (`/api/public/v1` + path). */
  api<Data = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<ResponseBody<Data>>>;
  site<Body = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<Body>>;
  close(): Promise<void>;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const port = options.publicPort ? await freePort() : 0;
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PORT: String(port),
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'silent',
    ...(options.publicPort ? { PORCH_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    ...options.env,
  });
  const clock = new ManualClock();
  // Every answer is checked against its operation's documented output; a mismatch fails the file at close.
  const outputMismatches: string[] = [];
  const server = await startServer(config, {
    clock,
    logger: createSilentLogger(),
    onOutputMismatch: (error) => outputMismatches.push(error.message),
    backgroundWork: options.backgroundWork ?? true,
    ...(options.serverTimeouts === undefined ? {} : { serverTimeouts: options.serverTimeouts }),
  });
  const { core, store } = server.application;

  async function send<Body>(url: string, method: string, request: RequestOptions = {}): Promise<ApiResponse<Body>> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.key !== undefined) headers['x-api-key'] = request.key;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (request.rawBody !== undefined) body = typeof request.rawBody === 'string' ? request.rawBody : new Uint8Array(request.rawBody);
    else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    // Every response under the API base must match the OpenAPI document (status, headers, body).
    const { pathname, search } = new URL(url);
    if (pathname === API_BASE_PATH || pathname.startsWith(`${API_BASE_PATH}/`))
      validateAgainstOpenApi(method, pathname.slice(API_BASE_PATH.length) + search, response.status, response.headers, parsed);
    return { status: response.status, headers: response.headers, body: parsed as Body, text };
  }

  const harness: Harness = {
    server,
    clock,
    config,
    url: server.url,
    core,
    store,
    api: <Data>(method: string, path: string, request?: RequestOptions) => send<ResponseBody<Data>>(`${server.url}/api/public/v1${path}`, method, request),
    site: (method, path, request) => send(`${server.url}${path}`, method, request),
    ...accountHelpers(core),
    async close() {
      await server.close();
      if (outputMismatches.length > 0) throw new Error(`Operations answered outside their documented output:\n${[...new Set(outputMismatches)].join('\n')}`);
    },
  };
  return harness;
}

/** Formats a response for assertion messages, so a failing test shows what the server said. */
export function describeResponse(response: ApiResponse<unknown>): string {
  return `${response.status} ${response.text.slice(0, 500)}`;
}
