/**
 * `npx tsx bench/list-bench.ts`: the authenticated 20-card list (REST, and MCP's
 * list_context_cards) of one or more Porch builds beside bare Express, in interleaved rounds
 * (each round loads every server once, in turn), so the shared machine's drift falls on all of
 * them alike; each ratio is paired within its round. Each round also reports every server's CPU
 * time per request answered (Linux /proc): the cost a CPU-bound server's throughput is the
 * inverse of, and what a profile's shares divide (bench/profile-shares.ts).
 *
 * BENCH_DISTS="base=/tmp/base/dist,new=dist" compares builds (default: this tree's dist);
 * BENCH_NODE_ARGS adds node flags to the Porch servers (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof");
 * BENCH_ROUNDS (default 5) and BENCH_SECONDS (default 5) size the run; BENCH_MCP=0 skips MCP,
 * BENCH_REST=0 skips REST (so a profile of the servers holds MCP requests only).
 *
 * BENCH_LATENCY=<calls> times sequential calls instead, every target taking turns call by call
 * (one keep-alive connection each): the p50 per target, and each one's p50 less bare Express's,
 * which is the server's own cost per request. Throughput rounds of a few seconds cannot tell two
 * builds apart when other work takes the machine's cores in bursts; turns call by call can.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
import {
  benchListBundle,
  benchPorchEnv,
  children,
  cpuNanoseconds,
  LISTENING,
  PORCH_READY,
  startProcess,
  stopProcess,
  TSX,
  type Child,
} from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const WITH_MCP = process.env.BENCH_MCP !== '0';
const WITH_REST = process.env.BENCH_REST !== '0';
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY ?? 0);
const NODE_ARGS = ['--max-semi-space-size=8', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];

interface Target {
  name: string;
  /** The server's process, whose CPU time each round reads. */
  pid: number;
  url: string;
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** Requests per second, and the server's CPU microseconds per request answered. */
async function throughput(target: Target, seconds: number): Promise<{ rate: number; cpuMicros: number }> {
  const cpuBefore = await cpuNanoseconds(target.pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      { method: target.method, path: target.path, ...(target.headers ? { headers: target.headers } : {}), ...(target.body ? { body: target.body } : {}) },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuMicros = ((await cpuNanoseconds(target.pid)) - cpuBefore) / 1e3 / Math.max(1, result.requests.total);
  return { rate: result.requests.average, cpuMicros };
}

/** Sequential calls to every target in turn; p50 and p90 per target, in milliseconds. */
async function pairedLatency(targets: readonly Target[], calls: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (target: Target) =>
    new Promise<number>((resolveCall, reject) => {
      const started = performance.now();
      const url = new URL(target.path, target.url);
      const request = httpRequest(url, { method: target.method, agent, headers: target.headers }, (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolveCall(performance.now() - started) : reject(new Error(`${target.name}: ${response.statusCode}`)),
        );
      });
      request.on('error', reject);
      request.end(target.body);
    });
  const times = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  const warmUp = Math.min(500, calls);
  for (let index = 0; index < warmUp + calls; index += 1) {
    for (const target of targets) {
      const ms = await call(target);
      if (index >= warmUp) times.get(target.name)?.push(ms);
    }
  }
  agent.destroy();
  const bare = median(times.get('bare Express') ?? []);
  for (const target of targets) {
    const sorted = [...(times.get(target.name) ?? [])].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    const p90 = sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN;
    process.stdout.write(`${target.name}: p50 ${p50.toFixed(3)} ms, p90 ${p90.toFixed(3)} ms; over bare Express p50 ${((p50 - bare) * 1000).toFixed(0)} µs\n`);
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dists = (process.env.BENCH_DISTS ?? 'this=dist').split(',').map((entry) => {
    const [name, path] = entry.split('=');
    if (name === undefined || path === undefined) throw new Error(`BENCH_DISTS entry ${entry}: name=path`);
    return { name, path: resolve(ROOT, path) };
  });
  const directory = await mkdtemp(join(tmpdir(), 'porch-list-bench-'));
  try {
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({}));
    const targets: Target[] = [];
    let payload: unknown;
    for (const [index, dist] of dists.entries()) {
      const env = benchPorchEnv(directory, `porch-${index}.db`, configPath, 'unused');
      // Each build seeds its own database: a build refuses one migrated by a newer one.
      const { loadConfig } = (await import(join(dist.path, 'config.js'))) as { loadConfig: typeof LoadConfig };
      const { createApplication } = (await import(join(dist.path, 'main.js'))) as { createApplication: typeof CreateApplication };
      const application = await createApplication(loadConfig(env, ROOT));
      const account = await application.core.accounts.createAccount({ email: 'list@example.com', plan: 'expert', credits: 1_000_000 });
      const key = await application.core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
      await application.core.bundles.importBundle(account.id, benchListBundle(20));
      await application.close();
      const child: Child = await startProcess(process.execPath, [...NODE_ARGS, join(dist.path, 'cli', 'index.js'), 'serve'], env, PORCH_READY);
      const headers = { 'x-api-key': key.plaintext };
      payload ??= await (await fetch(`${child.url}/api/public/v1/context-cards`, { headers })).json();
      const pid = child.process.pid ?? 0;
      if (WITH_REST) targets.push({ name: `${dist.name} REST`, pid, url: child.url, path: '/api/public/v1/context-cards', method: 'GET', headers });
      if (WITH_MCP) {
        targets.push({
          name: `${dist.name} MCP`,
          pid,
          url: child.url,
          path: '/api/public/mcp',
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } }),
        });
      }
    }
    const payloadPath = join(directory, 'payload.json');
    await writeFile(payloadPath, JSON.stringify(payload));
    const bare = await startProcess(TSX, [join(ROOT, 'bench', 'bare-express-server.ts'), payloadPath], process.env, LISTENING);
    targets.unshift({ name: 'bare Express', pid: bare.process.pid ?? 0, url: bare.url, path: '/cards', method: 'GET' });

    if (LATENCY_CALLS > 0) {
      await pairedLatency(targets, LATENCY_CALLS);
      return;
    }
    for (const target of targets) await throughput(target, 2);
    const rates = new Map<string, number[]>(targets.map((target) => [target.name, []]));
    const ratios = new Map<string, number[]>(targets.map((target) => [target.name, []]));
    const cpu = new Map<string, number[]>(targets.map((target) => [target.name, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const line: string[] = [];
      let bareRate = Number.NaN;
      for (const target of targets) {
        const { rate, cpuMicros } = await throughput(target, SECONDS);
        if (target.name === 'bare Express') bareRate = rate;
        rates.get(target.name)?.push(rate);
        ratios.get(target.name)?.push(rate / bareRate);
        cpu.get(target.name)?.push(cpuMicros);
        line.push(`${target.name} ${Math.round(rate)} (${((rate / bareRate) * 100).toFixed(0)} %, ${Math.round(cpuMicros)} µs CPU)`);
      }
      process.stdout.write(`round ${round + 1}: ${line.join(', ')}\n`);
    }
    const range = (values: readonly number[], format: (value: number) => string) =>
      `${format(median(values))} (${format(Math.min(...values))}-${format(Math.max(...values))})`;
    for (const target of targets) {
      process.stdout.write(
        `${target.name}: median ${range(rates.get(target.name) ?? [], (value) => `${Math.round(value)}`)} req/s, vs bare ${range(ratios.get(target.name) ?? [], (value) => `${(value * 100).toFixed(0)} %`)}, server CPU per request ${range(cpu.get(target.name) ?? [], (value) => `${Math.round(value)} µs`)}\n`,
      );
    }
  } finally {
    await Promise.all([...children].map(stopProcess));
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
