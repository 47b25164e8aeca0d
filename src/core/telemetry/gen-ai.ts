/**
 * The OpenTelemetry semantic conventions for generative AI that Porch's spans carry
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/). Named here once: the
 * conventions are still in development upstream, and `@opentelemetry/semantic-conventions`
 * keeps them in its incubating entry point, which it may rename between releases.
 */
import type { ChatMessage } from '../ai/ai-types.js';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  /** The newer name of the provider attribute; `gen_ai.system` is the older one, still read by many backends. */
  providerName: 'gen_ai.provider.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  /** Recorded only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
} as const;

/** A text part, the one kind of message part Porch sends and receives (gen-ai-input-messages.json, TextPart). */
interface TextPart {
  type: 'text';
  content: string;
}

/**
 * `gen_ai.input.messages` as the conventions' schema (gen-ai-input-messages.json) has it: each
 * message a role and its parts. System prompts stay among them, with role `system`: Porch sends
 * them to the provider as messages of the chat history, and the conventions keep
 * `gen_ai.system_instructions` for instructions an API takes apart from that history.
 */
export function inputMessagesOf(messages: readonly ChatMessage[]): Array<{ role: string; parts: TextPart[] }> {
  return messages.map((message) => ({ role: message.role, parts: [{ type: 'text', content: message.content }] }));
}

/** `gen_ai.output.messages` (gen-ai-output-messages.json): the answer as one assistant message, with why the model stopped. */
export function outputMessagesOf(content: string, finishReason: string): Array<{ role: 'assistant'; parts: TextPart[]; finish_reason: string }> {
  return [{ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: finishReason }];
}
