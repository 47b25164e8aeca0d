/** The AI layer's public surface: config, gateway, token counting and BYOK encryption. */
export {
  DEFAULT_MAX_OUTPUT_TOKENS,
  ECHO_MODEL_ID,
  ECHO_PROVIDER_ID,
  isEuRegion,
  parseAiConfig,
  type AiConfig,
  type AiEnv,
  type ModelConfig,
  type ProviderConfig,
} from './ai-config.js';
export { MODEL_ID_PATTERN, modelIdSchema, parseModelId } from './model-id.js';
export { createAiGateway, isEcho, providerOf, type AiGateway, type CreateAiGatewayOptions } from './ai-gateway.js';
export type {
  AiLogger,
  ChatMessage,
  ChatRole,
  CompletionRequest,
  CompletionResult,
  CompletionStreamEvent,
  JsonSchemaResponseFormat,
  ModelInfo,
  ResolveModelInput,
  ResolvedModel,
  TokenUsage,
} from './ai-types.js';
export { decryptSecret, encryptSecret, fingerprint, loadSecretKey, type LoadSecretKeyOptions } from './byok-crypto.js';
export type { FetchFunction } from './openai-provider.js';
export { countTextTokens, estimateChatTokens } from './tokenizer.js';
