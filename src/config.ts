/**
 * Configuration, parsed once at start-up: the environment plus an optional `porch.config.yaml`.
 * A bad value stops the process with a message naming the setting; nothing re-reads config later.
 */
import { DEFAULT_LEASE_MS } from './core/instance.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseYaml } from './core/yaml.js';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { formatZodError } from './core/validation.js';
import { parseAiConfig, type AiConfig } from './core/ai/ai-config.js';
import { decodeSecretKey } from './core/ai/byok-crypto.js';
import { DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY } from './core/access/concurrency-limiter.js';
import { DEFAULT_MAX_RUNNING_RUNS_PER_ACCOUNT, DEFAULT_RUN_CONCURRENCY, DEFAULT_RUN_POLL_INTERVAL_MS, type RunQueueSettings } from './core/runs/run-queue.js';
import { TOKENS_PER_CREDIT } from './core/credits/credits.js';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_NODE_TIMEOUT_MS, DEFAULT_RUN_TIMEOUT_MS } from './core/engine/index.js';
import type { WorkflowLimits } from './core/execution/executions.js';
import { DEFAULT_JUDGE_THRESHOLDS, type JudgeThresholds } from './core/judge/thresholds.js';
import { DEFAULT_QUOTAS } from './core/quotas/quotas.js';
import { defaultDataDirectory, engineOf } from './db/create-store.js';
import type { ContentQuotas, KindQuota } from './db/store.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// An empty value never reaches it: loadConfig drops blank variables, which then take their defaults
// (regression: the refusal listed a trailing empty choice, "..., yes, no, ").
const flag = z.enum(['1', '0', 'true', 'false', 'yes', 'no']).transform((value) => value === '1' || value === 'true' || value === 'yes');

/**
 * Numbers as the CLI's own options read them: decimal digits only. z.coerce.number() (JavaScript's
 * Number()) also read `0x10` as 16 and `1e3` as 1000 (regression: PORT=0x10 listened on port 16).
 */
export const WHOLE_NUMBER = /^\d+$/;
export const DECIMAL_NUMBER = /^\d+(\.\d+)?$/;

/** A whole-number variable, at least `min` and at most `max`. */
function wholeNumberVariable(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .regex(WHOLE_NUMBER, 'must be a whole number written in decimal digits, such as 3000')
    .transform(Number)
    .pipe(z.number().min(min).max(max));
}

/** A decimal-number variable (`2.5`), at least `min` and at most `max`. */
function decimalNumberVariable(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .regex(DECIMAL_NUMBER, 'must be a decimal number written in digits, such as 1 or 2.5')
    .transform(Number)
    .pipe(z.number().min(min).max(max));
}

/**
 * PORCH_ALLOWED_ORIGINS: browser origins (`scheme://host[:port]`), written as browsers send them in
 * `Origin`, which the MCP endpoint compares as strings. An entry with a trailing slash never
 * matched (regression), so each entry is reduced to its origin; one with a path, a query, no
 * scheme or no host could never match, so it is refused.
 */
const allowedOrigins = z.string().transform((value, context) => {
  const origins: string[] = [];
  for (const entry of commaList(value)) {
    if (entry === '*') {
      origins.push(entry);
      continue;
    }
    const origin = originOf(entry);
    if (origin === null) {
      context.addIssue({ code: 'custom', message: `"${entry}" is not an origin: write scheme://host[:port], such as https://app.example.com, without a path` });
      continue;
    }
    origins.push(origin);
  }
  return origins;
});

/** `scheme://host[:port]` of `entry` as a browser writes it in `Origin` (default port dropped), or null when it is not an origin. */
function originOf(entry: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || !URL.canParse(entry)) return null;
  const url = new URL(entry);
  const pathless = url.pathname === '' || url.pathname === '/';
  if (
    url.host === '' ||
    !pathless ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== '' ||
    entry.includes('?') ||
    entry.includes('#')
  )
    return null;
  return `${url.protocol}//${url.host}`;
}

/** OpenTelemetry's booleans, which its specification reads case-insensitively (`TRUE`, `False`). */
const otelFlag = z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value), flag);

/**
 * An OTLP/HTTP endpoint: a URL with its scheme. `localhost:4318` parses as a URL of scheme
 * `localhost:` and nothing would ever be sent, so it is refused (regression: accepted in silence).
 */
const otlpEndpoint = z.url({ protocol: /^https?$/, error: 'must be an http or https URL with its scheme, such as http://localhost:4318' });

/**
 * PORCH_TRUSTED_PROXIES, in Express's `trust proxy` terms (which Porch hands it to): a hop count
 * (`1`: the connection comes from one proxy, and the client is the address it appended to
 * X-Forwarded-For), or the proxies' addresses, CIDR ranges and proxy-addr's names (`loopback`,
 * `linklocal`, `uniquelocal`), comma-separated. Each list is compiled here with proxy-addr, as
 * Express will compile it, so a bad entry stops the process naming the setting rather than
 * failing as the server starts. Express's `true` (trust every hop) is not offered: it makes the
 * client address whatever the client writes in X-Forwarded-For.
 */
const trustedProxies = z.string().transform((value, context): number | string[] => {
  const trimmed = value.trim();
  if (WHOLE_NUMBER.test(trimmed)) return Number(trimmed);
  const entries = commaList(trimmed);
  try {
    proxyAddr.compile(entries);
  } catch (err) {
    context.addIssue({
      code: 'custom',
      message: `${(err as Error).message}: write a hop count (such as 1), or IP addresses and CIDR ranges (such as 127.0.0.1, 10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas`,
    });
  }
  return entries;
});

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: wholeNumberVariable(0, 65_535).default(3000),
  // Links are built by appending paths to it: a query, a fragment or credentials would end up in
  // the middle of every link (regression: refine_url was https://example.com/porch?x=1#f/refine?...).
  PORCH_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL with its scheme, such as https://porch.example.com' })
    .refine((value) => {
      // A value that is no URL at all (no scheme) is z.url's to report, naming the variable
      // (regression: new URL() threw here and the CLI said "unexpected error: Invalid URL").
      if (!URL.canParse(value)) return true;
      const url = new URL(value);
      return url.search === '' && url.hash === '' && url.username === '' && url.password === '' && !value.includes('?') && !value.includes('#');
    }, 'must be an origin, optionally with a path: no query, fragment or user name')
    .optional(),
  DATABASE_URL: z.string().min(1).default('file:./data/porch.db'),
  DATABASE_POOL_SIZE: wholeNumberVariable(1, 1_000).optional(),
  PORCH_ERROR_CODES: z
    .enum(['a', 'b', 'A', 'B'])
    .default('a')
    .transform((value) => value.toLowerCase() as 'a' | 'b'),
  PORCH_NO_BOOTSTRAP: flag.default(false),
  PORCH_MIN_CREDITS: decimalNumberVariable(0).default(1),
  PORCH_CONFIG: z.string().min(1).optional(),
  // Checked with the configuration, so a malformed key is named like every other setting (never echoed).
  PORCH_SECRET_KEY: z
    .string()
    .refine(
      (value) => decodeSecretKey(value) !== undefined,
      'must be 32 random bytes written as 64 hex characters or as base64 (e.g. the output of `openssl rand -base64 32`)',
    )
    .optional(),
  PORCH_DATA_DIR: z.string().min(1).optional(),
  PORCH_ALLOWED_ORIGINS: allowedOrigins.optional(),
  PORCH_ALLOWED_HOSTS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // A guessable token would publish the metrics to anyone who can reach the port.
  PORCH_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (generate one with `openssl rand -hex 32`)').optional(),
  PORCH_TRUST_REQUEST_ID: flag.default(false),
  PORCH_TRUSTED_PROXIES: trustedProxies.optional(),
  // The standard OpenTelemetry variables (https://opentelemetry.io/docs/specs/otel/protocol/exporter/).
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpEndpoint.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_SDK_DISABLED: otelFlag.default(false),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: decimalNumberVariable(0, 1).optional(),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: otelFlag.default(false),
  // The batch span processor's (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/#batch-span-processor).
  OTEL_BSP_SCHEDULE_DELAY: wholeNumberVariable(0).optional(),
  OTEL_BSP_EXPORT_TIMEOUT: wholeNumberVariable(1).optional(),
  OTEL_BSP_MAX_QUEUE_SIZE: wholeNumberVariable(1).optional(),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: wholeNumberVariable(1).optional(),
  /** Set by `porch serve --workers` for each worker it starts (0, 1, ...), never by hand. */
  PORCH_WORKER_INDEX: wholeNumberVariable(0, 255).default(0),
});

// Defaults come from core, which states each limit once with its reason.
const judgeSchema = z
  .object({
    pass_threshold: z.number().min(0).max(100).default(DEFAULT_JUDGE_THRESHOLDS.pass).describe('Lowest score that is a pass'),
    needs_revision_threshold: z
      .number()
      .min(0)
      .max(100)
      .default(DEFAULT_JUDGE_THRESHOLDS.needsRevision)
      .describe('Lowest score that needs revision rather than fails'),
  })
  .refine((judge) => judge.needs_revision_threshold <= judge.pass_threshold, {
    message: 'needs_revision_threshold must not exceed pass_threshold',
  });

const workflowSchema = z.object({
  max_concurrency: z.number().int().min(1).max(64).default(DEFAULT_MAX_CONCURRENCY).describe('Nodes of one run that may call models at once'),
  node_timeout_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_NODE_TIMEOUT_MS).describe('Time limit of one node'),
  run_timeout_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_RUN_TIMEOUT_MS).describe('Time limit of a whole run'),
});

const kindQuotaSchema = (defaults: KindQuota) =>
  z.strictObject({
    max_items: z.number().int().min(1).default(defaults.maxItems).describe('Items one account may hold; a create or import beyond it is refused with 403'),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .default(defaults.maxBytes)
      .describe('Bytes of stored text one account may hold; a create, update or import beyond it is refused with 403'),
  });

const quotasSchema = z.strictObject({
  context_cards: kindQuotaSchema(DEFAULT_QUOTAS.contextCards).prefault({}).describe('Context cards, personas included'),
  compositions: kindQuotaSchema(DEFAULT_QUOTAS.compositions).prefault({}),
  skills: kindQuotaSchema(DEFAULT_QUOTAS.skills).prefault({}),
  workflows: kindQuotaSchema(DEFAULT_QUOTAS.workflows).prefault({}),
});

const limitsSchema = z.strictObject({
  max_in_flight_per_key: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_MAX_CONCURRENT_EXECUTIONS_PER_KEY)
    .describe('Executions one key may have running at once; a further one is refused with 429'),
  max_running_runs_per_account: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_MAX_RUNNING_RUNS_PER_ACCOUNT)
    .describe("Asynchronous runs one account may have running at once, across every process; the account's further runs wait in the queue"),
  quotas: quotasSchema.prefault({}).describe('What one account may hold, per kind of content'),
});

const runsSchema = z.strictObject({
  concurrency: z.number().int().min(1).max(256).default(DEFAULT_RUN_CONCURRENCY).describe('Asynchronous runs one Porch process executes at once'),
  poll_interval_ms: z
    .number()
    .int()
    .min(50)
    .max(60_000)
    .default(DEFAULT_RUN_POLL_INTERVAL_MS)
    .describe('How often a process looks for runs other processes queued, and for cancellations of the runs it executes'),
});

const processesSchema = z.strictObject({
  lease_seconds: z
    .number()
    .int()
    .min(5)
    .max(3_600)
    .default(DEFAULT_LEASE_MS / 1_000)
    .describe('How long a stopped process counts as alive: after a crash, its reservations, slots and claims are released this much later'),
  drain_seconds: z
    .number()
    .int()
    .min(0)
    .max(300)
    .default(0)
    .describe(
      'After SIGTERM or SIGINT, how long the server keeps accepting requests while /readyz answers 503, so a load balancer takes it out of rotation before its port closes',
    ),
});

/** DECISIONS: run payloads (inputs, results, traces) are kept 30 days by default; usage and the ledger are kept. */
export const DEFAULT_RUN_RETENTION_DAYS = 30;

const retentionSchema = z.strictObject({
  run_days: z
    .number()
    .int()
    .min(1)
    .max(3_650)
    .default(DEFAULT_RUN_RETENTION_DAYS)
    .describe("Days a run's payload (inputs, result, trace) is kept; the housekeeping sweep then drops it and keeps the run's summary"),
});

/**
 * A host alone (a name, an IPv4 address, an IPv6 address with or without its brackets) as the
 * WHATWG URL parser writes it in `hostname`, brackets dropped; null for anything else (a scheme,
 * a port, a path, brackets around a name).
 */
function hostAsUrlsWriteIt(entry: string): string | null {
  const bracketed = entry.startsWith('[') && entry.endsWith(']');
  const bare = bracketed ? entry.slice(1, -1) : entry;
  const ipv6 = isIP(bare) === 6;
  if ((bracketed && !ipv6) || (!ipv6 && !/^[^\s/:@[\]?#\\]+$/.test(bare))) return null;
  try {
    return new URL(`http://${ipv6 ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

const webhooksSchema = z.strictObject({
  allow_hosts: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(253)
        // As the URL parser writes the host (what the guard compares): IPv6 compressed and without
        // brackets, IPv4 in dotted decimal, names lower-cased and in punycode (regression: an
        // entry such as fd00:0:0:0:0:0:0:5 was accepted and never matched [fd00::5]).
        .transform((entry, context) => {
          // The URL parser takes `*` as a character of a name, so a wildcard would be kept and never
          // match anything; endpoints on the hosts it was meant for would then be told to use https
          // (regression: "*" and "*.example.com" were accepted silently).
          if (entry.includes('*')) {
            context.addIssue({
              code: 'custom',
              message: 'must be an exact host name or IP address: wildcards (* or *.example.com) are not supported; list each host',
            });
            return entry;
          }
          const host = hostAsUrlsWriteIt(entry);
          if (host === null) context.addIssue({ code: 'custom', message: 'must be a host name or an IP address alone, without a scheme, port or path' });
          return host ?? entry;
        }),
    )
    .max(100)
    .default([])
    .describe(
      'Hosts (exact names or IP addresses, as written in endpoint URLs; no wildcards) exempt from the SSRF guard: they may resolve to loopback, private or link-local addresses and may use http',
    ),
  timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe('How long one delivery attempt may take, connection to last byte, in milliseconds'),
  concurrency: z.number().int().min(1).max(256).default(16).describe('Delivery attempts one process runs at once'),
  poll_interval_ms: z.number().int().min(50).max(60_000).default(1_000).describe('How often each process looks for due deliveries, in milliseconds'),
});

const metricsSchema = z.strictObject({
  port: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .optional()
    .describe('Serve GET /metrics on this port of 127.0.0.1 only (with --workers, worker N uses port + N); 0 picks a free port'),
});

const fileSchema = z.strictObject({
  /** Providers and models; parsed by the AI layer, which owns its own schema. */
  ai: z.unknown().optional(),
  judge: judgeSchema.prefault({}),
  workflows: workflowSchema.prefault({}),
  limits: limitsSchema.prefault({}),
  processes: processesSchema.prefault({}),
  runs: runsSchema.prefault({}),
  retention: retentionSchema.prefault({}),
  metrics: metricsSchema.prefault({}),
  webhooks: webhooksSchema.prefault({}),
});

export type ConfigFile = z.infer<typeof fileSchema>;

/** Where spans go: set only when an OTLP endpoint is configured. */
export interface TracingConfig {
  /** The full URL spans are POSTed to (`.../v1/traces`). */
  endpoint: string;
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME, else `service.name` of OTEL_RESOURCE_ATTRIBUTES, else `porch`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES: more attributes of the resource every span carries (`deployment.environment.name=prod`). */
  resourceAttributes?: Record<string, string>;
  /** Prompts and answers in spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); off by default. */
  captureMessageContent: boolean;
  /** OTEL_TRACES_SAMPLER: which traces are recorded; a caller's sampled flag is followed by the `parentbased_*` ones. */
  sampler: 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';
  /** OTEL_TRACES_SAMPLER_ARG: the share of traces the `traceidratio` samplers record, 0 to 1 (1 when unset). */
  samplerRatio: number;
  /** OTEL_BSP_*: how ended spans are batched for export; unset fields take tracing.ts's defaults. */
  batch?: SpanBatchConfig;
}

export interface SpanBatchConfig {
  /** OTEL_BSP_SCHEDULE_DELAY: the longest an ended span waits for its batch, in milliseconds. */
  scheduledDelayMs?: number;
  /** OTEL_BSP_EXPORT_TIMEOUT: how long one export may take, in milliseconds. */
  exportTimeoutMs?: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE: ended spans held at most; beyond, new ones are dropped. */
  maxQueueSize?: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per export at most; a full batch is sent at once. */
  maxExportBatchSize?: number;
}

export interface MetricsConfig {
  /** PORCH_METRICS_TOKEN: GET /metrics on the main port answers only with this bearer token; absent, it is not served there. */
  token: string | undefined;
  /** `metrics.port`: a separate loopback-only listener for GET /metrics, without a token; worker N of `--workers` listens on port + N. */
  port: number | undefined;
}

export interface WebhookConfig {
  allowHosts: string[];
  timeoutMs: number;
  concurrency: number;
  pollIntervalMs: number;
}

export interface Config {
  host: string;
  port: number;
  /** `{site_url}`: the public origin used for absolute links, without a trailing slash. */
  publicUrl: string;
  databaseUrl: string;
  /** PostgreSQL connections per process (DATABASE_POOL_SIZE); the engine's default when unset. */
  databasePoolSize: number | undefined;
  /** Where generated state lives (the database folder by default): the BYOK secret key file. */
  dataDir: string;
  errorCodes: 'a' | 'b';
  bootstrap: boolean;
  /** Minimum available balance to start an execution, in tokens. */
  minimumTokens: number;
  secretKey: string | undefined;
  allowedOrigins: string[];
  /** Host names the MCP endpoint accepts besides the public URL's host and localhost. */
  allowedHosts: string[];
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** Where the file part came from, for start-up logs; null when no file was read. */
  configPath: string | null;
  /** Where the config file was looked for, in order (PORCH_CONFIG alone when it is set), for start-up messages. */
  configSearch: readonly string[];
  file: ConfigFile;
  /** Providers and models (porch.config.yaml `ai`, or OPENAI_API_KEY alone). */
  ai: AiConfig;
  judgeThresholds: JudgeThresholds;
  workflowLimits: WorkflowLimits;
  /** Executions one key may have in flight at once (`limits.max_in_flight_per_key`). */
  maxInFlightPerKey: number;
  /** How long a process counts as alive after renewing its lease (`processes.lease_seconds`), in ms. */
  instanceLeaseMs: number;
  /** After a stop signal, how long the server still accepts requests with /readyz answering 503 (`processes.drain_seconds`), in ms. */
  shutdownDrainMs: number;
  /** Asynchronous runs: `runs.*` and `limits.max_running_runs_per_account`. */
  runQueue: RunQueueSettings;
  /** What one account may hold of each kind of content (`limits.quotas`). */
  quotas: ContentQuotas;
  /** Days run payloads are kept (`retention.run_days`). */
  runRetentionDays: number;
  /** Webhook delivery (`webhooks`): the SSRF guard's allow-list, attempt timeout, concurrency, polling. */
  webhooks: WebhookConfig;
  /** The environment as read, for settings that name variables (provider key env vars). */
  env: Readonly<Record<string, string | undefined>>;
  /** Settings that work but probably not as meant, each naming the setting; `porch serve` logs them. */
  warnings: string[];
  metrics: MetricsConfig;
  /** PORCH_TRUST_REQUEST_ID: keep a well-formed X-Request-Id a proxy in front sent, instead of making a new one. */
  trustRequestId: boolean;
  /**
   * PORCH_TRUSTED_PROXIES: Express's `trust proxy` (a hop count, or proxy addresses and ranges),
   * so the client address of a request that came through those proxies is the one they wrote in
   * X-Forwarded-For; undefined trusts no proxy (the connection's own address).
   */
  trustedProxies: number | string[] | undefined;
  /** Null unless OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: TracingConfig | null;
}

const DEFAULT_CONFIG_FILE = 'porch.config.yaml';

/**
 * Listen addresses meaning "every interface", which no client can open, mapped to the loopback
 * address that reaches the server from its own machine: the only address known to work.
 */
const WILDCARD_HOSTS: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '::1', '[::]': '::1' };

/** The public URL: PORCH_PUBLIC_URL, else the listen address (a loopback one for a wildcard HOST). */
function derivePublicUrl(host: string, port: number, publicUrl: string | undefined, warnings: string[]): string {
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const loopback = WILDCARD_HOSTS[host];
  const linkHost = loopback ?? host;
  const derived = `http://${linkHost.includes(':') ? `[${linkHost}]` : linkHost}:${port}`;
  if (loopback !== undefined) {
    warnings.push(
      `HOST is ${host} (every interface) and PORCH_PUBLIC_URL is not set: links and the MCP endpoint's allowed origin use ${derived}, ` +
        'which only this machine can open. Set PORCH_PUBLIC_URL to the address clients use (e.g. https://porch.example.com).',
    );
  }
  return derived;
}

function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES: `key=value` pairs separated by commas, values percent-encoded. */
function parseOtlpKeyValues(value: string | undefined, name: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const pair of commaList(value)) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new ConfigError(`${name} must be key=value pairs separated by commas, got an entry without "=".`);
    try {
      pairs[pair.slice(0, separator).trim()] = decodeURIComponent(pair.slice(separator + 1).trim());
    } catch {
      throw new ConfigError(`${name} has a value that is not valid percent-encoding.`);
    }
  }
  return pairs;
}

/** What a span's resource names Porch when nothing else does. */
const DEFAULT_SERVICE_NAME = 'porch';

/** The traces endpoint: the signal-specific variable as given, else the base endpoint plus `/v1/traces`, as the specification says. */
function tracingConfig(vars: z.infer<typeof envSchema>): TracingConfig | null {
  if (vars.OTEL_SDK_DISABLED) return null;
  const endpoint =
    vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (vars.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : `${vars.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (endpoint === undefined) return null;
  const resourceAttributes = parseOtlpKeyValues(vars.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    endpoint,
    headers: {
      ...parseOtlpKeyValues(vars.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseOtlpKeyValues(vars.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    serviceName: vars.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes,
    captureMessageContent: vars.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
    sampler: vars.OTEL_TRACES_SAMPLER,
    samplerRatio: vars.OTEL_TRACES_SAMPLER_ARG ?? 1,
    batch: {
      ...(vars.OTEL_BSP_SCHEDULE_DELAY === undefined ? {} : { scheduledDelayMs: vars.OTEL_BSP_SCHEDULE_DELAY }),
      ...(vars.OTEL_BSP_EXPORT_TIMEOUT === undefined ? {} : { exportTimeoutMs: vars.OTEL_BSP_EXPORT_TIMEOUT }),
      ...(vars.OTEL_BSP_MAX_QUEUE_SIZE === undefined ? {} : { maxQueueSize: vars.OTEL_BSP_MAX_QUEUE_SIZE }),
      ...(vars.OTEL_BSP_MAX_EXPORT_BATCH_SIZE === undefined ? {} : { maxExportBatchSize: vars.OTEL_BSP_MAX_EXPORT_BATCH_SIZE }),
    },
  };
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (err) {
    throw new ConfigError(`Config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
}

/**
 * Where `porch.config.yaml` is looked for when PORCH_CONFIG is not set: the current folder, then
 * next to the database, in its folder and the folder above it (the Porch folder, for the default
 * `data/porch.db`). MCP clients start `porch mcp` from a folder of their own with an absolute
 * DATABASE_URL; looking only in the current folder silently dropped the config and ran every
 * execution on echo (regression).
 */
function defaultConfigCandidates(cwd: string, databaseDirectory: string | null): string[] {
  const folders = [cwd, ...(databaseDirectory === null ? [] : [databaseDirectory, dirname(databaseDirectory)])];
  return [...new Set(folders.map((folder) => resolve(folder, DEFAULT_CONFIG_FILE)))];
}

export interface LoadConfigOptions {
  /**
   * Whether the provider key variables the config names (`api_key_env`) must be set: true for the
   * commands that call models (`serve`, `mcp`), false for operator commands that only read and
   * write the database. Default true.
   */
  requireProviderKeys?: boolean;
}

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env, cwd = process.cwd(), options: LoadConfigOptions = {}): Config {
  // A blank variable is an unset one, which takes its default: compose files write `PORT=${PORT}`
  // for a variable the shell may not hold (regression: an empty PORT listened on a random port, an
  // empty PORCH_MIN_CREDITS was 0, and a PORCH_SECRET_KEY of spaces passed "must be set").
  const parsedEnv = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== '')));
  if (!parsedEnv.success) throw new ConfigError(`Invalid environment: ${formatZodError(parsedEnv.error)}`);
  const vars = parsedEnv.data;

  let databaseDirectory: string | null;
  try {
    databaseDirectory = defaultDataDirectory(vars.DATABASE_URL);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (engineOf(vars.DATABASE_URL) === 'postgres' && !vars.PORCH_SECRET_KEY && !vars.PORCH_DATA_DIR) {
    // A key file generated on one host would leave the other hosts unable to read the BYOK keys it encrypted.
    throw new ConfigError(
      `PORCH_SECRET_KEY must be set${env.PORCH_SECRET_KEY === undefined ? '' : ' (it is blank)'} with PostgreSQL: every` +
        ' Porch process decrypts the BYOK keys the others stored, so all share one key. ' +
        'Generate it once with `openssl rand -base64 32` and give every process the same value.',
    );
  }

  const configSearch = vars.PORCH_CONFIG ? [resolve(cwd, vars.PORCH_CONFIG)] : defaultConfigCandidates(cwd, databaseDirectory);
  const configPath = configSearch.find((candidate) => existsSync(candidate)) ?? null;
  if (vars.PORCH_CONFIG && configPath === null) throw new ConfigError(`PORCH_CONFIG names ${configSearch[0]}, which does not exist.`);
  const fileExists = configPath !== null;
  const parsedFile = fileSchema.safeParse(configPath !== null ? readConfigFile(configPath) : {});
  if (!parsedFile.success) throw new ConfigError(`Invalid config file ${configPath}: ${formatZodError(parsedFile.error, { whole: '(root)' })}`);
  const dataDir = vars.PORCH_DATA_DIR ? resolve(cwd, vars.PORCH_DATA_DIR) : (databaseDirectory ?? resolve(cwd, 'data'));
  let ai: AiConfig;
  try {
    ai = parseAiConfig(parsedFile.data.ai, env, { requireProviderKeys: options.requireProviderKeys ?? true });
  } catch (err) {
    // The AI layer's message starts with its own "Invalid AI configuration:", said once (regression: twice).
    const problems = (err as Error).message.replace(/^Invalid AI configuration:/, '');
    throw new ConfigError(`Invalid AI configuration${fileExists ? ` in ${configPath}` : ''}:${problems.startsWith('\n') ? '' : ' '}${problems}`);
  }
  const { judge, workflows, limits } = parsedFile.data;
  const quota = ({ max_items, max_bytes }: { max_items: number; max_bytes: number }): KindQuota => ({ maxItems: max_items, maxBytes: max_bytes });
  const warnings: string[] = [];

  return {
    host: vars.HOST,
    port: vars.PORT,
    publicUrl: derivePublicUrl(vars.HOST, vars.PORT, vars.PORCH_PUBLIC_URL, warnings),
    databaseUrl: vars.DATABASE_URL,
    databasePoolSize: vars.DATABASE_POOL_SIZE,
    dataDir,
    errorCodes: vars.PORCH_ERROR_CODES,
    bootstrap: !vars.PORCH_NO_BOOTSTRAP,
    minimumTokens: Math.ceil(vars.PORCH_MIN_CREDITS * TOKENS_PER_CREDIT),
    secretKey: vars.PORCH_SECRET_KEY,
    allowedOrigins: vars.PORCH_ALLOWED_ORIGINS ?? [],
    allowedHosts: commaList(vars.PORCH_ALLOWED_HOSTS),
    logLevel: vars.LOG_LEVEL,
    configPath,
    configSearch,
    file: parsedFile.data,
    ai,
    judgeThresholds: { pass: judge.pass_threshold, needsRevision: judge.needs_revision_threshold },
    workflowLimits: { maxConcurrency: workflows.max_concurrency, nodeTimeoutMs: workflows.node_timeout_ms, runTimeoutMs: workflows.run_timeout_ms },
    maxInFlightPerKey: limits.max_in_flight_per_key,
    instanceLeaseMs: parsedFile.data.processes.lease_seconds * 1_000,
    shutdownDrainMs: parsedFile.data.processes.drain_seconds * 1_000,
    runQueue: {
      concurrency: parsedFile.data.runs.concurrency,
      maxRunningPerAccount: limits.max_running_runs_per_account,
      pollIntervalMs: parsedFile.data.runs.poll_interval_ms,
    },
    quotas: {
      contextCards: quota(limits.quotas.context_cards),
      compositions: quota(limits.quotas.compositions),
      skills: quota(limits.quotas.skills),
      workflows: quota(limits.quotas.workflows),
    },
    runRetentionDays: parsedFile.data.retention.run_days,
    webhooks: {
      allowHosts: parsedFile.data.webhooks.allow_hosts,
      timeoutMs: parsedFile.data.webhooks.timeout_ms,
      concurrency: parsedFile.data.webhooks.concurrency,
      pollIntervalMs: parsedFile.data.webhooks.poll_interval_ms,
    },
    env,
    warnings,
    metrics: {
      token: vars.PORCH_METRICS_TOKEN,
      // Workers share the main port but not a metrics port: each exposes its own series on its own port.
      port:
        parsedFile.data.metrics.port === undefined || parsedFile.data.metrics.port === 0
          ? parsedFile.data.metrics.port
          : parsedFile.data.metrics.port + vars.PORCH_WORKER_INDEX,
    },
    trustRequestId: vars.PORCH_TRUST_REQUEST_ID,
    trustedProxies: vars.PORCH_TRUSTED_PROXIES,
    tracing: tracingConfig(vars),
  };
}
