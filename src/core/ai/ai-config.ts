/**
 * The `ai` part of porch.config.yaml: which OpenAI-compatible providers Porch may call, the models
 * each offers, who may use them and with what output cap. Parsed once at start-up; a bad value
 * stops the process with a message naming the offending path.
 */
import { z } from 'zod';
import { PLANS, type Plan } from '../domain/plans.js';
import { formatIssue } from '../validation.js';
import { MODEL_NAME_PATTERN, PROVIDER_ID_PATTERN } from './model-id.js';

export const ECHO_PROVIDER_ID = 'echo';
export const ECHO_MODEL_NAME = 'echo';
export const ECHO_MODEL_ID = `${ECHO_PROVIDER_ID}/${ECHO_MODEL_NAME}`;
/** The echo provider runs in-process, so it is neither EU nor anywhere else: it is local. */
export const ECHO_REGION = 'local';
/** Matches the default cap of configured models, so switching to echo reserves the same credits. */
export const ECHO_MAX_OUTPUT_TOKENS = 1024;

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Long enough for a slow 1,000-token answer; short enough that a hung upstream frees the caller. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The openai SDK's own default: three attempts in all, with its exponential backoff. */
export const DEFAULT_MAX_RETRIES = 2;
/** What a configured model may produce per call unless the config says otherwise. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1024;
/** A provider whose region is not given is never treated as EU-hosted (deny rather than leak). */
export const DEFAULT_REGION = 'unspecified';

/** Models registered by the OPENAI_API_KEY shortcut: cheap, current, chat-capable. */
export const OPENAI_SHORTCUT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'] as const;
/** The shortcut's models cost real money, so only the plan that may use the API gets them. */
export const OPENAI_SHORTCUT_PLANS: readonly Plan[] = ['expert'];
/** OpenAI's platform is US-hosted unless the operator configures an EU endpoint explicitly. */
export const OPENAI_SHORTCUT_REGION = 'us';

const ENV_VAR_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_TIMEOUT_MS = 600_000;
const MAX_RETRIES_LIMIT = 10;

/** Which request field carries the output cap. OpenAI's newer models reject `max_tokens`. */
export const OUTPUT_TOKENS_PARAMETERS = ['max_tokens', 'max_completion_tokens'] as const;
export type OutputTokensParameter = (typeof OUTPUT_TOKENS_PARAMETERS)[number];

const planSchema = z.enum(PLANS).describe('A plan: free, builder or expert.');

const modelSchema = z
  .strictObject({
    name: z
      .string()
      .regex(MODEL_NAME_PATTERN, 'must be 1-200 characters without whitespace')
      .describe('The model name as the provider knows it, e.g. "gpt-4o-mini". The model id is "<provider>/<name>".'),
    plans: z
      .array(planSchema)
      .min(1)
      .refine((plans) => new Set(plans).size === plans.length, 'must not repeat a plan')
      .default([...PLANS])
      .describe('Plans whose accounts may use this model. Default: all plans.'),
    max_output_tokens: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_OUTPUT_TOKENS)
      .describe('Most output tokens one call may produce; credits are reserved for this many. Default 1024.'),
    context_window: z.number().int().positive().optional().describe('Context window in tokens, for documentation and health output. Optional.'),
  })
  .describe('A model a provider offers.');

const providerSchema = z
  .strictObject({
    id: z
      .string()
      .regex(PROVIDER_ID_PATTERN, 'must be lower-case letters, digits, "-" or "_" (at most 63), without "/"')
      .refine((id) => id !== ECHO_PROVIDER_ID, '"echo" is the built-in offline provider and cannot be redefined')
      .describe('Provider id; the prefix of its model ids ("openai" in "openai/gpt-4o-mini").'),
    base_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .describe('Base URL of the OpenAI-compatible API, including the version path, e.g. https://api.openai.com/v1.'),
    api_key_env: z
      .string()
      .regex(ENV_VAR_NAME_PATTERN, 'must be an environment variable name')
      .optional()
      .describe(
        'Name of the environment variable holding the shared API key (never the key itself). ' +
          'Omit it for a local server that needs no key, or a provider used only with BYOK keys.',
      ),
    region: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .default(DEFAULT_REGION)
      .describe('Where the provider processes data (free text). "eu" or "eu-..." marks it EU-hosted for eu_only_models.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_TIMEOUT_MS)
      .describe('Time limit of one attempt in milliseconds. Default 60000.'),
    max_retries: z
      .number()
      .int()
      .min(0)
      .max(MAX_RETRIES_LIMIT)
      .default(DEFAULT_MAX_RETRIES)
      .describe('Retries of the openai SDK for 408/409/429/5xx, timeouts and connection errors, with its backoff. Default 2.'),
    output_tokens_parameter: z
      .enum(OUTPUT_TOKENS_PARAMETERS)
      .optional()
      .describe(
        'Request field for the output cap. Default: max_completion_tokens for api.openai.com ' +
          '(its newer models reject max_tokens), max_tokens elsewhere (older OpenAI-compatible servers know only that).',
      ),
    models: z.array(modelSchema).min(1).describe('The models this provider offers.'),
  })
  .superRefine((provider, ctx) => {
    const seen = new Set<string>();
    provider.models.forEach((model, index) => {
      if (seen.has(model.name)) {
        ctx.addIssue({ code: 'custom', path: ['models', index, 'name'], message: `repeats model "${model.name}"` });
      }
      seen.add(model.name);
    });
  })
  .describe('An OpenAI-compatible provider.');

export const aiConfigSchema = z
  .strictObject({
    default_model: z
      .string()
      .optional()
      .describe('Model used when neither the request nor the resource names one. Default: the first configured model, else echo/echo.'),
    providers: z.array(providerSchema).default([]).describe('OpenAI-compatible providers, in order of preference.'),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.providers.forEach((provider, index) => {
      if (seen.has(provider.id)) {
        ctx.addIssue({ code: 'custom', path: ['providers', index, 'id'], message: `repeats provider "${provider.id}"` });
      }
      seen.add(provider.id);
    });
  })
  .describe('AI providers and models.');

export interface ModelConfig {
  /** Upstream model name. */
  name: string;
  plans: readonly Plan[];
  maxOutputTokens: number;
  contextWindow: number | null;
}

export interface ProviderConfig {
  id: string;
  baseUrl: string;
  /** Name of the env var with the shared key; null when the provider is called without one. */
  apiKeyEnv: string | null;
  region: string;
  timeoutMs: number;
  maxRetries: number;
  outputTokensParameter: OutputTokensParameter;
  models: readonly ModelConfig[];
  /** "env" when registered by the OPENAI_API_KEY shortcut, for the start-up log. */
  source: 'config' | 'env';
}

export interface AiConfig {
  /** Always a known model id (configured or echo/echo). */
  defaultModel: string;
  /** Why it is the default, so start-up can say "no provider configured: using echo/echo". */
  defaultModelSource: 'configured' | 'first-model' | 'echo';
  /** The OpenAI-compatible providers. The built-in echo provider is implicit and always present. */
  providers: readonly ProviderConfig[];
}

export type AiEnv = Record<string, string | undefined>;

/** True when a region string marks EU hosting ("eu", "EU", "eu-west-1", ...). */
export function isEuRegion(region: string): boolean {
  const normalised = region.trim().toLowerCase();
  return normalised === 'eu' || normalised.startsWith('eu-');
}

function configError(problems: readonly string[]): Error {
  return new Error(`Invalid AI configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
}

function defaultOutputTokensParameter(baseUrl: string): OutputTokensParameter {
  return new URL(baseUrl).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

export interface ParseAiConfigOptions {
  /**
   * Whether every `api_key_env` must name a set variable. Only processes that call models (the
   * server, the MCP server) need the secrets; an operator command such as `porch account list`
   * must work in a shell that does not hold them. Default true.
   */
  requireProviderKeys?: boolean;
}

/**
 * Validates the `ai` section (snake_case, as in the YAML) against the environment and returns the
 * resolved configuration. `raw` may be undefined or null when the section is absent.
 * Throws an Error listing every problem with its path (e.g. `ai.providers[0].models[1].plans[0]`).
 * Secrets are never read into the result: only the names of the variables that hold them.
 */
export function parseAiConfig(raw: unknown, env: AiEnv, options: ParseAiConfigOptions = {}): AiConfig {
  const requireProviderKeys = options.requireProviderKeys ?? true;
  const parsed = aiConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw configError(parsed.error.issues.map((issue) => formatIssue(issue, { root: 'ai' })));
  }
  const problems: string[] = [];
  const providers: ProviderConfig[] = parsed.data.providers.map((provider, index) => {
    if (requireProviderKeys && provider.api_key_env !== undefined && nonEmpty(env[provider.api_key_env]) === undefined) {
      problems.push(
        `ai.providers[${index}].api_key_env: environment variable ${provider.api_key_env} is not set ` +
          '(set it, or remove api_key_env to call this provider without a shared key)',
      );
    }
    return {
      id: provider.id,
      baseUrl: provider.base_url,
      apiKeyEnv: provider.api_key_env ?? null,
      region: provider.region,
      timeoutMs: provider.timeout_ms,
      maxRetries: provider.max_retries,
      outputTokensParameter: provider.output_tokens_parameter ?? defaultOutputTokensParameter(provider.base_url),
      models: provider.models.map((model) => ({
        name: model.name,
        plans: model.plans,
        maxOutputTokens: model.max_output_tokens,
        contextWindow: model.context_window ?? null,
      })),
      source: 'config',
    };
  });

  if (nonEmpty(env.OPENAI_API_KEY) !== undefined && !providers.some((provider) => provider.id === 'openai')) {
    const baseUrl = nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL;
    const baseUrlCheck = z.url({ protocol: /^https?$/ }).safeParse(baseUrl);
    if (!baseUrlCheck.success) {
      problems.push('OPENAI_BASE_URL: must be an http(s) URL');
    } else {
      providers.push({
        id: 'openai',
        baseUrl,
        apiKeyEnv: 'OPENAI_API_KEY',
        region: OPENAI_SHORTCUT_REGION,
        timeoutMs: DEFAULT_TIMEOUT_MS,
        maxRetries: DEFAULT_MAX_RETRIES,
        outputTokensParameter: defaultOutputTokensParameter(baseUrl),
        models: OPENAI_SHORTCUT_MODELS.map((name) => ({
          name,
          plans: OPENAI_SHORTCUT_PLANS,
          maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
          contextWindow: null,
        })),
        source: 'env',
      });
    }
  }

  const knownModelIds = [...providers.flatMap((provider) => provider.models.map((model) => `${provider.id}/${model.name}`)), ECHO_MODEL_ID];
  let defaultModel: string;
  let defaultModelSource: AiConfig['defaultModelSource'];
  const configuredDefault = parsed.data.default_model;
  if (configuredDefault !== undefined) {
    if (!knownModelIds.includes(configuredDefault)) {
      problems.push(`ai.default_model: "${configuredDefault}" is not a configured model (configured: ${knownModelIds.join(', ')})`);
    }
    defaultModel = configuredDefault;
    defaultModelSource = 'configured';
  } else {
    const first = knownModelIds[0];
    defaultModel = first ?? ECHO_MODEL_ID;
    defaultModelSource = defaultModel === ECHO_MODEL_ID ? 'echo' : 'first-model';
  }

  if (problems.length > 0) throw configError(problems);
  return { defaultModel, defaultModelSource, providers };
}
