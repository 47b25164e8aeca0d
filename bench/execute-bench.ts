/**
 * `npx tsx bench/execute-bench.ts`: added latency of one composition execution against the
 * zero-latency fake upstream, for one or more Porch builds beside the Portkey gateway (the peer,
 * bench/portkey.ts), all taking turns call by call with a direct SDK call, so every figure is
 * paired with the same moment of the shared machine.
 *
 * BENCH_DISTS="base=/tmp/base/dist,new=dist" compares builds (default: this tree's dist);
 * BENCH_NODE_ARGS adds node flags to the Porch servers; BENCH_SAMPLES (default 1000) sets the
 * calls per kind. Each gateway's CPU time per call (its process, Linux /proc) is reported too:
 * the work on the call's path, which a profile's shares divide (bench/profile-shares.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
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
import { portkeyHeaders, startPortkey } from './portkey.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1_000);
const WARMUP = 100;
const GATEWAY_KEY = 'sk-bench-gateway';
const NODE_ARGS = ['--max-semi-space-size=8', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dists = (process.env.BENCH_DISTS ?? 'porch=dist').split(',').map((entry) => {
    const [name, path] = entry.split('=');
    if (name === undefined || path === undefined) throw new Error(`BENCH_DISTS entry ${entry}: name=path`);
    return { name, path: resolve(ROOT, path) };
  });
  const directory = await mkdtemp(join(tmpdir(), 'porch-execute-bench-'));
  try {
    const fake = await startProcess(TSX, [join(ROOT, 'bench', 'fake-openai-server.ts')], process.env, LISTENING);
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: benchAiConfig(fake.url) }));
    /** Each kind of call; a gateway's with its process, whose CPU time per call is reported. */
    const calls: Array<{ name: string; pid?: number; call: () => Promise<void> }> = [];

    const sdk = new OpenAI({ baseURL: fake.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const request = { model: 'fast', max_tokens: 16, messages: [{ role: 'user' as const, content: 'Say hello to Ada in one word.' }] };
    calls.push({
      name: 'direct',
      call: async () => {
        const completion = await sdk.chat.completions.create(request);
        if (completion.choices[0]?.message.content !== 'ok') throw new Error('unexpected upstream answer');
      },
    });
    const portkey = await startPortkey();
    const viaPortkey = new OpenAI({ baseURL: `${portkey.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0, defaultHeaders: portkeyHeaders(fake.url, GATEWAY_KEY) });
    calls.push({
      name: 'portkey',
      pid: portkey.process.pid ?? 0,
      call: async () => {
        const completion = await viaPortkey.chat.completions.create(request);
        if (completion.choices[0]?.message.content !== 'ok') throw new Error(`unexpected Portkey answer: ${JSON.stringify(completion).slice(0, 200)}`);
      },
    });

    const body = JSON.stringify({ variables: { name: 'Ada' } });
    for (const [index, dist] of dists.entries()) {
      const env = benchPorchEnv(directory, `porch-${index}.db`, configPath, GATEWAY_KEY);
      // Each build seeds its own database: a build refuses one migrated by a newer one.
      const { loadConfig } = (await import(join(dist.path, 'config.js'))) as { loadConfig: typeof LoadConfig };
      const { createApplication } = (await import(join(dist.path, 'main.js'))) as { createApplication: typeof CreateApplication };
      const application = await createApplication(loadConfig(env, ROOT));
      const account = await application.core.accounts.createAccount({ email: 'exec@example.com', plan: 'expert', credits: 1_000_000_000 });
      const key = await application.core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
      await application.core.bundles.importBundle(account.id, benchListBundle(1));
      const compositionId = (await application.core.catalog.listCompositions(account.id, {})).items[0]?.id;
      await application.close();
      const child = await startProcess(process.execPath, [...NODE_ARGS, join(dist.path, 'cli', 'index.js'), 'serve'], env, PORCH_READY);
      const url = `${child.url}/api/public/v1/compositions/${compositionId}/execute`;
      const headers = { 'x-api-key': key.plaintext, 'content-type': 'application/json' };
      calls.push({
        name: dist.name,
        pid: child.process.pid ?? 0,
        call: async () => {
          const response = await fetch(url, { method: 'POST', headers, body });
          const text = await response.text();
          if (response.status !== 200) throw new Error(`${dist.name}: ${response.status} ${text.slice(0, 300)}`);
        },
      });
    }

    const samples = new Map<string, number[]>(calls.map(({ name }) => [name, []]));
    const cpuBefore = new Map<string, number>();
    for (let round = -WARMUP; round < SAMPLES; round += 1) {
      if (round === 0) for (const { name, pid } of calls) if (pid !== undefined) cpuBefore.set(name, await cpuNanoseconds(pid));
      for (const { name, call } of calls) {
        const started = performance.now();
        await call();
        if (round >= 0) samples.get(name)?.push(performance.now() - started);
      }
    }
    const direct = [...(samples.get('direct') ?? [])].sort((a, b) => a - b);
    const directP50 = percentile(direct, 0.5);
    const directP99 = percentile(direct, 0.99);
    const cpuPerCall = new Map<string, number>();
    for (const { name, pid } of calls) {
      const before = cpuBefore.get(name);
      if (pid !== undefined && before !== undefined) cpuPerCall.set(name, ((await cpuNanoseconds(pid)) - before) / 1e6 / SAMPLES);
    }
    for (const [name, values] of samples) {
      const sorted = [...values].sort((a, b) => a - b);
      const p50 = percentile(sorted, 0.5);
      const p99 = percentile(sorted, 0.99);
      const cpu = cpuPerCall.get(name);
      process.stdout.write(
        `${name}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; added p50 ${(p50 - directP50).toFixed(2)} ms, p99 ${(p99 - directP99).toFixed(2)} ms${cpu === undefined ? '' : `; server CPU ${cpu.toFixed(2)} ms per call`}\n`,
      );
    }
  } finally {
    await Promise.all([...children].map(stopProcess));
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
