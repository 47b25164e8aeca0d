/**
 * The OpenTelemetry trace SDK, built only when an OTLP endpoint is configured: a tracer provider
 * of this application (never registered as the process's global one, so two applications in one
 * process keep their spans apart), a batch processor and the OTLP/HTTP exporter, which sends JSON.
 * Without an endpoint nothing here is loaded and core's hooks get no tracer: no span is built.
 */
import type { Tracer } from '@opentelemetry/api';
import type { TracingConfig } from '../config.js';

export interface Tracing {
  tracer: Tracer;
  /** Sends every finished span now (tests, and shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

type TraceSdk = typeof import('@opentelemetry/sdk-trace');

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

/** The SDK loads on demand: an operator who does not trace pays nothing for it at start-up. */
export async function createTracing(config: TracingConfig, serviceVersion: string): Promise<Tracing> {
  const [sdkModule, exporterModule, resourcesModule] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = commonJsExports(sdkModule);
  const { OTLPTraceExporter } = commonJsExports(exporterModule);
  const { resourceFromAttributes } = commonJsExports(resourcesModule);
  const exporter = new OTLPTraceExporter({ url: config.endpoint, headers: config.headers });
  const batch = config.batch ?? {};
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': serviceVersion }),
    sampler: samplerOf(sdk, config),
    spanProcessors: [
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
    tracer: provider.getTracer('porch', serviceVersion),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
