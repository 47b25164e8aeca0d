/**
 * `node --expose-gc --max-semi-space-size=128 --min-semi-space-size=128 --import tsx bench/observability-alloc.ts`:
 * what the telemetry of one list request allocates and costs in CPU, in process, by part: the
 * metric events alone (what every server pays, traced or not), then the request's span through the
 * SDK with the OTLP/HTTP exporter to the local sink (bench/otlp-sink.ts, its own process). Bytes
 * are the heap's growth over a pass with no collection in it (the young generation is made larger
 * than a pass allocates; a pass in which a collection ran is reported as such, not counted), so
 * every object the path creates counts, the queued spans and the export's included.
 *
 * ALLOC_REQUESTS (default 20,000) requests per pass, 5 passes per variant, medians.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createTelemetry, NO_EVENTS } from '../src/core/telemetry/telemetry.js';
import { createMetrics } from '../src/observability/metrics.js';
import { createTracing, type Tracing } from '../src/observability/tracing.js';
import { children, LISTENING, startProcess, stopProcess, TSX } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REQUESTS = Number(process.env.ALLOC_REQUESTS ?? 20_000);
const PASSES = 5;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

type Telemetry = ReturnType<typeof createTelemetry>;
type Metrics = ReturnType<typeof createMetrics>;
/** Metrics that record nothing: the cost of the hooks alone. */
const NO_METRICS = { events: NO_EVENTS, httpRequest() {}, storeTransaction() {} } as unknown as Metrics;
const caller = { account: { id: 'acct_0123456789abcdef' }, credential: {} } as unknown as Parameters<Telemetry['setCaller']>[1];

/** The telemetry a REST list request goes through, in the order the door and invokeOperation call it. */
async function listShaped(telemetry: Telemetry, metrics: Metrics): Promise<void> {
  const path = '/api/public/v1/context-cards';
  const { scope, span } = telemetry.request('req-0123456789', 'GET rest', undefined, {
    attributes: { 'http.request.method': 'GET', 'url.path': path, 'porch.door': 'rest' },
  });
  const startedAt = process.hrtime.bigint();
  await telemetry.inRequestSpan(scope, 'list_context_cards', { attributes: { 'porch.operation': 'list_context_cards', 'porch.door': 'rest' } }, async () => {
    telemetry.setCaller(scope, caller);
    metrics.storeTransaction('rateLimits.check', 0.00005);
    return 1;
  });
  telemetry.events.operation({ operation: 'list_context_cards', door: 'rest', code: 'OK', durationSeconds: Number(process.hrtime.bigint() - startedAt) / 1e9 });
  if (telemetry.tracing) {
    span.setAttribute('http.response.status_code', 200);
    span.end();
  }
  metrics.httpRequest('rest', 200, 0.0002);
}

async function measure(name: string, telemetry: Telemetry, metrics: Metrics, tracing: Tracing | undefined): Promise<void> {
  const bytes: number[] = [];
  const cpu: number[] = [];
  let dirty = 0;
  for (let index = 0; index < REQUESTS; index++) await listShaped(telemetry, metrics);
  for (let pass = 0; pass < PASSES; pass++) {
    await tracing?.flush();
    gc?.();
    gc?.();
    // The observer hears of the collections just forced a turn later: let it, before counting.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const seen = collections;
    const heapBefore = process.memoryUsage().heapUsed;
    const cpuBefore = process.cpuUsage();
    for (let index = 0; index < REQUESTS; index++) {
      await listShaped(telemetry, metrics);
      // The batch processor's timer and the exporter's socket get their turns, as between requests.
      if (index % 400 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await tracing?.flush();
    const used = process.cpuUsage(cpuBefore);
    const grown = process.memoryUsage().heapUsed - heapBefore;
    cpu.push((used.user + used.system) / REQUESTS);
    if (collections === seen) bytes.push(grown / REQUESTS);
    else dirty++;
  }
  const heap = bytes.length === 0 ? 'a collection ran in every pass' : `${median(bytes).toFixed(0)} bytes (${bytes.map((b) => b.toFixed(0)).join(', ')})`;
  process.stdout.write(
    `${name.padEnd(44)} ${median(cpu).toFixed(2)} µs CPU (${cpu.map((c) => c.toFixed(1)).join(', ')}); ${heap}${dirty > 0 ? `; ${dirty} passes with a GC left out` : ''}\n`,
  );
}

/**
 * The SDK as createTracing builds it, but with an exporter that sends nothing: it turns each batch
 * into OTLP bytes (JSON as the HTTP exporter does, or protobuf as the proto exporter does) and
 * drops them, or (`none`) drops the spans. The differences to the shipped variant split span creation from export.
 */
async function sdkTracing(serialise: 'none' | 'json' | 'protobuf'): Promise<Tracing> {
  const sdk = await import('@opentelemetry/sdk-trace');
  const { JsonTraceSerializer, ProtobufTraceSerializer } = await import('@opentelemetry/otlp-transformer');
  const serializer = serialise === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer;
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  let sink = 0;
  const exporter = {
    export(spans: Parameters<typeof JsonTraceSerializer.serializeRequest>[0], done: (result: { code: number }) => void) {
      if (serialise !== 'none') sink += serializer.serializeRequest(spans)?.length ?? 0;
      done({ code: 0 });
    },
    async shutdown() {},
  };
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'porch', 'service.version': 'bench' }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer('porch', 'bench'),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      if (serialise !== 'none') process.stdout.write(`  (${(sink / 1e6).toFixed(1)} MB serialised)\n`);
    },
  };
}

const sink = await startProcess(TSX, [join(ROOT, 'bench', 'otlp-sink.ts')], process.env, LISTENING);
try {
  const base = { endpoint: `${sink.url}/v1/traces`, headers: {}, serviceName: 'porch', captureMessageContent: false, samplerRatio: 1 } as const;
  const variants: Array<{ name: string; metrics?: false; tracing?: () => Promise<Tracing> }> = [
    { name: 'neither (the hooks alone)', metrics: false },
    { name: 'metrics only (no tracer)' },
    { name: 'metrics + span, OTLP export (as shipped)', tracing: () => createTracing({ ...base, sampler: 'parentbased_always_on' }, 'bench') },
    { name: 'metrics + SDK, sampler always_off', tracing: () => createTracing({ ...base, sampler: 'always_off' }, 'bench') },
    { name: 'metrics + span, exporter discarding', tracing: () => sdkTracing('none') },
    { name: 'metrics + span, exporter serialising only', tracing: () => sdkTracing('json') },
    { name: 'metrics + span, exporter serialising protobuf', tracing: () => sdkTracing('protobuf') },
  ];
  const only = process.env.ALLOC_VARIANTS?.split(',');
  for (const variant of variants) {
    if (only !== undefined && !only.some((word) => variant.name.includes(word))) continue;
    const tracing = await variant.tracing?.();
    const metrics = variant.metrics === false ? NO_METRICS : createMetrics({ processMetrics: false });
    const telemetry = createTelemetry({ tracer: tracing?.tracer, events: metrics.events });
    await measure(variant.name, telemetry, metrics, tracing);
    await tracing?.shutdown();
  }
} finally {
  await stopProcess(sink.process);
  await Promise.all([...children].map(stopProcess));
}
