/**
 * A typed client for the Porch REST API. One method per operation, named after its operationId
 * (`executeWorkflow`), with input and output types inferred from the operation definitions, and
 * the spec's retry rules built in (retry-policy.ts).
 */
import type { z } from 'zod';
import type { executeComposition } from '../operations/execute-composition.js';
import type { executePersona } from '../operations/execute-persona.js';
import type { executeSkill } from '../operations/execute-skill.js';
import type { executeWorkflow } from '../operations/execute-workflow.js';
import type { getRun } from '../operations/get-run.js';
import type { operations } from '../operations/index.js';
import type { queuedRunSchema } from '../operations/self-service-schemas.js';
import type { ExposedOn, OperationId, OperationOutput } from '../operations/operation.js';
import { type PorchApiError, readApiError } from './errors.js';
import { DEFAULT_MAX_RETRY_DELAY_MS, decideRetry } from './retry-policy.js';
import type { ClientRoute } from './route.js';
import { CLIENT_ROUTES } from './routes.js';
import { type PorchStreamClient, streamOperation, type StreamOptions } from './stream.js';

/** The operations with a REST route; the others (MCP-only, console-only) have no method here. */
type KnownOperation = ExposedOn<(typeof operations)[number], 'rest'>;

export interface CallOptions {
  /** Cancels the call, including any wait between retries. */
  signal?: AbortSignal;
  /** Overrides the Idempotency-Key the client generates for an execution. */
  idempotencyKey?: string;
  /** Extra headers (e.g. X-Porch-Account for partner keys). */
  headers?: Record<string, string>;
}

/** What a caller may send for one schema: its input type, so fields with a default stay optional. */
type RequestOf<Schema> = [Schema] extends [z.ZodType] ? z.input<Schema> : Record<never, never>;

/**
 * The merged input (path, query and body fields) a caller sends. `OperationInput` is what `run`
 * receives, after parsing has filled in defaults (`include_trace: boolean`); a request may leave
 * those out (`include_trace?: boolean`), so the client types its parameters with `z.input`.
 */
export type OperationRequest<Op> = Op extends { params?: infer Params; query?: infer Query; body?: infer Body }
  ? RequestOf<Params> & RequestOf<Query> & RequestOf<Body>
  : never;

type OperationMethod<Op extends KnownOperation> =
  Record<never, never> extends OperationRequest<Op>
    ? (input?: OperationRequest<Op>, options?: CallOptions) => Promise<OperationOutput<Op>>
    : (input: OperationRequest<Op>, options?: CallOptions) => Promise<OperationOutput<Op>>;

/** The executions `executeAsync` may queue: those with a `runKind`. */
type QueueableOperation = typeof executeComposition | typeof executeSkill | typeof executePersona | typeof executeWorkflow;
type QueueableName = OperationId<QueueableOperation['name']>;
type QueueableByName<Name extends QueueableName> = Extract<QueueableOperation, { name: OperationName<Name> }>;
type OperationName<Id extends string> = Id extends `${infer Head}${infer Rest}`
  ? `${Head extends Uppercase<Head> ? `_${Lowercase<Head>}` : Head}${OperationName<Rest>}`
  : Id;

/** A run as `GET /runs/{id}` answers it. */
export type RunDetail = OperationOutput<typeof getRun>;
/** The answer of `executeAsync`: the queued run's id. */
export type QueuedRun = z.output<typeof queuedRunSchema>;

export interface WaitOptions {
  /** Stops waiting (the run goes on; cancel it with `cancelRun`). */
  signal?: AbortSignal;
  /** Gives up after this long with an error; by default waits as long as the run takes. */
  timeoutMs?: number;
}

/** Asynchronous runs, on top of the one method per operation. */
export interface AsyncRunMethods {
  /**
   * Queues an execution as an asynchronous run (`Prefer: respond-async`) and answers at once with
   * its id. The Idempotency-Key the client sends makes a retried queueing replay the same run.
   */
  executeAsync<Name extends QueueableName>(operation: Name, input: OperationRequest<QueueableByName<Name>>, options?: CallOptions): Promise<QueuedRun>;
  /** Polls the run, waiting as long as each answer's Retry-After says, until it is completed, failed or cancelled. */
  waitForRun(runId: string, options?: WaitOptions): Promise<RunDetail>;
}

/** The flat request of each operation, by name. */
type RequestsByName = { [Op in KnownOperation as Op['name']]: OperationRequest<Op> };

/**
 * One method per API operation, `stream` with the streaming form of the executes (stream.ts), and
 * the asynchronous-run helpers.
 */
export type PorchClient = { [Op in KnownOperation as OperationId<Op['name']>]: OperationMethod<Op> } & {
  stream: PorchStreamClient<RequestsByName>;
} & AsyncRunMethods;

export interface RetryEvent {
  operation: string;
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before it (0 for the BILLING_FAILED retry after a balance check). */
  delayMs: number;
  error: PorchApiError;
  /** Credits the balance check saw (BILLING_FAILED only). */
  creditsRemaining?: number | null;
}

export interface PorchClientOptions {
  /** The API base, e.g. `http://127.0.0.1:3000/api/public/v1`, or the site root (the base is appended). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Called before every retry. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * The longest wait before a retry, in ms (default a minute). A 429 asking for longer (a daily
   * limit) fails at once with the error and its `retryAfter` instead of waiting for hours.
   */
  maxRetryDelayMs?: number;
}

const API_BASE_PATH = '/api/public/v1';
/** How long `waitForRun` waits between polls when an answer names no Retry-After. */
const DEFAULT_POLL_MS = 1_000;

function resolveBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_BASE_PATH) ? trimmed : `${trimmed}${API_BASE_PATH}`;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Waits, unless the signal fires first. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Splits the flat input: `{param}`s into the path, the rest into the query (GET) or the body. */
function buildRequest(route: ClientRoute, input: Record<string, unknown>): { path: string; query: URLSearchParams; body: Record<string, unknown> | undefined } {
  const rest: Record<string, unknown> = { ...input };
  const path = route.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`Missing path parameter "${name}".`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  if (route.method === 'GET' || route.method === 'DELETE') {
    for (const [name, value] of Object.entries(rest)) if (value !== undefined) query.set(name, String(value));
    return { path, query, body: undefined };
  }
  return { path, query, body: rest };
}

export function createPorchClient(options: PorchClientOptions): PorchClient {
  const base = resolveBase(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;

  async function send(
    route: ClientRoute,
    input: Record<string, unknown>,
    callOptions: CallOptions,
    idempotencyKey: string | undefined,
    accept = 'application/json',
  ): Promise<Response> {
    const { path, query, body } = buildRequest(route, input);
    const headers: Record<string, string> = { accept, 'x-api-key': options.apiKey, ...callOptions.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const search = query.toString();
    return fetchImpl(`${base}${path}${search ? `?${search}` : ''}`, {
      method: route.method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
  }

  /**
   * A cheap authenticated call whose X-Credits-Remaining tells the balance (any status carries
   * it), with the call's own headers, so a partner key reads the account it acts for.
   */
  async function creditsRemaining(callOptions: CallOptions): Promise<number | null> {
    const response = await fetchImpl(`${base}/context-cards?limit=1`, {
      headers: { ...callOptions.headers, 'x-api-key': options.apiKey },
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
    await response.body?.cancel();
    const header = response.headers.get('x-credits-remaining');
    return header === null ? null : Number(header);
  }

  /** Sends the call, retrying as the spec's rules say, and answers the successful response. */
  async function respond(name: string, route: ClientRoute, input: Record<string, unknown>, callOptions: CallOptions): Promise<Response> {
    const idempotencyKey = route.idempotent ? (callOptions.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const retries = new Map<string, number>();
    for (let attempt = 1; ; attempt += 1) {
      const response = await send(route, input, callOptions, idempotencyKey);
      if (response.ok) return response;
      const error = await readApiError(response);
      const kind = `${error.status}:${error.code}`;
      const decision = decideRetry(error, { retries: retries.get(kind) ?? 0, maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS });
      if (decision.action === 'stop') throw error;
      retries.set(kind, (retries.get(kind) ?? 0) + 1);
      if (decision.action === 'check-balance') {
        const credits = await creditsRemaining(callOptions);
        options.onRetry?.({ operation: name, attempt, delayMs: 0, error, creditsRemaining: credits });
        // With nothing left the retry can only fail again; the caller must add credits first.
        if (credits === 0) throw error;
        continue;
      }
      options.onRetry?.({ operation: name, attempt, delayMs: decision.delayMs, error });
      await wait(decision.delayMs, callOptions.signal);
    }
  }

  async function call(name: string, route: ClientRoute, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): Promise<unknown> {
    const response = await respond(name, route, input, callOptions);
    if (response.status === 204) return undefined;
    if (route.responseType === 'markdown') return response.text();
    return ((await response.json()) as { data: unknown }).data;
  }

  async function executeAsync(operation: string, input: Record<string, unknown>, callOptions: CallOptions = {}): Promise<unknown> {
    const name = operation.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    const route: ClientRoute | undefined = (CLIENT_ROUTES as Record<string, ClientRoute>)[name];
    if (!route?.queueable) throw new TypeError(`${operation} cannot be queued as an asynchronous run.`);
    return call(name, route, input, { ...callOptions, headers: { ...callOptions.headers, prefer: 'respond-async' } });
  }

  async function waitForRun(runId: string, waitOptions: WaitOptions = {}): Promise<RunDetail> {
    const signals = [waitOptions.signal, waitOptions.timeoutMs === undefined ? undefined : AbortSignal.timeout(waitOptions.timeoutMs)].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const callOptions = signal ? { signal } : {};
    for (;;) {
      const response = await respond('get_run', CLIENT_ROUTES.get_run, { id: runId }, callOptions);
      const run = ((await response.json()) as { data: RunDetail }).data;
      if (run.status !== 'queued' && run.status !== 'running') return run;
      const retryAfter = Number(response.headers.get('retry-after'));
      await wait(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : DEFAULT_POLL_MS, signal);
    }
  }

  const client: Record<string, (input?: Record<string, unknown>, callOptions?: CallOptions) => Promise<unknown>> = {};
  for (const [name, route] of Object.entries(CLIENT_ROUTES) as Array<[string, ClientRoute]>) {
    const methodName = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    client[methodName] = (input, callOptions) => call(name, route, input, callOptions);
  }
  const stream: Record<string, (input: Record<string, unknown>, streamOptions?: StreamOptions) => unknown> = {};
  const transport = {
    send: (route: ClientRoute, input: Record<string, unknown>, headers: Record<string, string>, signal: AbortSignal | undefined) => {
      const { accept = 'text/event-stream', 'idempotency-key': idempotencyKey, ...rest } = headers;
      return send(route, input, { headers: rest, ...(signal ? { signal } : {}) }, idempotencyKey, accept);
    },
  };
  for (const [name, route] of Object.entries(CLIENT_ROUTES) as Array<[string, ClientRoute]>) {
    if (route.streams === undefined) continue;
    const methodName = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    stream[methodName] = (input, streamOptions) => streamOperation(transport, route, input, streamOptions);
  }
  // The methods are built from the route table at run time; their types come from the operations.
  return { ...client, stream, executeAsync, waitForRun } as unknown as PorchClient;
}
