/**
 * `npm run bench:observability`: what metrics and tracing cost, side by side in one run. Porch
 * runs twice from the same build, each in its own process on its own copy of the seeded data:
 * "off" as shipped with nothing configured (metrics recorded but not served, no tracer), and
 * "on" with PORCH_METRICS_TOKEN and OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP sink
 * (its own process), scraped once per round as Prometheus would. With BENCH_BASELINE_DIST set
 * to the dist/ of a build from before the instrumentation, that build runs as a third server.
 *
 * Throughput rows run in several short rounds. In each, every server is under the same list
 * load at the same time (CONNECTIONS shared out among them), so whatever else the shared machine
 * runs falls on all of them alike; taking turns instead let rounds minutes apart meet different
 * neighbours, and paired figures swung by ±40 %. BENCH_TURNS=1 takes turns (the order flipping
 * each round), for throughput figures of one server alone. The result is the range over rounds
 * and the median of the per-round ratios. Execution latency alternates single calls between the servers (the
 * upstream is a zero-latency fake in its own process) in blocks, reporting each block's p50.
 *
 * Wall-clock numbers depend on what else the machine runs; each server's own CPU time (summed over
 * its threads from /proc, so the exporter's background work counts too) depends on it much less.
 * A CPU-bound server's throughput is the inverse of its CPU time per request, and what
 * instrumentation adds to an execution's latency is CPU work on the request's path, so CPU per
 * request is what the targets are checked against; the wall-clock figures stand beside it.
 * A micro-measurement times core's span hook with no tracer: the cost of tracing when it is off.
 *
 * BENCH_QUICK=1 shortens every phase (for checking the harness, not for numbers).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { createTelemetry } from '../src/core/telemetry/telemetry.js';
import { createApplication } from '../src/main.js';
import { createTracing } from '../src/observability/tracing.js';
import {
  benchAiConfig,
  benchListBundle,
  benchPorchEnv,
  children,
  cpuNanoseconds,
  LISTENING,
  PORCH_READY,
  startProcess,
  stopProcess,
  TSX,
} from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
/** BENCH_TRACE_GC=1 runs every server with --trace-gc and reports its collections and their main-thread pauses per list request. */
const TRACE_GC = process.env.BENCH_TRACE_GC === '1';
const ROUNDS = QUICK ? 2 : 6;
const ROUND_SECONDS = QUICK ? 2 : 5;
const WARMUP_SECONDS = QUICK ? 1 : 3;
const CONNECTIONS = 32;
const LATENCY_BLOCKS = QUICK ? 2 : 4;
const LATENCY_SAMPLES_PER_BLOCK = QUICK ? 100 : 600;
const LATENCY_WARMUP = QUICK ? 20 : 200;
const NOOP_SPAN_CALLS = QUICK ? 100_000 : 2_000_000;
const TRACING_CPU_REQUESTS = QUICK ? 5_000 : 20_000;
const CARDS_IN_LIST = 20;
const METRICS_TOKEN = 'bench-metrics-token-0123456789abcdef';
const GATEWAY_KEY = 'sk-bench-gateway';

/** A port free on 127.0.0.1 now (for a `metrics.port`, which the server does not print). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

function p50(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.5 * sorted.length) - 1)] ?? NaN;
}

/** One account with the 20-card list and a one-variable composition, as the main bench seeds it. */
async function seed(env: NodeJS.ProcessEnv): Promise<{ key: string; compositionId: string }> {
  const application = await createApplication(loadConfig(env, ROOT), { processMetrics: false });
  try {
    const { core } = application;
    const account = await core.accounts.createAccount({ email: 'bench@example.com', plan: 'expert', credits: 1_000_000_000 });
    const key = await core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
    const { ids } = await core.bundles.importBundle(account.id, {
      ...benchListBundle(CARDS_IN_LIST),
    });
    const compositionId = ids['composition:hello'];
    if (compositionId === undefined) throw new Error('seeding created no composition');
    return { key: key.plaintext, compositionId };
  } finally {
    await application.close();
  }
}

interface Server {
  name: string;
  url: string;
  key: string;
  compositionId: string;
  process: ChildProcess;
  /** Whether it serves /metrics on its port (PORCH_METRICS_TOKEN set): each round scrapes it. */
  metricsToken: boolean;
  /** Its `metrics.port`, when it serves its metrics there instead: each round scrapes that. */
  metricsPort: number | undefined;
  rounds: number[];
  /** Server CPU microseconds per list request, one per round. */
  listCpu: number[];
  executeP50s: number[];
  /** Server CPU microseconds per execution, one per block. */
  executeCpu: number[];
  /** Collections so far (BENCH_TRACE_GC=1), and requests the list rounds answered. */
  gc: GcTally;
  listRequests: number;
}

/** What --trace-gc printed so far: collections and their pauses on the main thread. */
interface GcTally {
  scavenges: number;
  markCompacts: number;
  scavengeMs: number;
  markCompactMs: number;
}

/** `... Scavenge 12.1 (14.0) -> 10.2 (15.0) MB, 1.25 / 0.00 ms ...`: the first figure after `MB,` is the pause. */
const GC_LINE = /(Scavenge|Mark-Compact)\b.*?MB, ([\d.]+) \/ [\d.]+ ms/;

function tallyGcLine(tally: GcTally, line: string): void {
  const match = GC_LINE.exec(line);
  if (match === null) return;
  const pause = Number(match[2]);
  if (match[1] === 'Scavenge') {
    tally.scavenges += 1;
    tally.scavengeMs += pause;
  } else {
    tally.markCompacts += 1;
    tally.markCompactMs += pause;
  }
}

async function listThroughput(server: Server, seconds: number, connections: number): Promise<{ requestsPerSecond: number; cpuMicroseconds: number }> {
  const cpuBefore = await cpuNanoseconds(server.process.pid ?? 0);
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', path: '/api/public/v1/context-cards', headers: { 'x-api-key': server.key } }],
  });
  const cpuAfter = await cpuNanoseconds(server.process.pid ?? 0);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) throw new Error(`${server.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  server.listRequests += result.requests.total;
  return { requestsPerSecond: result.requests.average, cpuMicroseconds: (cpuAfter - cpuBefore) / 1e3 / Math.max(1, result.requests.total) };
}

async function scrape(server: Server): Promise<number> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`scrape: ${response.status}`);
  return text.length;
}

function executeOnce(server: Server): () => Promise<number> {
  const body = JSON.stringify({ variables: { name: 'Ada' } });
  return async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/api/public/v1/compositions/${server.compositionId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${server.name} execute: ${response.status} ${text.slice(0, 200)}`);
    return performance.now() - started;
  };
}

/**
 * The CPU a list request's span (the request's, carrying the operation) costs this process to
 * create and export to the sink, against the same hooks with tracing off: tracing's own share of a request,
 * without the noise of HTTP and of the other processes. Medians of 3 passes, in microseconds.
 */
async function tracingCpuPerRequest(sinkUrl: string): Promise<{ off: number; on: number }> {
  const tracing = await createTracing(
    { endpoint: `${sinkUrl}/v1/traces`, headers: {}, serviceName: 'porch', captureMessageContent: false, sampler: 'parentbased_always_on', samplerRatio: 1 },
    'bench',
  );
  const traced = createTelemetry({ tracer: tracing.tracer });
  const untraced = createTelemetry();
  const requestAttributes = { 'http.request.method': 'GET', 'url.path': '/api/public/v1/context-cards', 'porch.door': 'rest' };
  const operationAttributes = { 'porch.operation': 'list_context_cards', 'porch.door': 'rest' };
  const listShaped = async (telemetry: typeof traced) => {
    const { scope, span } = telemetry.request('bench', 'GET rest', undefined, { attributes: requestAttributes });
    await telemetry.inRequestSpan(scope, 'list_context_cards', { attributes: operationAttributes }, async () => 1);
    span.setAttribute('http.response.status_code', 200);
    span.end();
    return 1;
  };
  const cpuPerRequest = async (telemetry: typeof traced) => {
    for (let index = 0; index < TRACING_CPU_REQUESTS / 10; index++) await listShaped(telemetry);
    await tracing.flush();
    const before = process.cpuUsage();
    for (let index = 0; index < TRACING_CPU_REQUESTS; index++) {
      await listShaped(telemetry);
      // Let the batch processor's timer and the exporter's sockets run, as they would between requests.
      if (index % 400 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await tracing.flush();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / TRACING_CPU_REQUESTS;
  };
  const off: number[] = [];
  const on: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    off.push(await cpuPerRequest(untraced));
    on.push(await cpuPerRequest(traced));
  }
  await tracing.shutdown();
  return { off: median(off), on: median(on) };
}

/** Core's span hook with no tracer against the bare call it wraps: what tracing costs when it is off, per span. */
async function noopSpanCost(): Promise<{ nsPerSpan: number }> {
  const telemetry = createTelemetry();
  const work = async () => 1;
  const time = async (call: () => Promise<number>) => {
    const started = process.hrtime.bigint();
    for (let index = 0; index < NOOP_SPAN_CALLS; index++) await call();
    return Number(process.hrtime.bigint() - started) / NOOP_SPAN_CALLS;
  };
  const scope = { requestId: 'bench' };
  const spanned = () => telemetry.span(scope, 'bench', {}, work);
  // Alternate a few times and keep the medians: the first passes also warm the JIT.
  const bare: number[] = [];
  const hooked: number[] = [];
  for (let pass = 0; pass < 5; pass++) {
    bare.push(await time(work));
    hooked.push(await time(spanned));
  }
  return { nsPerSpan: median(hooked) - median(bare) };
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'porch-obs-bench-'));
  try {
    const fake = await startProcess(TSX, [join(ROOT, 'bench', 'fake-openai-server.ts')], process.env, LISTENING);
    const sink = await startProcess(TSX, [join(ROOT, 'bench', 'otlp-sink.ts')], process.env, LISTENING);
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: benchAiConfig(fake.url) }));
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const nodeFlags = manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
    const variants: Array<{ name: string; dist: string; env: Record<string, string> }> = [
      { name: 'off (nothing configured)', dist: join(ROOT, 'dist'), env: {} },
      {
        name: 'on (metrics token + OTLP export)',
        dist: join(ROOT, 'dist'),
        env: { PORCH_METRICS_TOKEN: METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
      },
    ];
    // BENCH_SPLIT=1 adds each half alone, to tell what costs what.
    if (process.env.BENCH_SPLIT === '1') {
      variants.push({ name: 'metrics (token only)', dist: join(ROOT, 'dist'), env: { PORCH_METRICS_TOKEN: METRICS_TOKEN } });
      variants.push({ name: 'tracing (OTLP export only)', dist: join(ROOT, 'dist'), env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
    }
    // BENCH_POKED=1 adds a server configured as "off" that is sent one GET /livez per round, as the
    // servers with the metrics token are sent their scrape: both leave the operation routes for the
    // Express app behind them, and this tells what that does to the requests that follow.
    // BENCH_METRICS_PORT=1 adds a server instrumented as "on" but serving its metrics on a
    // separate loopback port (`metrics.port`, Node's own HTTP server) instead of the main port's
    // token route, and scraped there each round.
    const metricsPorts = new Map<string, number>();
    if (process.env.BENCH_METRICS_PORT === '1') {
      const port = await freePort();
      const portConfig = join(directory, 'porch-metrics-port.config.yaml');
      await writeFile(portConfig, stringify({ ai: benchAiConfig(fake.url), metrics: { port } }));
      const name = 'mport (on, metrics on metrics.port)';
      metricsPorts.set(name, port);
      variants.push({ name, dist: join(ROOT, 'dist'), env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, PORCH_CONFIG: portConfig } });
    }
    // BENCH_OFF_COPY=1 adds a second server configured as "off": how far two identical servers differ.
    if (process.env.BENCH_OFF_COPY === '1') variants.push({ name: 'off2 (nothing configured, a second copy)', dist: join(ROOT, 'dist'), env: {} });
    if (process.env.BENCH_POKED === '1') variants.push({ name: 'poked (off, GET /livez each round)', dist: join(ROOT, 'dist'), env: {} });
    // BENCH_ON_VARIANTS=name:KEY=value;KEY=value,... adds servers instrumented as "on" is plus those
    // settings (e.g. `bsp128:OTEL_BSP_MAX_EXPORT_BATCH_SIZE=128`): a setting measured against the
    // default in the same rounds. BENCH_OFF_VARIANTS does the same on top of "off". Two settings
    // are the bench's, not the server's: NODE_FLAGS (node flags for that server, space-separated)
    // and EXECUTE_FIRST=<n> (n executions before the list load, so the server has made outbound
    // calls, as a production server has). `$SINK` in a value is the OTLP sink's URL.
    const settingsOf = (settings: string) =>
      Object.fromEntries(
        settings
          .split(';')
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1).replace('$SINK', sink.url)]),
      );
    for (const spec of (process.env.BENCH_ON_VARIANTS ?? '').split(',').filter(Boolean)) {
      const [name = '', settings = ''] = spec.split(':');
      variants.push({
        name: `${name} (on + ${settings})`,
        dist: join(ROOT, 'dist'),
        env: { PORCH_METRICS_TOKEN: METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...settingsOf(settings) },
      });
    }
    for (const spec of (process.env.BENCH_OFF_VARIANTS ?? '').split(',').filter(Boolean)) {
      const [name = '', settings = ''] = spec.split(':');
      variants.push({ name: `${name} (off + ${settings})`, dist: join(ROOT, 'dist'), env: settingsOf(settings) });
    }
    // BENCH_COMPARE_DIST=<dist of another build> adds that build instrumented as "on" is: a change
    // to instrumentation measured against the build without it, in the same rounds.
    const compareDist = process.env.BENCH_COMPARE_DIST;
    if (compareDist !== undefined && compareDist !== '') {
      variants.push({
        name: 'previous (on, BENCH_COMPARE_DIST build)',
        dist: compareDist,
        env: { PORCH_METRICS_TOKEN: METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
      });
    }
    const baselineDist = process.env.BENCH_BASELINE_DIST;
    if (baselineDist !== undefined && baselineDist !== '') variants.unshift({ name: 'baseline (before instrumentation)', dist: baselineDist, env: {} });

    const servers: Server[] = [];
    for (const [index, variant] of variants.entries()) {
      const env = { ...benchPorchEnv(directory, `porch-${index}.db`, configPath, GATEWAY_KEY), ...variant.env };
      const seeded = await seed(env);
      const { NODE_FLAGS: extraFlags = '', EXECUTE_FIRST: executeFirst = '0', ...serverEnv } = env;
      const flags = [...nodeFlags, ...extraFlags.split(' ').filter(Boolean), ...(TRACE_GC ? ['--trace-gc'] : [])];
      const started = await startProcess(process.execPath, [...flags, join(variant.dist, 'cli', 'index.js'), 'serve'], serverEnv, PORCH_READY);
      const gc: GcTally = { scavenges: 0, markCompacts: 0, scavengeMs: 0, markCompactMs: 0 };
      if (TRACE_GC) {
        let partial = '';
        started.process.stdout?.on('data', (chunk: Buffer) => {
          const lines = (partial + chunk.toString()).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) tallyGcLine(gc, line);
        });
      }
      servers.push({
        name: variant.name,
        url: started.url,
        process: started.process,
        metricsToken: variant.env.PORCH_METRICS_TOKEN !== undefined,
        metricsPort: metricsPorts.get(variant.name),
        ...seeded,
        rounds: [],
        listCpu: [],
        executeP50s: [],
        executeCpu: [],
        gc,
        listRequests: 0,
      });
      const call = executeOnce(servers[servers.length - 1] as Server);
      for (let index = 0; index < Number(executeFirst); index++) await call();
      process.stdout.write(`${variant.name}: ${started.url}\n`);
    }

    const turns = process.env.BENCH_TURNS === '1';
    const connections = turns ? CONNECTIONS : Math.max(1, Math.floor(CONNECTIONS / servers.length));
    process.stdout.write(
      `List throughput: ${ROUNDS} rounds of ${ROUND_SECONDS} s, ${connections} connections per server, ${turns ? 'servers taking turns' : 'all servers at once'}\n`,
    );
    for (const server of servers) await listThroughput(server, WARMUP_SECONDS, connections);
    let scrapedBytes = 0;
    const gcBefore = servers.map((server) => ({ ...server.gc, requests: server.listRequests }));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      const measured = new Map<Server, Awaited<ReturnType<typeof listThroughput>>>();
      if (turns) {
        for (const server of order) measured.set(server, await listThroughput(server, ROUND_SECONDS, connections));
      } else {
        // Each round starts the loads in another order: the load started first got its connections
        // first and, on a saturated machine, a larger share of the CPU, and a server answering fewer
        // requests a second spends more CPU on each (fewer requests per wake-up and per write). With
        // one fixed order, a second copy of "on" measured 16 points below "on" in the same rounds.
        const rotated = [...servers.slice(round % servers.length), ...servers.slice(0, round % servers.length)];
        const results = await Promise.all(rotated.map((server) => listThroughput(server, ROUND_SECONDS, connections)));
        for (const [position, server] of rotated.entries()) measured.set(server, results[position] ?? { requestsPerSecond: NaN, cpuMicroseconds: NaN });
      }
      for (const server of servers) {
        const result = measured.get(server);
        if (result === undefined) throw new Error(`${server.name}: no result in round ${round + 1}`);
        server.rounds.push(result.requestsPerSecond);
        server.listCpu.push(result.cpuMicroseconds);
      }
      // Every server with the metrics token is scraped alike, so a scrape is no difference between them.
      for (const server of servers) if (server.metricsToken) scrapedBytes = await scrape(server);
      for (const server of servers) if (server.metricsPort !== undefined) await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
      for (const server of servers) if (server.name.startsWith('poked')) await (await fetch(`${server.url}/livez`)).text();
      process.stdout.write(
        `  round ${round + 1}: ${servers.map((server) => `${server.name.split(' ')[0]} ${Math.round(server.rounds[round] ?? 0)} req/s ${server.listCpu[round]?.toFixed(0)} µs CPU`).join(', ')}\n`,
      );
    }

    if (TRACE_GC) {
      for (const [position, server] of servers.entries()) {
        const before = gcBefore[position] ?? { scavenges: 0, markCompacts: 0, scavengeMs: 0, markCompactMs: 0, requests: 0 };
        const requests = server.listRequests - before.requests;
        const pausePerRequest = (ms: number) => ((ms / requests) * 1000).toFixed(2);
        process.stdout.write(
          `  ${server.name.split(' ')[0]}: ${requests} list requests, ${server.gc.scavenges - before.scavenges} scavenges, ${server.gc.markCompacts - before.markCompacts} mark-compacts (${(((server.gc.markCompacts - before.markCompacts) / requests) * 1e4).toFixed(2)} per 10,000); pauses per request: scavenges ${pausePerRequest(server.gc.scavengeMs - before.scavengeMs)} µs, mark-compacts ${pausePerRequest(server.gc.markCompactMs - before.markCompactMs)} µs\n`,
        );
      }
    }
    process.stdout.write(`Execution latency: ${LATENCY_BLOCKS} blocks of ${LATENCY_SAMPLES_PER_BLOCK} sequential calls per server, taking turns\n`);
    const calls = servers.map(executeOnce);
    for (let index = 0; index < LATENCY_WARMUP; index++) for (const call of calls) await call();
    for (let block = 0; block < LATENCY_BLOCKS; block++) {
      const samples: number[][] = servers.map(() => []);
      const cpuBefore = await Promise.all(servers.map((server) => cpuNanoseconds(server.process.pid ?? 0)));
      for (let index = 0; index < LATENCY_SAMPLES_PER_BLOCK; index++) {
        for (const [position, call] of calls.entries()) samples[position]?.push(await call());
      }
      const cpuAfter = await Promise.all(servers.map((server) => cpuNanoseconds(server.process.pid ?? 0)));
      for (const [position, server] of servers.entries()) {
        server.executeP50s.push(p50(samples[position] ?? []));
        server.executeCpu.push(((cpuAfter[position] ?? 0) - (cpuBefore[position] ?? 0)) / 1e3 / LATENCY_SAMPLES_PER_BLOCK);
      }
      process.stdout.write(
        `  block ${block + 1}: ${servers.map((server) => `${server.name.split(' ')[0]} p50 ${server.executeP50s[block]?.toFixed(3)} ms ${server.executeCpu[block]?.toFixed(0)} µs CPU`).join(', ')}\n`,
      );
    }
    const sinkStats = (await (await fetch(`${sink.url}/stats`)).json()) as { exports: number; bytes: number };
    if (sinkStats.exports === 0) throw new Error('the instrumented server exported no spans');
    const noop = await noopSpanCost();
    const tracingCpu = await tracingCpuPerRequest(sink.url);

    const off = servers.find((server) => server.name.startsWith('off'));
    if (off === undefined) throw new Error('no plain server');
    const lines: string[] = [];
    const range = (values: readonly number[], digits = 0) =>
      `${Math.min(...values).toLocaleString('en-US', { maximumFractionDigits: digits })}–${Math.max(...values).toLocaleString('en-US', { maximumFractionDigits: digits })}`;
    lines.push(`Run on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} vCPU (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}.`);
    lines.push('');
    // Against the baseline when there is one (the targets are stated against it), else against "off".
    // "Paired" compares each round's (each block's) figures, taken minutes apart at most, so drift of
    // the shared machine cancels; the range over rounds says how far to trust the median.
    const reference = servers.find((server) => server.name.startsWith('baseline')) ?? off;
    const signed = (value: number, digits: number) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
    lines.push(
      `| Server | list req/s (${ROUNDS} rounds) | list CPU µs/request | median | vs ${reference.name.split(' ')[0]}, paired: median (range) | execute p50 ms (${LATENCY_BLOCKS} blocks) | p50 vs ${reference.name.split(' ')[0]}, paired | execute CPU µs/call | median | vs ${reference.name.split(' ')[0]}, paired: median (range) |`,
    );
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const server of servers) {
      const listRatios = server.listCpu.map((value, round) => (value / (reference.listCpu[round] ?? value) - 1) * 100);
      const p50Added = server.executeP50s.map((value, block) => value - (reference.executeP50s[block] ?? value));
      const cpuAdded = server.executeCpu.map((value, block) => (value - (reference.executeCpu[block] ?? value)) / 1e3);
      lines.push(
        `| ${server.name} | ${range(server.rounds)} | ${range(server.listCpu)} | ${median(server.listCpu).toFixed(0)} | ${signed(median(listRatios), 1)} % (${signed(Math.min(...listRatios), 0)} to ${signed(Math.max(...listRatios), 0)}) | ${range(server.executeP50s, 2)} | ${signed(median(p50Added), 2)} ms | ${range(server.executeCpu)} | ${median(server.executeCpu).toFixed(0)} | ${signed(median(cpuAdded), 2)} ms (${signed(Math.min(...cpuAdded), 2)} to ${signed(Math.max(...cpuAdded), 2)}) |`,
      );
    }
    lines.push('');
    lines.push(
      `The OTLP sink received ${sinkStats.exports} exports (${(sinkStats.bytes / 1e6).toFixed(1)} MB); each /metrics scrape was ${(scrapedBytes / 1024).toFixed(0)} KiB. Core's span hook with no tracer costs ${noop.nsPerSpan.toFixed(0)} ns per span over the bare call (median of 5 passes of ${NOOP_SPAN_CALLS.toLocaleString('en-US')}).`,
    );
    const listCpuOff = median(off.listCpu);
    lines.push(
      `In this process, a list request's span cost ${(tracingCpu.on - tracingCpu.off).toFixed(1)} µs of CPU to create and export (${tracingCpu.on.toFixed(1)} µs with tracing, ${tracingCpu.off.toFixed(1)} µs without), ${(((tracingCpu.on - tracingCpu.off) / listCpuOff) * 100).toFixed(1)} % of the ${listCpuOff.toFixed(0)} µs of CPU the plain server spent per list request in this run.`,
    );
    process.stdout.write(`\n${lines.join('\n')}\n`);
    await stopProcess(fake.process);
    await stopProcess(sink.process);
  } finally {
    await Promise.all([...children].map(stopProcess));
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
