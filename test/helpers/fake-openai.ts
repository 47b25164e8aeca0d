/**
 * A fake OpenAI-compatible server for tests, on 127.0.0.1 with node:http, so the real `openai`
 * SDK path (HTTP, retries, timeouts, auth headers) runs in tests without a network or a key.
 * Each reply is scriptable; every request is recorded with its headers and parsed body.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/chat/completions". */
  path: string;
  headers: IncomingHttpHeaders;
  /** The Authorization header as sent, e.g. "Bearer sk-...", or undefined. */
  authorization: string | undefined;
  /** The JSON body parsed, or the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What the fake answers to one request. Every field is optional; {} is the default behaviour. */
export interface FakeReply {
  /** HTTP status; 200 by default. Non-2xx answers carry an OpenAI-shaped error body. */
  status?: number;
  /** Fixed assistant content; default "echo: " + the last user message. */
  content?: string;
  /** Fixed usage, or "omit" to leave the usage field out; default: word counts. */
  usage?: FakeUsage | 'omit';
  /** Model name reported back; default: the requested model. */
  model?: string;
  /** Body of an error answer; default { error: { message, type, code } } with a marker text. */
  errorBody?: unknown;
  /** Extra response headers, e.g. { 'retry-after': '1' }. */
  headers?: Record<string, string>;
  /**
   * Milliseconds the SDK is told to wait before retrying this error (header retry-after-ms).
   * Default 0 for error answers, so retry tests do not wait out the SDK's backoff; set null to
   * send no such header and let the SDK use its own backoff (or a given retry-after).
   */
  retryAfterMs?: number | null;
  /** Wait this long before answering (slow upstream); cancelled by close(). */
  delayMs?: number;
  /** Send this text as the body verbatim (malformed JSON tests), with status and content type JSON. */
  rawBody?: string;
  /**
   * Streamed requests (`stream: true`) only: how the content is cut into chunks (default: a word
   * per chunk, with the whitespace after it), or the chunks themselves.
   */
  chunks?: readonly string[];
  /** Streamed requests: wait this long between chunks (a slow model); cancelled by close(). */
  chunkDelayMs?: number;
  /**
   * Streamed requests: where the usage goes. `last` (default) sends OpenAI's usage chunk when the
   * request asked for it (`stream_options.include_usage`); `every-chunk` puts the running usage on
   * every chunk (as vLLM's continuous usage stats do), the final figure included; `none` never
   * reports usage (servers that ignore stream_options). `usage: 'omit'` also means none.
   */
  streamUsage?: 'last' | 'every-chunk' | 'none';
  /** Streamed requests: after this many content chunks, end the connection abruptly (an upstream dying mid-stream). */
  dropAfterChunks?: number;
  /** Streamed requests: after this many content chunks, end the response cleanly, with no finish reason nor [DONE] (a proxy cutting the answer short). */
  endAfterChunks?: number;
}

export type FakeBehaviour = FakeReply | ((request: RecordedRequest, index: number) => FakeReply);

export interface FakeOpenAi {
  /** Base URL including /v1, as a provider's base_url. */
  baseUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Replaces the reply script; a function is called per request with its 0-based index. */
  setBehaviour(behaviour: FakeBehaviour): void;
  /** Resolves once at least `count` requests have been received (no polling, no sleeping). */
  waitForRequests(count: number): Promise<void>;
  /**
   * Streamed requests whose connection closed before the stream ended (the caller went away),
   * by request index; `waitForClosedStreams` resolves once at least `count` did.
   */
  closedStreams: number[];
  waitForClosedStreams(count: number): Promise<void>;
  /** Stops listening, cancels pending delayed answers and drops open connections. */
  close(): Promise<void>;
}

/** Text placed in default error bodies so tests can assert it never reaches callers. */
export const UPSTREAM_ERROR_MARKER = 'fake-upstream-error-body';

export interface StartFakeOpenAiOptions {
  /** Model names listed by GET /v1/models. */
  models?: readonly string[];
}

const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'] as const;

function wordCount(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messagesOf(body: unknown): { role: string; content: string }[] {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter(isRecord).map((message) => ({
    role: typeof message.role === 'string' ? message.role : '',
    content: typeof message.content === 'string' ? message.content : '',
  }));
}

function errorTypeFor(status: number): { type: string; code: string } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 403) return { type: 'invalid_request_error', code: 'unsupported_country_region_territory' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: 'server_error' };
  return { type: 'invalid_request_error', code: 'invalid_request' };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startFakeOpenAi(options: StartFakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const listedModels = options.models ?? DEFAULT_MODELS;
  const requests: RecordedRequest[] = [];
  const pendingTimers = new Set<NodeJS.Timeout>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let behaviour: FakeBehaviour = {};
  let completionCount = 0;

  function record(request: RecordedRequest): void {
    requests.push(request);
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  const closedStreams: number[] = [];
  const closedWaiters: { count: number; resolve: () => void }[] = [];
  function streamClosedEarly(index: number): void {
    closedStreams.push(index);
    for (const waiter of [...closedWaiters]) {
      if (closedStreams.length >= waiter.count) {
        closedWaiters.splice(closedWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  /**
   * A streamed completion as OpenAI sends it: `data:` lines of chat.completion.chunk objects, the
   * usage chunk (empty choices) when asked for, then `data: [DONE]`.
   */
  function streamCompletion(res: ServerResponse, request: RecordedRequest, reply: FakeReply, index: number): void {
    const body = isRecord(request.body) ? request.body : {};
    const messages = messagesOf(body);
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const content = reply.content ?? `echo: ${lastUser?.content ?? ''}`;
    const chunks = reply.chunks ?? content.match(/\s*\S+\s*/g) ?? [];
    const promptTokens = messages.reduce((sum, message) => sum + wordCount(message.content), 0);
    const fullUsage =
      reply.usage === 'omit'
        ? undefined
        : (reply.usage ?? { prompt_tokens: promptTokens, completion_tokens: wordCount(content), total_tokens: promptTokens + wordCount(content) });
    const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
    const usageMode = fullUsage === undefined ? 'none' : (reply.streamUsage ?? 'last');
    const model = reply.model ?? (typeof body.model === 'string' ? body.model : 'unknown');
    completionCount += 1;
    const id = `chatcmpl-fake-${completionCount}`;
    const chunk = (choices: unknown[], usage?: FakeUsage) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_780_000_000, model, choices, ...(usage ? { usage } : {}) })}\n\n`;
    const runningUsage = (produced: number): FakeUsage | undefined => {
      if (usageMode !== 'every-chunk' || fullUsage === undefined) return undefined;
      const completion = Math.round((fullUsage.completion_tokens * produced) / Math.max(1, chunks.length));
      return { prompt_tokens: fullUsage.prompt_tokens, completion_tokens: completion, total_tokens: fullUsage.prompt_tokens + completion };
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    let finished = false;
    res.on('close', () => {
      if (!finished) streamClosedEarly(index);
    });
    let sent = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (reply.dropAfterChunks !== undefined && sent >= reply.dropAfterChunks) {
        res.destroy();
        return;
      }
      if (reply.endAfterChunks !== undefined && sent >= reply.endAfterChunks) {
        finished = true;
        res.end();
        return;
      }
      const text = chunks[sent];
      if (text !== undefined) {
        const first = sent === 0;
        sent += 1;
        res.write(
          chunk(
            [{ index: 0, delta: first ? { role: 'assistant', content: text } : { content: text }, finish_reason: null, logprobs: null }],
            runningUsage(sent),
          ),
        );
        schedule();
        return;
      }
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }], runningUsage(sent)));
      if (usageMode === 'last' && streamOptions.include_usage === true && fullUsage !== undefined) res.write(chunk([], fullUsage));
      finished = true;
      res.end('data: [DONE]\n\n');
    };
    const schedule = (): void => {
      const delay = reply.chunkDelayMs ?? 0;
      if (delay <= 0) {
        setImmediate(next);
        return;
      }
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        next();
      }, delay);
      pendingTimers.add(timer);
    };
    next();
  }

  function answerCompletion(res: ServerResponse, request: RecordedRequest, reply: FakeReply, index: number): void {
    const status = reply.status ?? 200;
    const headers: Record<string, string> = { ...reply.headers };
    if (status >= 400 && reply.retryAfterMs !== null) {
      headers['retry-after-ms'] = String(reply.retryAfterMs ?? 0);
    }
    if (reply.rawBody !== undefined) {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(reply.rawBody);
      return;
    }
    if (status >= 400) {
      const body = reply.errorBody ?? {
        error: { message: `${UPSTREAM_ERROR_MARKER} (HTTP ${status})`, ...errorTypeFor(status), param: null },
      };
      sendJson(res, status, body, headers);
      return;
    }
    const body = isRecord(request.body) ? request.body : {};
    if (body.stream === true) {
      streamCompletion(res, request, reply, index);
      return;
    }
    const messages = messagesOf(body);
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const content = reply.content ?? `echo: ${lastUser?.content ?? ''}`;
    const promptTokens = messages.reduce((sum, message) => sum + wordCount(message.content), 0);
    const completionTokens = wordCount(content);
    const usage = reply.usage ?? { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    completionCount += 1;
    sendJson(
      res,
      status,
      {
        id: `chatcmpl-fake-${completionCount}`,
        object: 'chat.completion',
        created: 1_780_000_000,
        model: reply.model ?? (typeof body.model === 'string' ? body.model : 'unknown'),
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        ...(usage === 'omit' ? {} : { usage }),
      },
      headers,
    );
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        authorization: req.headers.authorization,
        body,
      };
      const index = requests.length;
      record(recorded);

      if (req.method === 'GET' && path === '/v1/models') {
        sendJson(res, 200, {
          object: 'list',
          data: listedModels.map((id) => ({ id, object: 'model', created: 1_780_000_000, owned_by: 'fake' })),
        });
        return;
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        sendJson(res, 404, { error: { message: `No route ${req.method ?? ''} ${path}`, type: 'invalid_request_error', code: null } });
        return;
      }
      const reply = typeof behaviour === 'function' ? behaviour(recorded, index) : behaviour;
      if (reply.delayMs !== undefined && reply.delayMs > 0) {
        const timer = setTimeout(() => {
          pendingTimers.delete(timer);
          if (!res.destroyed) answerCompletion(res, recorded, reply, index);
        }, reply.delayMs);
        pendingTimers.add(timer);
        return;
      }
      answerCompletion(res, recorded, reply, index);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('The fake OpenAI server has no TCP address.');

  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    requests,
    setBehaviour(next: FakeBehaviour): void {
      behaviour = next;
    },
    waitForRequests(count: number): Promise<void> {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    closedStreams,
    waitForClosedStreams(count: number): Promise<void> {
      if (closedStreams.length >= count) return Promise.resolve();
      return new Promise((resolve) => closedWaiters.push({ count, resolve }));
    },
    async close(): Promise<void> {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      // Keep-alive connections of the SDK's fetch would otherwise hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}

export interface FakeProviderOptions {
  region?: string;
  timeoutMs?: number;
  models?: ReadonlyArray<Record<string, unknown>>;
}

/**
 * The `ai` section of a porch.config.yaml whose one provider, `fake`, is this fake upstream and
 * whose default model is `fake/fast`; the key is read from FAKE_PROVIDER_KEY.
 */
export function fakeProviderAiConfig(fake: Pick<FakeOpenAi, 'baseUrl'>, options: FakeProviderOptions = {}): Record<string, unknown> {
  return {
    default_model: 'fake/fast',
    providers: [
      {
        id: 'fake',
        base_url: fake.baseUrl,
        api_key_env: 'FAKE_PROVIDER_KEY',
        region: options.region ?? 'us',
        timeout_ms: options.timeoutMs ?? 5_000,
        max_retries: 0,
        models: options.models ?? [{ name: 'fast', max_output_tokens: 200 }],
      },
    ],
  };
}
