/**
 * A streamed provider call as telemetry reports it (core/telemetry/instrument.ts): its metric
 * event and span when the stream ends, when it fails, and when its reader stops before its end.
 */
import { describe, expect, it } from 'vitest';
import type { AiGateway } from '../../../src/core/ai/ai-gateway.js';
import type { CompletionRequest, CompletionStreamEvent } from '../../../src/core/ai/ai-types.js';
import { instrumentAiGateway } from '../../../src/core/telemetry/instrument.js';
import { createTelemetry, type ModelCallEvent, NO_EVENTS } from '../../../src/core/telemetry/telemetry.js';

const REQUEST: CompletionRequest = {
  model: { id: 'fake/fast', provider: 'fake', name: 'fast', maxOutputTokens: 100, region: 'us', source: 'configured-default' },
  messages: [{ role: 'user', content: 'Hi' }],
};

function gatewayStreaming(events: CompletionStreamEvent[], failAfter?: Error): AiGateway {
  return {
    async *stream() {
      for (const event of events) yield event;
      if (failAfter) throw failAfter;
    },
  } as unknown as AiGateway;
}

function recorded() {
  const calls: ModelCallEvent[] = [];
  const telemetry = createTelemetry({ events: { ...NO_EVENTS, modelCall: (event) => calls.push(event) } });
  return { calls, telemetry };
}

const WORDS: CompletionStreamEvent[] = [
  { type: 'delta', text: 'Hello' },
  { type: 'delta', text: ' there' },
  { type: 'end', modelUsed: 'fake/fast', usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } },
];

describe('a streamed call as telemetry reports it', () => {
  it('reports the call once its stream ends, with its tokens', async () => {
    const { calls, telemetry } = recorded();
    const ai = instrumentAiGateway(gatewayStreaming(WORDS), telemetry);
    for await (const _event of ai.stream(REQUEST)) {
      // read it whole
    }
    expect(calls).toMatchObject([{ provider: 'fake', code: 'OK', inputTokens: 3, outputTokens: 2 }]);
  });

  it('reports a reader that stopped before the end as cancelled, not as an answer (regression: nothing reported)', async () => {
    const { calls, telemetry } = recorded();
    const ai = instrumentAiGateway(gatewayStreaming(WORDS), telemetry);
    for await (const event of ai.stream(REQUEST)) {
      if (event.type === 'delta') break;
    }
    expect(calls).toMatchObject([{ code: 'CANCELLED', inputTokens: 0, outputTokens: 0 }]);
  });

  it('reports a stream that failed with its error', async () => {
    const { calls, telemetry } = recorded();
    const ai = instrumentAiGateway(gatewayStreaming(WORDS.slice(0, 1), new Error('reset')), telemetry);
    await expect(async () => {
      for await (const _event of ai.stream(REQUEST)) {
        // read until it fails
      }
    }).rejects.toThrow('reset');
    expect(calls).toMatchObject([{ code: 'INTERNAL_ERROR' }]);
  });
});
