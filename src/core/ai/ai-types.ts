/** Shapes shared by the AI gateway, its providers and its callers. */
import type { Plan } from '../domain/plans.js';
import type { RequestScope } from '../telemetry/telemetry.js';
import type { ChatMessage } from './tokenizer.js';

export type { ChatMessage, ChatRole } from './tokenizer.js';

/** A model the caller may use, as resolveModel decided it. */
export interface ResolvedModel {
  /** "<provider>/<model_name>". */
  id: string;
  provider: string;
  /** Upstream model name. */
  name: string;
  /** Most output tokens a call may produce (and the basis of the credit reservation). */
  maxOutputTokens: number;
  region: string;
  /** Which rule picked it: the request's override, the resource's default or the configured default. */
  source: 'requested' | 'resource-default' | 'configured-default';
}

/** A model as listModels shows it (docs, health). */
export interface ModelInfo {
  id: string;
  provider: string;
  name: string;
  region: string;
  plans: readonly Plan[];
  maxOutputTokens: number;
  contextWindow: number | null;
  /** Usable by organisations with the EU-only policy (EU-hosted, or echo which runs locally). */
  euOnlyAllowed: boolean;
  isDefault: boolean;
}

export interface ResolveModelInput {
  /** The request's `model` override, if any. */
  requested?: string | undefined;
  /** The resource's stored default model, if any. */
  resourceDefault?: string | null | undefined;
  plan: Plan;
  /** The organisation's eu_only_models policy. */
  euOnly: boolean;
  /** Request field named in validation messages. Default "model". */
  field?: string | undefined;
}

export interface JsonSchemaResponseFormat {
  type: 'json_schema';
  /** a-z, A-Z, 0-9, "_" or "-", at most 64 characters (OpenAI's rule). */
  name: string;
  schema: Record<string, unknown>;
  /**
   * OpenAI strict structured outputs (default true): the reply always matches the schema, but
   * the schema must use the strict subset (every property required, additionalProperties false).
   */
  strict?: boolean | undefined;
}

export interface CompletionRequest {
  model: ResolvedModel;
  messages: readonly ChatMessage[];
  /** 0-2 for OpenAI; passed through when set. */
  temperature?: number | undefined;
  /** Clamped to 1..model.maxOutputTokens; the model's cap when absent. */
  maxOutputTokens?: number | undefined;
  responseFormat?: JsonSchemaResponseFormat | undefined;
  /** Aborts the call (and the SDK's retries); the gateway then throws AI_SERVICE_ERROR. */
  signal?: AbortSignal | undefined;
  /** The caller's own provider key (BYOK), already decrypted. Never logged. */
  byokApiKey?: string | undefined;
  /** The W3C traceparent of the span this call runs in, sent to the provider. */
  traceparent?: string | undefined;
  /** The request this call serves: its span is the call's parent, its ids go into the provider's log lines. */
  scope?: RequestScope | undefined;
  /**
   * The answer goes through an output guardrail that may redact or withhold it before anyone
   * sees it: a trace records no answer for such a call, even when it records message content.
   */
  answerGuarded?: boolean | undefined;
}

/** The output cap a call asks the provider for: the request's, clamped to 1..the model's cap; the model's cap when absent. */
export function outputTokenCap(request: Pick<CompletionRequest, 'model' | 'maxOutputTokens'>): number {
  const cap = request.model.maxOutputTokens;
  return Math.min(cap, Math.max(1, Math.floor(request.maxOutputTokens ?? cap)));
}

import type { TokenUsage } from './token-usage.js';

export type { TokenUsage };

export interface CompletionResult {
  content: string;
  /** "<provider>/<model the upstream reported>" (it may name a dated snapshot of the requested model). */
  modelUsed: string;
  usage: TokenUsage;
  /** Why the model stopped (`stop`, `length`, `content_filter`, ...), as the provider said; undefined when it did not say. */
  finishReason?: string | undefined;
}

/**
 * One event of a streamed completion: text as the provider produced it, then one `end` with the
 * model that answered and the usage the provider reported, or null when it reported none (some
 * OpenAI-compatible servers ignore `stream_options.include_usage`). The caller decides how to
 * count an answer without usage; the provider does not guess.
 */
export type CompletionStreamEvent =
  | { type: 'delta'; text: string }
  | {
      type: 'usage';
      /** Usage reported before the end (servers that send running usage with every chunk); the latest one counts. */
      usage: TokenUsage;
    }
  | { type: 'end'; modelUsed: string; usage: TokenUsage | null; finishReason?: string | undefined };

/**
 * The part of a pino logger the gateway uses; a pino Logger satisfies it. Entries carry provider,
 * model, status and error type, never keys, prompts or upstream bodies.
 */
export interface AiLogger {
  debug(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}
