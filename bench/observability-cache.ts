/**
 * `npx tsx bench/observability-cache.ts`: what a list request's span costs to create and end when
 * the processor's caches hold it (a loop of nothing but spans, as bench/observability-alloc.ts
 * measures) and when they do not (CACHE_MB of memory read and written between two requests, as a
 * server's own work for a request evicts what the span code and its objects left there). The
 * exporter serialises each batch to OTLP JSON and drops it; its cost is not in the figure, which
 * times only the request's calls into core's telemetry hooks.
 *
 * CACHE_MB (default 1,8) is a list of sizes; each round runs every mode once, CACHE_ROUNDS (3)
 * rounds, and the median per mode is reported.
 */
import { createTelemetry } from '../src/core/telemetry/telemetry.js';

const SIZES_MB = (process.env.CACHE_MB ?? '1,8').split(',').map(Number);
const ROUNDS = Number(process.env.CACHE_ROUNDS ?? 3);
const HOT_REQUESTS = 100_000;
const COLD_REQUESTS = 5_000;

const sdk = await import('@opentelemetry/sdk-trace');
const { JsonTraceSerializer } = await import('@opentelemetry/otlp-transformer');
const { resourceFromAttributes } = await import('@opentelemetry/resources');
let serialisedBytes = 0;
const exporter = {
  export(spans: Parameters<typeof JsonTraceSerializer.serializeRequest>[0], done: (result: { code: number }) => void) {
    serialisedBytes += JsonTraceSerializer.serializeRequest(spans)?.length ?? 0;
    done({ code: 0 });
  },
  async shutdown() {},
};
const provider = new sdk.TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'porch', 'service.version': 'bench' }),
  spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
});
const telemetry = createTelemetry({ tracer: provider.getTracer('porch', 'bench') });
const caller = { account: { id: 'acct_0123456789abcdef' }, credential: {} } as unknown as Parameters<typeof telemetry.setCaller>[1];

/** The hooks a REST list request calls, with the attributes the REST door and the router set. */
async function listRequestSpan(): Promise<void> {
  const path = '/api/public/v1/context-cards';
  const { scope, span } = telemetry.request('req-0123456789', 'GET rest', undefined, {
    attributes: { 'http.request.method': 'GET', 'url.scheme': 'http', 'url.path': path, 'porch.door': 'rest' },
  });
  await telemetry.inRequestSpan(scope, 'list_context_cards', { attributes: { 'porch.operation': 'list_context_cards', 'porch.door': 'rest' } }, async () => {
    telemetry.setCaller(scope, caller);
    return 1;
  });
  span.setAttribute('http.route', path);
  span.setAttribute('http.response.status_code', 200);
  span.end();
}

/** Reads and writes one double per 64-byte line of `memory`: every line of it passes through the caches. */
function evict(memory: Float64Array): void {
  for (let index = 0; index < memory.length; index += 8) memory[index] = (memory[index] ?? 0) + 1;
}

async function measure(memory: Float64Array | undefined): Promise<number> {
  const requests = memory === undefined ? HOT_REQUESTS : COLD_REQUESTS;
  let nanoseconds = 0n;
  for (let index = 0; index < requests; index++) {
    if (memory !== undefined) evict(memory);
    const started = process.hrtime.bigint();
    await listRequestSpan();
    nanoseconds += process.hrtime.bigint() - started;
    if (index % 400 === 0) await provider.forceFlush();
  }
  return Number(nanoseconds) / requests / 1000;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const modes: Array<{ name: string; memory: Float64Array | undefined }> = [
  { name: 'hot (spans only)', memory: undefined },
  ...SIZES_MB.map((mb) => ({ name: `${mb} MB evicted between requests`, memory: new Float64Array((mb * 1024 * 1024) / 8) })),
];
const results = modes.map(() => [] as number[]);
await measure(undefined);
for (let round = 0; round < ROUNDS; round++) {
  for (const [position, mode] of modes.entries()) results[position]?.push(await measure(mode.memory));
}
await provider.shutdown();
for (const [position, mode] of modes.entries()) {
  const values = results[position] ?? [];
  process.stdout.write(`${mode.name.padEnd(34)} ${median(values).toFixed(2)} µs per request span (${values.map((value) => value.toFixed(1)).join(', ')})\n`);
}
process.stdout.write(`(${(serialisedBytes / 1e6).toFixed(1)} MB of OTLP JSON serialised and dropped)\n`);
