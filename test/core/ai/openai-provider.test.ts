import { Writable } from 'node:stream';
import { inspect } from 'node:util';

import { openAiSdk } from '../../../src/core/ai/openai-sdk.js';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { parseAiConfig } from '../../../src/core/ai/ai-config.js';
import { createAiGateway, type AiGateway } from '../../../src/core/ai/ai-gateway.js';
import type { AiLogger, ChatMessage, CompletionRequest, ResolvedModel } from '../../../src/core/ai/ai-types.js';
import { PorchError } from '../../../src/core/errors.js';
import { UPSTREAM_ERROR_MARKER, startFakeOpenAi, type FakeOpenAi } from '../../helpers/fake-openai.js';

const SHARED_KEY = 'sk-gateway-shared-7f3a9c1e5b2d4f60';
const BYOK_KEY = 'sk-byok-caller-owned-0d8e2a4c6b1f3e57';
const KEY_ENV = 'FAKE_OPENAI_API_KEY';
const MODEL_CAP = 512;

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Summarise the release notes' },
];

interface ProviderOverrides {
  max_retries?: number;
  timeout_ms?: number;
  output_tokens_parameter?: 'max_tokens' | 'max_completion_tokens';
  /** null: configure the provider without a key. */
  api_key_env?: string | null;
  base_url?: string;
}

interface Harness {
  gateway: AiGateway;
  model: ResolvedModel;
  logLines: string[];
}

function buildHarness(baseUrl: string, overrides: ProviderOverrides = {}): Harness {
  const { api_key_env: apiKeyEnv = KEY_ENV, ...rest } = overrides;
  const config = parseAiConfig(
    {
      providers: [
        {
          id: 'openai',
          base_url: baseUrl,
          region: 'us',
          max_retries: 0,
          timeout_ms: 5_000,
          ...(apiKeyEnv === null ? {} : { api_key_env: apiKeyEnv }),
          ...rest,
          models: [{ name: 'gpt-4o-mini', plans: ['expert'], max_output_tokens: MODEL_CAP }],
        },
      ],
    },
    { [KEY_ENV]: SHARED_KEY },
  );
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger: AiLogger = pino({ level: 'warn' }, sink);
  const gateway = createAiGateway({ config, env: { [KEY_ENV]: SHARED_KEY }, logger });
  const model = gateway.resolveModel({ requested: 'openai/gpt-4o-mini', plan: 'expert', euOnly: false });
  return { gateway, model, logLines };
}

async function failureOf(promise: Promise<unknown>): Promise<PorchError> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.err instanceof PorchError)) throw outcome.err;
  return outcome.err;
}

/** What a caller can see must never carry a key or the upstream's body. */
function expectSafe(error: PorchError): void {
  const visible = JSON.stringify({ message: error.message, details: error.details, code: error.code });
  for (const secret of [SHARED_KEY, BYOK_KEY, UPSTREAM_ERROR_MARKER]) {
    expect(visible, visible).not.toContain(secret);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requestBody(fake: FakeOpenAi, index: number): Record<string, unknown> {
  const body = fake.requests[index]?.body;
  if (!isRecord(body)) throw new Error(`request ${index} had no JSON body`);
  return body;
}

describe('OpenAI-compatible provider over HTTP', () => {
  let fake: FakeOpenAi;

  beforeEach(async () => {
    fake = await startFakeOpenAi();
  });

  afterEach(async () => {
    await fake.close();
  });

  describe('successful calls', () => {
    it('returns the upstream content, usage and reported model, sent with the shared key', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      fake.setBehaviour({
        content: 'Three fixes and one feature.',
        usage: { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 },
        model: 'gpt-4o-mini-2024-07-18',
      });

      const result = await gateway.complete({ model, messages: MESSAGES });

      expect(result).toEqual({
        content: 'Three fixes and one feature.',
        modelUsed: 'openai/gpt-4o-mini-2024-07-18',
        usage: { input_tokens: 21, output_tokens: 7, total_tokens: 28 },
        finishReason: 'stop',
      });
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]?.path).toBe('/v1/chat/completions');
      expect(fake.requests[0]?.authorization).toBe(`Bearer ${SHARED_KEY}`);
      const body = requestBody(fake, 0);
      expect(body.model).toBe('gpt-4o-mini');
      expect(body.messages).toEqual(MESSAGES);
      expect(body.max_tokens).toBe(MODEL_CAP);
      expect(body).not.toHaveProperty('response_format');
      expect(body).not.toHaveProperty('temperature');
    });

    it('uses the default reply of the fake: content derived from the last user message', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      const result = await gateway.complete({ model, messages: MESSAGES });
      expect(result.content).toBe('echo: Summarise the release notes');
      // The fake counts words: 3 + 4 prompt words, 5 answer words.
      expect(result.usage).toEqual({ input_tokens: 7, output_tokens: 5, total_tokens: 12 });
      expect(result.modelUsed).toBe('openai/gpt-4o-mini');
    });

    it('sends the requested output cap and temperature, clamping the cap to the model limit', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      await gateway.complete({ model, messages: MESSAGES, maxOutputTokens: 100, temperature: 0.2 });
      await gateway.complete({ model, messages: MESSAGES, maxOutputTokens: 100_000 });
      expect(requestBody(fake, 0)).toMatchObject({ max_tokens: 100, temperature: 0.2 });
      expect(requestBody(fake, 1).max_tokens).toBe(MODEL_CAP);
    });

    it('uses max_completion_tokens when the provider is configured for it', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { output_tokens_parameter: 'max_completion_tokens' });
      await gateway.complete({ model, messages: MESSAGES, maxOutputTokens: 64 });
      const body = requestBody(fake, 0);
      expect(body.max_completion_tokens).toBe(64);
      expect(body).not.toHaveProperty('max_tokens');
    });

    it('passes a json_schema response format through to the provider (strict by default)', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      const schema = {
        type: 'object',
        properties: { score: { type: 'number' }, reasoning: { type: 'string' } },
        required: ['score', 'reasoning'],
        additionalProperties: false,
      };
      fake.setBehaviour({ content: '{"score":82,"reasoning":"clear"}' });
      const result = await gateway.complete({
        model,
        messages: MESSAGES,
        responseFormat: { type: 'json_schema', name: 'judge_verdict', schema },
      });
      expect(JSON.parse(result.content)).toEqual({ score: 82, reasoning: 'clear' });
      expect(requestBody(fake, 0).response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'judge_verdict', schema, strict: true },
      });
    });

    it('counts usage with the tokenizer when the upstream omits it', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      fake.setBehaviour({ content: 'Counted locally, not upstream.', usage: 'omit' });
      const result = await gateway.complete({ model, messages: MESSAGES });
      const expectedInput = gateway.estimateTokens(MESSAGES);
      const expectedOutput = gateway.countTokens('Counted locally, not upstream.');
      expect(expectedOutput).toBeGreaterThan(0);
      expect(result.usage).toEqual({
        input_tokens: expectedInput,
        output_tokens: expectedOutput,
        total_tokens: expectedInput + expectedOutput,
      });
    });

    it('retries a 503 through the SDK and returns the later success', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 2 });
      fake.setBehaviour((_request, index) => (index === 0 ? { status: 503 } : { content: 'recovered' }));
      const result = await gateway.complete({ model, messages: MESSAGES });
      expect(result.content).toBe('recovered');
      expect(fake.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
    });

    it('does not send the operator organisation from OPENAI_ORG_ID with any call', async () => {
      const previous = process.env.OPENAI_ORG_ID;
      process.env.OPENAI_ORG_ID = 'org-operator-private';
      try {
        const { gateway, model } = buildHarness(fake.baseUrl);
        await gateway.complete({ model, messages: MESSAGES });
        await gateway.complete({ model, messages: MESSAGES, byokApiKey: BYOK_KEY });
      } finally {
        if (previous === undefined) delete process.env.OPENAI_ORG_ID;
        else process.env.OPENAI_ORG_ID = previous;
      }
      expect(fake.requests.map((request) => request.headers['openai-organization'])).toEqual([undefined, undefined]);
    });

    it('sends no Authorization header for a provider configured without a key', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { api_key_env: null });
      await gateway.complete({ model, messages: MESSAGES });
      expect(fake.requests[0]?.authorization).toBeUndefined();
    });
  });

  describe('upstream failures', () => {
    it('turns a 500 into AI_SERVICE_ERROR after the SDK retries (max_retries 1: two requests)', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 1 });
      fake.setBehaviour({ status: 500 });

      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));

      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.status).toBe(500);
      expect(error.message).toBe("The AI provider 'openai' failed (HTTP 500). Retry with backoff.");
      expect(fake.requests).toHaveLength(2);
      expect(error.cause).toBeInstanceOf(openAiSdk().APIError);
      expectSafe(error);
    });

    it('makes max_retries + 1 attempts for a persistent 503', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 2 });
      fake.setBehaviour({ status: 503 });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.message).toBe("The AI provider 'openai' failed (HTTP 503). Retry with backoff.");
      expect(fake.requests).toHaveLength(3);
    });

    it('turns a 429 with retry-after into AI_SERVICE_ERROR naming the rate limit', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 0 });
      fake.setBehaviour({ status: 429, headers: { 'retry-after': '20' }, retryAfterMs: null });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The AI provider 'openai' is rate limiting requests (HTTP 429). Retry with backoff.");
      expect(fake.requests).toHaveLength(1);
      expectSafe(error);
    });

    it('turns a malformed JSON answer into AI_SERVICE_ERROR without retrying', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 2 });
      fake.setBehaviour({ rawBody: '{"choices": [ {"message": ' });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The AI provider 'openai' returned an invalid response. Retry with backoff.");
      expect(fake.requests).toHaveLength(1);
    });

    it('turns a JSON answer without choices into AI_SERVICE_ERROR', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      fake.setBehaviour({ rawBody: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [] }) });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.message).toBe("The AI provider 'openai' returned an invalid response. Retry with backoff.");
    });

    it('turns a refused connection into AI_SERVICE_ERROR', async () => {
      const closed = await startFakeOpenAi();
      const deadUrl = closed.baseUrl;
      await closed.close();
      const { gateway, model } = buildHarness(deadUrl);
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The AI provider 'openai' could not be reached. Retry with backoff.");
    });

    it('gives up on a slow upstream after timeout_ms, quickly', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { timeout_ms: 150, max_retries: 0 });
      fake.setBehaviour({ delayMs: 30_000 });
      const started = performance.now();
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      const elapsedMs = performance.now() - started;
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The AI provider 'openai' did not answer within 150 ms. Retry with backoff.");
      expect(elapsedMs).toBeLessThan(5_000);
    });

    it('gives up on a stream that stalls after its first chunk, after timeout_ms without a chunk (regression: held for good)', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { timeout_ms: 200 });
      fake.setBehaviour({ chunks: ['First ', 'second'], chunkDelayMs: 30_000 });
      const seen: string[] = [];
      const started = performance.now();
      const error = await failureOf(
        (async () => {
          for await (const event of gateway.stream({ model, messages: MESSAGES })) if (event.type === 'delta') seen.push(event.text);
        })(),
      );
      expect(seen).toEqual(['First ']);
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The AI provider 'openai' sent nothing for 200 ms mid-answer. Retry with backoff.");
      expect(performance.now() - started).toBeLessThan(5_000);
      await fake.waitForClosedStreams(1);
    });

    it('times only the provider: a caller slower than timeout_ms to take each chunk keeps its stream', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { timeout_ms: 100 });
      fake.setBehaviour({ chunks: ['one ', 'two ', 'three'] });
      const seen: string[] = [];
      for await (const event of gateway.stream({ model, messages: MESSAGES })) {
        if (event.type !== 'delta') continue;
        seen.push(event.text);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(seen.join('')).toBe('one two three');
    });

    it("stops when the caller's signal aborts, without waiting for the upstream", async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 2 });
      fake.setBehaviour({ delayMs: 30_000 });
      const controller = new AbortController();
      const pending = failureOf(gateway.complete({ model, messages: MESSAGES, signal: controller.signal }));
      await fake.waitForRequests(1);
      controller.abort();
      const error = await pending;
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe("The call to the AI provider 'openai' was stopped before it finished.");
      expect(fake.requests).toHaveLength(1);
    });

    it('says "timed out" when the caller aborts with a deadline signal', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      fake.setBehaviour({ delayMs: 30_000 });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES, signal: AbortSignal.timeout(100) }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toContain('timed out');
    });

    it('says a refused request (HTTP 400, 404, 422) will fail again, rather than to retry it (regression: agents retried a 400 three times)', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 2 });
      for (const status of [400, 404, 422]) {
        fake.setBehaviour({ status });
        const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
        expect(error.message, String(status)).toBe(
          `The AI provider 'openai' refused the request (HTTP ${status}); check the model and the input, as the same request is likely to be refused again.`,
        );
      }
    });

    it('reports a rejected shared key as AI_SERVICE_ERROR and logs it for the operator without the key', async () => {
      const { gateway, model, logLines } = buildHarness(fake.baseUrl, { max_retries: 2 });
      fake.setBehaviour({ status: 401 });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(error.message).toBe(
        "The AI provider 'openai' refused the request (HTTP 401); the server's key for it was not accepted: the operator must fix it.",
      );
      expect(fake.requests).toHaveLength(1);
      expectSafe(error);
      const log = logLines.join('');
      expect(log).toContain('rejected the shared API key');
      expect(log).toContain(KEY_ENV);
      expect(log).toContain('invalid_api_key');
      expect(log).not.toContain(SHARED_KEY);
      expect(log).not.toContain(UPSTREAM_ERROR_MARKER);
    });
  });

  describe('BYOK', () => {
    it('sends the caller key instead of the shared key, and only for that call', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      await gateway.complete({ model, messages: MESSAGES, byokApiKey: BYOK_KEY });
      await gateway.complete({ model, messages: MESSAGES });
      expect(fake.requests.map((request) => request.authorization)).toEqual([`Bearer ${BYOK_KEY}`, `Bearer ${SHARED_KEY}`]);
    });

    for (const status of [401, 403]) {
      it(`turns a ${status} under BYOK into 502 BYOK_KEY_INVALID after exactly one request with the caller key`, async () => {
        const { gateway, model, logLines } = buildHarness(fake.baseUrl, { max_retries: 2 });
        fake.setBehaviour({ status });

        const request: CompletionRequest = { model, messages: MESSAGES, byokApiKey: BYOK_KEY };
        const error = await failureOf(gateway.complete(request));

        expect(error.code).toBe('BYOK_KEY_INVALID');
        expect(error.status).toBe(502);
        expect(error.message).toBe(
          `The AI provider 'openai' rejected your own API key (HTTP ${status}). Replace the BYOK key; Porch does not fall back to the shared gateway.`,
        );
        // No fallback: one request, and it carried the caller's key, never the gateway's.
        expect(fake.requests).toHaveLength(1);
        expect(fake.requests[0]?.authorization).toBe(`Bearer ${BYOK_KEY}`);
        expectSafe(error);
        expect(logLines.join('')).not.toContain(BYOK_KEY);
        // The cause is logged by the error handler, so it must not hold the key either.
        expect(inspect(error.cause, { depth: 8 })).not.toContain(BYOK_KEY);
      });
    }

    it('still reports other upstream failures under BYOK as AI_SERVICE_ERROR', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl, { max_retries: 1 });
      fake.setBehaviour({ status: 500 });
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES, byokApiKey: BYOK_KEY }));
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(fake.requests.map((request) => request.authorization)).toEqual([`Bearer ${BYOK_KEY}`, `Bearer ${BYOK_KEY}`]);
    });

    it('rejects an empty BYOK key without calling the provider or falling back', async () => {
      const { gateway, model } = buildHarness(fake.baseUrl);
      const error = await failureOf(gateway.complete({ model, messages: MESSAGES, byokApiKey: '  ' }));
      expect(error.code).toBe('BYOK_KEY_INVALID');
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('the fake server', () => {
    it('lists models on GET /v1/models', async () => {
      const response = await fetch(`${fake.baseUrl}/models`);
      const body: unknown = await response.json();
      expect(body).toMatchObject({ object: 'list', data: [{ id: 'gpt-4o-mini' }, { id: 'gpt-4o' }, { id: 'gpt-4.1-mini' }] });
    });

    it('cancels a delayed answer on close, so a slow test cannot hang the suite', async () => {
      const slow = await startFakeOpenAi();
      slow.setBehaviour({ delayMs: 60_000 });
      const { gateway, model } = buildHarness(slow.baseUrl, { timeout_ms: 60_000 });
      const pending = failureOf(gateway.complete({ model, messages: MESSAGES }));
      await slow.waitForRequests(1);
      const started = performance.now();
      await slow.close();
      const error = await pending;
      expect(error.code).toBe('AI_SERVICE_ERROR');
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
});
