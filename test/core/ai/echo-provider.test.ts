import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';

import { parseAiConfig } from '../../../src/core/ai/ai-config.js';
import { createAiGateway } from '../../../src/core/ai/ai-gateway.js';
import type { ChatMessage } from '../../../src/core/ai/ai-types.js';
import { PorchError } from '../../../src/core/errors.js';

const gateway = createAiGateway({ config: parseAiConfig(undefined, {}), env: {} });
const echo = gateway.resolveModel({ plan: 'free', euOnly: false });

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You are a careful reviewer.' },
  { role: 'user', content: 'First question?' },
  { role: 'assistant', content: 'First answer.' },
  { role: 'user', content: 'Review this paragraph:\n\nThe quick brown fox jumps over the lazy dog.' },
];

describe('echo provider', () => {
  it('answers with the last user message verbatim, as model echo/echo', async () => {
    const result = await gateway.complete({ model: echo, messages: MESSAGES });
    expect(result.content).toBe('Review this paragraph:\n\nThe quick brown fox jumps over the lazy dog.');
    expect(result.modelUsed).toBe('echo/echo');
  });

  it('reports usage counted with the o200k tokenizer, including chat overhead', async () => {
    const result = await gateway.complete({ model: echo, messages: MESSAGES });
    // Independent count: 3 framing tokens + role + content per message, 3 for reply priming.
    const expectedInput = 3 + MESSAGES.reduce((sum, message) => sum + 3 + encode(message.role).length + encode(message.content).length, 0);
    const expectedOutput = encode(result.content).length;
    expect(result.usage).toEqual({
      input_tokens: expectedInput,
      output_tokens: expectedOutput,
      total_tokens: expectedInput + expectedOutput,
    });
    expect(result.usage.input_tokens).toBe(gateway.estimateTokens(MESSAGES));
  });

  it('is deterministic: the same request gives the same result', async () => {
    const first = await gateway.complete({ model: echo, messages: MESSAGES });
    const second = await gateway.complete({ model: echo, messages: MESSAGES, temperature: 1 });
    expect(second).toEqual(first);
  });

  it('keeps the full answer beyond the output cap but counts its tokens honestly', async () => {
    // Over the output cap, and under the length that is estimated rather than counted.
    const longInput = 'word '.repeat(1500);
    const result = await gateway.complete({ model: echo, messages: [{ role: 'user', content: longInput }], maxOutputTokens: 10 });
    expect(result.content).toBe(longInput);
    expect(result.usage.output_tokens).toBe(encode(longInput).length);
    expect(result.usage.output_tokens).toBeGreaterThan(echo.maxOutputTokens);
  });

  it('answers empty when there is no user message', async () => {
    const result = await gateway.complete({ model: echo, messages: [{ role: 'system', content: 'Only a system prompt.' }] });
    expect(result.content).toBe('');
    expect(result.usage.output_tokens).toBe(0);
  });

  it('ignores a BYOK key: it calls nothing', async () => {
    const result = await gateway.complete({ model: echo, messages: MESSAGES, byokApiKey: 'sk-byok-unused' });
    expect(result.content).toContain('quick brown fox');
  });

  it('refuses to run when the caller has already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await gateway.complete({ model: echo, messages: MESSAGES, signal: controller.signal }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PorchError);
    expect(error).toMatchObject({ code: 'AI_SERVICE_ERROR' });
  });
});

describe('echo provider, streamed', () => {
  it('streams the same answer a word at a time, then the same usage as the whole call', async () => {
    const whole = await gateway.complete({ model: echo, messages: MESSAGES });
    const deltas: string[] = [];
    let end: unknown;
    for await (const event of gateway.stream({ model: echo, messages: MESSAGES })) {
      if (event.type === 'delta') deltas.push(event.text);
      else if (event.type === 'end') end = event;
    }
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(whole.content);
    expect(end).toEqual({ type: 'end', modelUsed: 'echo/echo', usage: whole.usage });
  });

  it('stops at the next chunk once its signal aborts, with AI_SERVICE_ERROR', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const event of gateway.stream({ model: echo, messages: MESSAGES, signal: controller.signal })) {
        if (event.type === 'delta') seen.push(event.text);
        controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'AI_SERVICE_ERROR' });
    expect(seen).toHaveLength(1);
  });
});
