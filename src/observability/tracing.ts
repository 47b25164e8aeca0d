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

/** The SDK loads on demand: an operator who does not trace pays nothing for it at start-up. */
export async function createTracing(config: TracingConfig, serviceVersion: string): Promise<Tracing> {
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = new OTLPTraceExporter({ url: config.endpoint, headers: config.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': serviceVersion }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer('porch', serviceVersion),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
