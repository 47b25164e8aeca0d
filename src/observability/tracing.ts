/**
 * The OpenTelemetry trace SDK, built only when an OTLP endpoint is configured: a tracer provider
 * of this application (never registered as the process's global one, so two applications in one
 * process keep their spans apart), a batch processor and the OTLP/HTTP exporter, which sends JSON.
 * Without an endpoint nothing here is loaded and core's hooks get no tracer: no span is built.
 *
 * Spans that never reach the receiver are reported, never dropped in silence: an export that
 * fails (the receiver refused it, failed, timed out or could not be reached) is logged at most
 * once a minute and counted in porch_trace_spans_dropped_total, and so are the spans still unsent
 * when the final flush at shutdown gives up.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Agent, ClientRequest } from 'node:http';
import { Socket } from 'node:net';
import { TraceFlags, type Tracer } from '@opentelemetry/api';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config.js';

export interface Tracing {
  tracer: Tracer;
  /** Sends every finished span now (tests). */
  flush(): Promise<void>;
  /**
   * Sends the spans still held and stops, waiting at most `timeoutMs` (FINAL_FLUSH_MS by
   * default): a receiver that hangs must not hold up a stopping process. What was not sent by
   * then is logged and counted.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** Where tracing reports spans that never reached the receiver. */
export interface TracingReports {
  logger?: Logger | undefined;
  /** Counts spans that were not sent (porch_trace_spans_dropped_total). */
  onSpansDropped?: ((spans: number) => void) | undefined;
}

type TraceSdk = typeof import('@opentelemetry/sdk-trace');
type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

/** ExportResultCode.SUCCESS and FAILED of @opentelemetry/core, which Porch does not depend on directly. */
const EXPORT_SUCCEEDED = 0;
const EXPORT_FAILED = 1;

/**
 * How long the final flush at shutdown may take. The exporter's own timeout is 10 s, and a stop
 * already waits up to 15 s for requests and their settling; Kubernetes' default grace is 30 s.
 */
export const FINAL_FLUSH_MS = 3_000;

/** At most one warning about failed exports per this many milliseconds; the metric counts every span. */
const EXPORT_WARNING_INTERVAL_MS = 60_000;

/** OTEL_TRACES_SAMPLER as the specification defines its values. */
function samplerOf(sdk: TraceSdk, config: TracingConfig) {
  const root = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: () => new sdk.TraceIdRatioBasedSampler(config.samplerRatio),
  };
  switch (config.sampler) {
    case 'always_on':
    case 'always_off':
    case 'traceidratio':
      return root[config.sampler]();
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: root.always_on() });
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: root.always_off() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: root.traceidratio() });
  }
}

/**
 * The batch span processor's settings when no OTEL_BSP_* variable says otherwise: the
 * specification's defaults (the SDK no longer reads the variables itself; config.ts does).
 */
export const DEFAULT_BATCH = { scheduledDelayMs: 5000, exportTimeoutMs: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 } as const;

/**
 * A CommonJS package's exports, imported dynamically. Node gives them as named exports and as
 * `default`; the bundle (esbuild, ESM with code splitting) gives only `default`, so named exports
 * read from the namespace are undefined there (regression: tracing on made the bundled server
 * exit with "OTLPTraceExporter is not a constructor"). `default` is the exports object in both.
 */
function commonJsExports<Exports>(namespace: Exports): Exports {
  return (namespace as { default?: Exports }).default ?? namespace;
}

/** Porch's own version (package.json), the resource's `service.version`; the API version is `porch.api.version`. */
function packageVersion(): string {
  try {
    // Two folders up from src/observability, dist/observability and the bundle's stand-in for it.
    const parsed: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string' ? parsed.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The exporter's connections, which never keep the process alive: an export in flight to a
 * receiver that hangs would otherwise hold a stopping process for the exporter's whole timeout
 * after the final flush gave up (regression: a stop took 19 s with the collector hanging).
 */
async function unreferencedAgent(protocol: string): Promise<Agent> {
  const { Agent: HttpAgent } = protocol === 'https:' ? await import('node:https') : await import('node:http');
  const agent: Agent = new HttpAgent({ keepAlive: true });
  const createConnection = agent.createConnection.bind(agent);
  const reuseSocket = agent.reuseSocket.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = createConnection(options, callback);
    if (socket instanceof Socket) socket.unref();
    return socket;
  };
  // Node refs a kept-alive socket again when it reuses it.
  agent.reuseSocket = (socket, request: ClientRequest) => {
    reuseSocket(socket, request);
    if (socket instanceof Socket) socket.unref();
  };
  return agent;
}

/** The resource every span carries: the operator's OTEL_RESOURCE_ATTRIBUTES, then what Porch knows of itself. */
function resourceAttributesOf(config: TracingConfig, apiVersion: string): Record<string, string> {
  return {
    'service.version': packageVersion(),
    // One per process, so spans of the workers of one host, and of several hosts, are told apart.
    'service.instance.id': randomUUID(),
    'porch.api.version': apiVersion,
    ...config.resourceAttributes,
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, as the specification says.
    'service.name': config.serviceName,
  };
}

/** The endpoint as a log line may show it: a user, password or query (a token) in its URL would be a secret there (review). */
function withoutCredentials(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = '';
  url.password = '';
  url.search = '';
  return url.toString();
}

/** The SDK loads on demand: an operator who does not trace pays nothing for it at start-up. */
export async function createTracing(config: TracingConfig, apiVersion: string, reports: TracingReports = {}): Promise<Tracing> {
  const [sdkModule, exporterModule, resourcesModule] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = commonJsExports(sdkModule);
  const { OTLPTraceExporter } = commonJsExports(exporterModule);
  const { resourceFromAttributes } = commonJsExports(resourcesModule);
  const { logger, onSpansDropped } = reports;

  /** Sampled spans ended, and those the receiver took or that could not be sent: the rest are still on their way. */
  const counts = { ended: 0, sent: 0, failed: 0 };
  let lastWarningAt = Number.NEGATIVE_INFINITY;
  let failedSinceWarning = 0;
  const exportFailed = (spans: number, error: Error | undefined) => {
    counts.failed += spans;
    onSpansDropped?.(spans);
    failedSinceWarning += spans;
    const now = Date.now();
    if (now - lastWarningAt < EXPORT_WARNING_INTERVAL_MS) return;
    // The reason only (a status line, "Request timed out", ECONNREFUSED): never the receiver's body or the headers sent.
    logger?.warn(
      { spans: failedSinceWarning, reason: error?.message ?? 'unknown', endpoint: withoutCredentials(config.endpoint) },
      'spans could not be sent to the OTLP receiver; they are dropped (logged at most once a minute, counted in porch_trace_spans_dropped_total)',
    );
    lastWarningAt = now;
    failedSinceWarning = 0;
  };

  const otlpExporter = (timeoutMillis?: number) =>
    new OTLPTraceExporter({
      url: config.endpoint,
      headers: config.headers,
      httpAgentOptions: unreferencedAgent,
      ...(timeoutMillis === undefined ? {} : { timeoutMillis }),
    });
  let otlp = otlpExporter();
  /** Exports in flight, each answered with a failure when the final flush gives up on it. */
  const inFlight = new Set<(result: ExportResult) => void>();
  /** Set when the final flush gave up: what is still unsent was counted then, and nothing more is sent. */
  let abandoned = false;
  const exporter: SpanExporter = {
    export(spans, resultCallback) {
      if (abandoned) {
        resultCallback({ code: EXPORT_FAILED });
        return;
      }
      let answered = false;
      const answer = (result: ExportResult) => {
        if (answered) return;
        answered = true;
        inFlight.delete(answer);
        if (!abandoned && result.code === EXPORT_SUCCEEDED) counts.sent += spans.length;
        else if (!abandoned) exportFailed(spans.length, result.error);
        resultCallback(result);
      };
      inFlight.add(answer);
      otlp.export(spans, answer);
    },
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const endedCounter: SpanProcessor = {
    onStart() {},
    // The batch processor exports sampled spans only.
    onEnd(span) {
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) counts.ended += 1;
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const batch = config.batch ?? {};
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes(resourceAttributesOf(config, apiVersion)),
    sampler: samplerOf(sdk, config),
    spanProcessors: [
      endedCounter,
      new sdk.BatchSpanProcessor({
        exporter,
        maxExportBatchSize: batch.maxExportBatchSize ?? DEFAULT_BATCH.maxExportBatchSize,
        scheduledDelayMillis: batch.scheduledDelayMs ?? DEFAULT_BATCH.scheduledDelayMs,
        maxQueueSize: batch.maxQueueSize ?? DEFAULT_BATCH.maxQueueSize,
        exportTimeoutMillis: batch.exportTimeoutMs ?? DEFAULT_BATCH.exportTimeoutMs,
      }),
    ],
  });
  return {
    tracer: provider.getTracer('porch', apiVersion),
    flush: () => provider.forceFlush(),
    async shutdown(timeoutMs = FINAL_FLUSH_MS) {
      // The last exports get the bound as their whole time, retries included, instead of the
      // exporter's 10 s: none of their timers outlives the flush.
      otlp = otlpExporter(timeoutMs);
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'gave up'>((resolve) => {
        timer = setTimeout(() => resolve('gave up'), timeoutMs);
        timer.unref();
      });
      const outcome = await Promise.race([
        provider.shutdown().then(
          () => 'done' as const,
          () => 'done' as const,
        ),
        gaveUp,
      ]);
      clearTimeout(timer);
      // Spans dropped for a full queue, and any still in an export that hangs, were never sent.
      const unsent = counts.ended - counts.sent - counts.failed;
      if (outcome === 'gave up') {
        abandoned = true;
        // Answered now, so the batch processor's own timer for each (30 s) does not hold the process.
        for (const answer of [...inFlight]) answer({ code: EXPORT_FAILED, error: new Error('The final flush gave up.') });
      }
      if (unsent <= 0) return;
      onSpansDropped?.(unsent);
      logger?.warn(
        { spans: unsent, endpoint: withoutCredentials(config.endpoint), ...(outcome === 'gave up' ? { timeoutMs } : {}) },
        outcome === 'gave up'
          ? 'gave up sending the last spans: the OTLP receiver did not take them in time'
          : 'some spans were never sent to the OTLP receiver',
      );
    },
  };
}
