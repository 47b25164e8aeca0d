/**
 * The one door from the domain to language models: the model registry (which models exist, who
 * may use them), model resolution, token estimates and completions through the providers.
 * Built once in the composition root from the parsed config; holds no other state.
 */
import { PorchError } from '../errors.js';
import { ECHO_MAX_OUTPUT_TOKENS, ECHO_MODEL_ID, ECHO_MODEL_NAME, ECHO_PROVIDER_ID, ECHO_REGION, isEuRegion, type AiConfig, type AiEnv } from './ai-config.js';
import { PLANS, type Plan } from '../domain/plans.js';
import { parseModelId } from './model-id.js';
import type {
  AiLogger,
  ChatMessage,
  CompletionRequest,
  CompletionResult,
  CompletionStreamEvent,
  ModelInfo,
  ResolveModelInput,
  ResolvedModel,
} from './ai-types.js';
import { completeWithEcho, streamWithEcho } from './echo-provider.js';
import { OpenAiCompatibleProvider, type FetchFunction } from './openai-provider.js';
import { estimateChatTokens, estimateTextTokens } from './tokenizer.js';

export interface AiGateway {
  /**
   * The model a call uses: request override → resource default → configured default. A resource
   * default this server does not offer is refused (400), never replaced by the configured default.
   */
  resolveModel(input: ResolveModelInput): ResolvedModel;
  /** Every model, echo included, in configuration order (echo last). */
  listModels(): ModelInfo[];
  /** The models an account on `plan` may name, under the organisation's EU-only policy or not: what resolveModel accepts. */
  usableModels(plan: Plan, euOnly: boolean): ModelInfo[];
  /** Prompt tokens of these messages, including OpenAI's per-message overhead; an upper bound for long prompts. */
  estimateTokens(messages: readonly ChatMessage[]): number;
  /** Tokens of a piece of text (an answer, a template); an upper bound for long texts. */
  countTokens(text: string): number;
  complete(request: CompletionRequest): Promise<CompletionResult>;
  /**
   * The same call, streamed: `delta` events as the text arrives, then one `end` with the usage the
   * provider reported (null when it reported none). The request's signal stops the upstream call.
   */
  stream(request: CompletionRequest): AsyncIterable<CompletionStreamEvent>;
  /** The provider id of "<provider>/<model_name>"; undefined when malformed. */
  providerOf(modelId: string): string | undefined;
  isEcho(model: ResolvedModel | string): boolean;
  /** The configured default model id. */
  readonly defaultModel: string;
}

export interface CreateAiGatewayOptions {
  config: AiConfig;
  env: AiEnv;
  logger?: AiLogger | undefined;
  /** Replaces the runtime's fetch for every provider call (tests, proxies). */
  fetch?: FetchFunction | undefined;
}

export function providerOf(modelId: string): string | undefined {
  return parseModelId(modelId)?.provider;
}

export function isEcho(model: ResolvedModel | string): boolean {
  const id = typeof model === 'string' ? model : model.id;
  return id === ECHO_MODEL_ID;
}

function isAllowedUnderEuOnly(model: ModelInfo): boolean {
  return model.provider === ECHO_PROVIDER_ID || isEuRegion(model.region);
}

function quote(value: string): string {
  return JSON.stringify(value);
}

/** A copy the caller may change without changing the registry. */
function copyOf(model: ModelInfo): ModelInfo {
  return { ...model, plans: [...model.plans] };
}

function requireModel(models: ReadonlyMap<string, ModelInfo>, modelId: string): ModelInfo {
  const model = models.get(modelId);
  if (model === undefined) {
    // parseAiConfig guarantees this; a hand-built config that breaks it is a programming error.
    throw new Error(`The default model "${modelId}" is not a configured model.`);
  }
  return model;
}

export function createAiGateway(options: CreateAiGatewayOptions): AiGateway {
  const { config, env, logger } = options;

  const models = new Map<string, ModelInfo>();
  const providers = new Map<string, OpenAiCompatibleProvider>();
  for (const provider of config.providers) {
    const sharedApiKey = provider.apiKeyEnv === null ? null : (env[provider.apiKeyEnv] ?? null);
    providers.set(provider.id, new OpenAiCompatibleProvider({ config: provider, sharedApiKey, fetch: options.fetch, logger }));
    for (const model of provider.models) {
      const info: ModelInfo = {
        id: `${provider.id}/${model.name}`,
        provider: provider.id,
        name: model.name,
        region: provider.region,
        plans: model.plans,
        maxOutputTokens: model.maxOutputTokens,
        contextWindow: model.contextWindow,
        euOnlyAllowed: false,
        isDefault: false,
      };
      info.euOnlyAllowed = isAllowedUnderEuOnly(info);
      models.set(info.id, info);
    }
  }
  models.set(ECHO_MODEL_ID, {
    id: ECHO_MODEL_ID,
    provider: ECHO_PROVIDER_ID,
    name: ECHO_MODEL_NAME,
    region: ECHO_REGION,
    plans: PLANS,
    maxOutputTokens: ECHO_MAX_OUTPUT_TOKENS,
    contextWindow: null,
    euOnlyAllowed: true,
    isDefault: false,
  });
  const defaultInfo = requireModel(models, config.defaultModel);
  defaultInfo.isDefault = true;

  function usableModels(plan: Plan, euOnly: boolean): ModelInfo[] {
    return [...models.values()].filter((model) => model.plans.includes(plan) && (!euOnly || model.euOnlyAllowed)).map(copyOf);
  }

  function usableBy(plan: Plan, euOnly: boolean): string {
    return usableModels(plan, euOnly)
      .map((model) => model.id)
      .join(', ');
  }

  function toResolved(model: ModelInfo, source: ResolvedModel['source']): ResolvedModel {
    return {
      id: model.id,
      provider: model.provider,
      name: model.name,
      maxOutputTokens: model.maxOutputTokens,
      region: model.region,
      source,
    };
  }

  function checkAccess(model: ModelInfo, input: ResolveModelInput, source: ResolvedModel['source']): void {
    const subject =
      source === 'requested'
        ? `Model ${quote(model.id)}`
        : source === 'resource-default'
          ? `The resource's saved model ${quote(model.id)}`
          : `The default model ${quote(model.id)}`;
    if (!model.plans.includes(input.plan)) {
      throw new PorchError(
        'MODEL_ACCESS_DENIED',
        `${subject} is not available on the ${input.plan} plan. Models available to you: ${usableBy(input.plan, input.euOnly)}.`,
      );
    }
    if (input.euOnly && !model.euOnlyAllowed) {
      throw new PorchError(
        'MODEL_ACCESS_DENIED',
        `${subject} is hosted in region ${quote(model.region)}, but your organisation allows only EU-hosted models. ` +
          `Models available to you: ${usableBy(input.plan, input.euOnly)}.`,
      );
    }
  }

  function resolveModel(input: ResolveModelInput): ResolvedModel {
    const field = input.field ?? 'model';
    if (input.requested !== undefined) {
      const requested = models.get(input.requested);
      if (requested === undefined) {
        const problem =
          parseModelId(input.requested) === undefined
            ? `Invalid model id ${quote(input.requested)} in field "${field}": expected "<provider>/<model_name>".`
            : `Unknown model ${quote(input.requested)} in field "${field}".`;
        throw new PorchError('VALIDATION_ERROR', `${problem} Available models: ${usableBy(input.plan, input.euOnly)}.`);
      }
      checkAccess(requested, input, 'requested');
      return toResolved(requested, 'requested');
    }
    if (input.resourceDefault !== undefined && input.resourceDefault !== null) {
      // A resource may name a model this server does not offer (the operator removed it, or this
      // process runs without the provider's key). Its author chose that model on purpose, so a
      // call is refused before any tokens are spent, never quietly answered by the default model.
      const resourceDefault = models.get(input.resourceDefault);
      if (resourceDefault === undefined) {
        throw new PorchError(
          'VALIDATION_ERROR',
          `Unknown model ${quote(input.resourceDefault)}: it is the resource's saved model, and this server does not offer it. ` +
            `Configure its provider on the server, change the resource's model, or name another model in field "${field}". ` +
            `Available models: ${usableBy(input.plan, input.euOnly)}.`,
        );
      }
      checkAccess(resourceDefault, input, 'resource-default');
      return toResolved(resourceDefault, 'resource-default');
    }
    checkAccess(defaultInfo, input, 'configured-default');
    return toResolved(defaultInfo, 'configured-default');
  }

  async function complete(request: CompletionRequest): Promise<CompletionResult> {
    if (isEcho(request.model)) return completeWithEcho(request);
    const provider = providers.get(request.model.provider);
    if (provider === undefined || !models.has(request.model.id)) {
      throw new PorchError('VALIDATION_ERROR', `Unknown model ${quote(request.model.id)}.`);
    }
    return provider.complete(request);
  }

  function stream(request: CompletionRequest): AsyncIterable<CompletionStreamEvent> {
    if (isEcho(request.model)) return streamWithEcho(request);
    const provider = providers.get(request.model.provider);
    if (provider === undefined || !models.has(request.model.id)) {
      throw new PorchError('VALIDATION_ERROR', `Unknown model ${quote(request.model.id)}.`);
    }
    return provider.stream(request);
  }

  return {
    resolveModel,
    listModels: () => [...models.values()].map(copyOf),
    usableModels,
    estimateTokens: estimateChatTokens,
    countTokens: estimateTextTokens,
    complete,
    stream,
    providerOf,
    isEcho,
    defaultModel: config.defaultModel,
  };
}
