/**
 * Calls to one OpenAI-compatible provider through the official `openai` SDK, which owns the
 * call's policy: per-attempt timeout, retries with backoff for 408/409/429/5xx and connection
 * errors, and the caller's abort signal; its requests go over node:http (http-fetch.ts). This
 * file adds the parts Porch decides: which key, the output cap, structured output, usage
 * accounting and safe errors.
 */
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { httpFetch } from './http-fetch.js';
import { openAiSdk } from './openai-sdk.js';
import { z } from 'zod';

import { PorchError } from '../errors.js';
import { stoppedFromOutside } from '../telemetry/stopped-calls.js';
import { logFieldsOf, tracestateOf } from '../telemetry/telemetry.js';
import type { ProviderConfig } from './ai-config.js';
import { type AiLogger, type CompletionRequest, type CompletionResult, type CompletionStreamEvent, outputTokenCap, type TokenUsage } from './ai-types.js';
import { MalformedUpstreamResponseError, abortedError, describeUpstreamError, toUpstreamPorchError } from './provider-errors.js';
import { estimateChatTokens, estimateTextTokens } from './tokenizer.js';

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The SDK refuses to build a client without some key. For a provider configured without one
 * (a local server, or BYOK-only) it gets this stand-in, and the Authorization header is removed
 * from every request, so no made-up credential is ever sent.
 */
const KEYLESS_PLACEHOLDER = 'porch-keyless-provider';

/** Only the fields Porch reads; anything else the provider adds is ignored. */
const completionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          // Structured outputs put a refusal here instead of in content.
          refusal: z.string().nullable().optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z.unknown().optional(),
});

const usageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

/** One streamed chunk, only the fields Porch reads. The usage chunk has no choices. */
const chunkSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullable().optional(),
            refusal: z.string().nullable().optional(),
          })
          .optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .optional(),
  usage: z.unknown().optional(),
});

function toTokenUsage(raw: unknown): TokenUsage | null {
  const parsed = usageSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { prompt_tokens: input, completion_tokens: output } = parsed.data;
  // total = input + output always, so the ledger's three numbers can never disagree.
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}

/**
 * The W3C Trace Context headers of a call: its `traceparent`, and the caller's `tracestate`, which
 * a participant must pass on with it (any span of the request's trace carries it unchanged).
 */
function traceHeadersFor(request: CompletionRequest): { headers: Record<string, string> } | Record<string, never> {
  if (request.traceparent === undefined) return {};
  const tracestate = tracestateOf(request.scope?.span);
  return { headers: tracestate === undefined ? { traceparent: request.traceparent } : { traceparent: request.traceparent, tracestate } };
}

function buildClient(config: ProviderConfig, apiKey: string | null, fetchFunction: FetchFunction | undefined): OpenAI {
  return new (openAiSdk().OpenAI)({
    apiKey: apiKey ?? KEYLESS_PLACEHOLDER,
    baseURL: config.baseUrl,
    // Explicit nulls stop the SDK from picking up OPENAI_ORG_ID, OPENAI_PROJECT_ID and
    // OPENAI_ADMIN_KEY from the process: they belong to the operator's account and must not
    // travel with a BYOK key or to another provider.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    // The SDK logs to the console; Porch keeps stdout for the CLI and logs failures itself.
    logLevel: 'off',
    // node:http unless a caller (a test, a proxy) brings its own: see http-fetch.ts.
    fetch: fetchFunction ?? httpFetch,
    ...(apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
  });
}

export interface OpenAiCompatibleProviderOptions {
  config: ProviderConfig;
  /** The shared key read from config.apiKeyEnv; null for a keyless provider. */
  sharedApiKey: string | null;
  fetch?: FetchFunction | undefined;
  logger?: AiLogger | undefined;
}

export class OpenAiCompatibleProvider {
  readonly id: string;
  private readonly config: ProviderConfig;
  /** Built on the first call (see openai-sdk.ts). */
  private sharedClientInstance: OpenAI | undefined;
  private readonly sharedApiKey: string | null;
  private readonly fetchFunction: FetchFunction | undefined;
  private readonly logger: AiLogger | undefined;

  constructor(options: OpenAiCompatibleProviderOptions) {
    this.config = options.config;
    this.id = options.config.id;
    this.fetchFunction = options.fetch;
    this.logger = options.logger;
    this.sharedApiKey = options.sharedApiKey;
  }

  private get sharedClient(): OpenAI {
    this.sharedClientInstance ??= buildClient(this.config, this.sharedApiKey, this.fetchFunction);
    return this.sharedClientInstance;
  }

  /** The client of this call: the shared one, or a BYOK client that lives for one call. */
  private clientFor(request: CompletionRequest): OpenAI {
    if (request.byokApiKey !== undefined && request.byokApiKey.trim() === '') {
      // An empty stored key can only be rejected; say so without calling, and never fall back.
      throw new PorchError(
        'BYOK_KEY_INVALID',
        `Your own API key for the AI provider '${this.id}' is empty. Replace the BYOK key; Porch does not fall back to the shared gateway.`,
      );
    }
    // A BYOK client lives for one call: building one is cheap (connections are pooled by the
    // runtime, not the client) and the caller's key is not kept in memory after the call.
    return request.byokApiKey === undefined ? this.sharedClient : buildClient(this.config, request.byokApiKey, this.fetchFunction);
  }

  private modelUsed(request: CompletionRequest, upstreamModel: string | undefined): string {
    return `${this.id}/${upstreamModel !== undefined && upstreamModel !== '' ? upstreamModel : request.model.name}`;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const byok = request.byokApiKey !== undefined;
    const client = this.clientFor(request);

    let raw: unknown;
    try {
      raw = await client.chat.completions.create(this.buildBody(request), {
        signal: request.signal,
        // The caller's trace continues into a provider (or gateway) that speaks W3C Trace Context.
        ...traceHeadersFor(request),
      });
    } catch (err) {
      throw this.fail(err, request, byok);
    }
    const parsed = completionSchema.safeParse(raw);
    if (!parsed.success) {
      throw this.fail(new MalformedUpstreamResponseError('The completion did not have the expected shape.'), request, byok);
    }
    const choice = parsed.data.choices[0];
    const message = choice?.message;
    const content = message?.content ?? message?.refusal;
    if (content === undefined || content === null) {
      throw this.fail(new MalformedUpstreamResponseError('The completion carried no text.'), request, byok);
    }

    const upstreamUsage = usageSchema.safeParse(parsed.data.usage);
    // Some OpenAI-compatible servers omit usage; count with the tokenizer rather than bill zero.
    const inputTokens = upstreamUsage.success ? upstreamUsage.data.prompt_tokens : estimateChatTokens(request.messages);
    const outputTokens = upstreamUsage.success ? upstreamUsage.data.completion_tokens : estimateTextTokens(content);
    return {
      content,
      modelUsed: this.modelUsed(request, parsed.data.model),
      // total = input + output always, so the ledger's three numbers can never disagree.
      usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      finishReason: choice?.finish_reason ?? undefined,
    };
  }

  /**
   * The completion streamed (the SDK's SSE parsing), asking for the usage chunk OpenAI sends last
   * (`stream_options.include_usage`). Text is yielded as it arrives; a server that sends running
   * usage with every chunk has each one reported, so a call cut short still knows what it cost.
   * The abort signal stops the upstream request; the error it raises is mapped like any other.
   *
   * `timeout_ms` bounds the wait for each chunk too: the SDK's timeout ends when the answer's
   * headers arrive, and a provider that stalls after them would otherwise hold the call, its
   * credit reservation and the key's in-flight slot for as long as the client stays.
   */
  async *stream(request: CompletionRequest): AsyncGenerator<CompletionStreamEvent> {
    const byok = request.byokApiKey !== undefined;
    const client = this.clientFor(request);
    const body: ChatCompletionCreateParamsStreaming = { ...this.buildBody(request), stream: true, stream_options: { include_usage: true } };
    let usage: TokenUsage | null = null;
    let upstreamModel: string | undefined;
    /** The reason a choice ended with: a stream that stops without one was cut short. */
    let finishReason: string | undefined;
    const stalled = new AbortController();
    const stall = () =>
      new PorchError('AI_SERVICE_ERROR', `The AI provider '${this.id}' sent nothing for ${this.config.timeoutMs} ms mid-answer. Retry with backoff.`);
    let stallTimer: NodeJS.Timeout | undefined;
    const waitForNextChunk = () => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => stalled.abort(stall()), this.config.timeoutMs);
    };
    try {
      const chunks = await client.chat.completions.create(body, {
        signal: request.signal === undefined ? stalled.signal : AbortSignal.any([request.signal, stalled.signal]),
        ...traceHeadersFor(request),
      });
      // Timed while waiting on the provider only: not while the caller takes each event (a slow client, a scan).
      waitForNextChunk();
      for await (const raw of chunks) {
        clearTimeout(stallTimer);
        const chunk = chunkSchema.safeParse(raw);
        if (!chunk.success) throw new MalformedUpstreamResponseError('A streamed chunk did not have the expected shape.');
        if (chunk.data.model !== undefined && chunk.data.model !== '') upstreamModel = chunk.data.model;
        const choice = chunk.data.choices?.[0];
        if (typeof choice?.finish_reason === 'string' && choice.finish_reason !== '') finishReason = choice.finish_reason;
        const delta = choice?.delta;
        const text = delta?.content ?? delta?.refusal;
        if (typeof text === 'string' && text !== '') yield { type: 'delta', text };
        const reported = toTokenUsage(chunk.data.usage);
        if (reported !== null) {
          usage = reported;
          yield { type: 'usage', usage };
        }
        waitForNextChunk();
      }
      // The SDK ends a stream its signal aborted as if it had finished; it did not.
      if (request.signal?.aborted === true) throw abortedError(this.id, request.signal);
      if (stalled.signal.aborted) throw stalled.signal.reason;
      // A proxy that ends the connection cleanly mid-answer, or a server that answered with
      // something other than a stream (a JSON completion, an HTML page), leaves no finish reason:
      // that is a failure, never an answer to charge and store (regression: "done" with the part).
      if (finishReason === undefined) throw new MalformedUpstreamResponseError('The streamed completion ended before the model finished its answer.');
    } catch (err) {
      throw this.fail(request.signal?.aborted !== true && stalled.signal.aborted ? stalled.signal.reason : err, request, byok);
    } finally {
      clearTimeout(stallTimer);
    }
    yield { type: 'end', modelUsed: this.modelUsed(request, upstreamModel), usage, finishReason };
  }

  private buildBody(request: CompletionRequest): ChatCompletionCreateParamsNonStreaming {
    const maxOutputTokens = outputTokenCap(request);
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: request.model.name,
      messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    };
    if (this.config.outputTokensParameter === 'max_completion_tokens') {
      body.max_completion_tokens = maxOutputTokens;
    } else {
      body.max_tokens = maxOutputTokens;
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.responseFormat !== undefined) {
      body.response_format = {
        type: 'json_schema',
        json_schema: {
          name: request.responseFormat.name,
          schema: request.responseFormat.schema,
          strict: request.responseFormat.strict ?? true,
        },
      };
    }
    return body;
  }

  private fail(err: unknown, request: CompletionRequest, byok: boolean): PorchError {
    const error = toUpstreamPorchError(err, {
      provider: this.id,
      byok,
      timeoutMs: this.config.timeoutMs,
      signal: request.signal,
    });
    const details = { ...logFieldsOf(request.scope), provider: this.id, model: request.model.id, byok, code: error.code, ...describeUpstreamError(err) };
    if (stoppedFromOutside(request.signal)) {
      // Stopped from outside (the client went away, the run was cancelled): not the provider's failure.
      this.logger?.debug(details, `AI provider '${this.id}' call stopped`);
    } else if (error.code === 'AI_SERVICE_ERROR' && !byok && err instanceof openAiSdk().APIError && (err.status === 401 || err.status === 403)) {
      // The shared key itself is bad: every caller fails until the operator fixes it.
      const keySource = this.config.apiKeyEnv ?? 'no key configured';
      this.logger?.error({ ...details, keySource }, `AI provider '${this.id}' rejected the shared API key`);
    } else {
      this.logger?.warn(details, `AI provider '${this.id}' call failed`);
    }
    return error;
  }
}
