/**
 * `npx tsx bench/workflow-bench.ts`: sequential latency of chained workflows of N echo-model
 * nodes (the model answers locally, so what is measured is Porch's own cost per node: engine,
 * metering, storage), for one or more builds side by side, taking turns run by run.
 *
 * BENCH_DISTS="base=/tmp/base/dist,new=dist" compares builds (default: this tree's dist);
 * BENCH_NODE_ARGS adds node flags to every server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof");
 * BENCH_RUNS sets the measured runs per size and build (default 50).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
import { benchPorchEnv, children, echoChainWorkflow, PORCH_READY, startProcess, stopProcess, type Child } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIZES = [1, 10, 100] as const;
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const WARMUP = 5;
const NODE_ARGS = ['--max-semi-space-size=8', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dists = (process.env.BENCH_DISTS ?? 'this=dist').split(',').map((entry) => {
    const [name, path] = entry.split('=');
    if (name === undefined || path === undefined) throw new Error(`BENCH_DISTS entry ${entry}: name=path`);
    return { name, path: resolve(ROOT, path) };
  });
  const directory = await mkdtemp(join(tmpdir(), 'porch-workflow-bench-'));
  try {
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({}));
    const servers: Array<{ name: string; child: Child; key: string; ids: Map<number, string> }> = [];
    for (const [index, dist] of dists.entries()) {
      const env = benchPorchEnv(directory, `porch-${index}.db`, configPath, 'unused');
      // Each build seeds its own database: a build refuses one migrated by a newer one.
      const { loadConfig } = (await import(join(dist.path, 'config.js'))) as { loadConfig: typeof LoadConfig };
      const { createApplication } = (await import(join(dist.path, 'main.js'))) as { createApplication: typeof CreateApplication };
      const application = await createApplication(loadConfig(env, ROOT));
      const account = await application.core.accounts.createAccount({ email: 'wf@example.com', plan: 'expert', credits: 1_000_000_000 });
      const key = await application.core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
      await application.core.bundles.importBundle(account.id, { workflows: SIZES.map(echoChainWorkflow) });
      const listed = await application.core.catalog.listWorkflows(account.id, {});
      const ids = new Map<number, string>();
      for (const size of SIZES) {
        const found = listed.items.find((item) => item.name === `Echo chain of ${size}`);
        if (!found) throw new Error(`no ${size}-node workflow`);
        ids.set(size, found.id);
      }
      await application.close();
      const child = await startProcess(process.execPath, [...NODE_ARGS, join(dist.path, 'cli', 'index.js'), 'serve'], env, PORCH_READY);
      servers.push({ name: dist.name, child, key: key.plaintext, ids });
    }
    const body = JSON.stringify({ variables: { topic: 'tea' } });
    const once = async (server: (typeof servers)[number], size: number) => {
      const response = await fetch(`${server.child.url}/api/public/v1/workflows/${server.ids.get(size)}/execute`, {
        method: 'POST',
        headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
        body,
      });
      const answer = (await response.json()) as { data?: { status?: string } };
      if (response.status !== 200 || answer.data?.status !== 'completed')
        throw new Error(`${server.name} ${size}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
    };
    for (const size of SIZES) {
      const samples = new Map<string, number[]>(servers.map((server) => [server.name, []]));
      const runs = size >= 100 ? RUNS : RUNS * 4;
      for (let run = -WARMUP; run < runs; run += 1) {
        for (const server of servers) {
          const started = performance.now();
          await once(server, size);
          if (run >= 0) samples.get(server.name)?.push(performance.now() - started);
        }
      }
      for (const [name, values] of samples) {
        const sorted = [...values].sort((a, b) => a - b);
        process.stdout.write(`${size} nodes ${name}: p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms\n`);
      }
    }
    for (const server of servers) await stopProcess(server.child.process);
  } finally {
    await Promise.all([...children].map(stopProcess));
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
