/**
 * The OpenTelemetry semantic conventions for generative AI that Porch's spans carry
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/). Named here once: the
 * conventions are still in development upstream, and `@opentelemetry/semantic-conventions`
 * keeps them in its incubating entry point, which it may rename between releases.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  /** The newer name of the provider attribute; `gen_ai.system` is the older one, still read by many backends. */
  providerName: 'gen_ai.provider.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  /** Recorded only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
} as const;
