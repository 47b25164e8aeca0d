/**
 * `npx tsx bench/cold-start-bench.ts`: cold start (spawn to the first 200 on /health, on an
 * existing database) of one or more Porch builds, taking turns start by start so the shared
 * machine's drift falls on all of them alike; `npm run bench` times only this tree's build.
 *
 * BENCH_DISTS="base=/tmp/base/dist,new=dist" compares builds (default: this tree's dist);
 * BENCH_NODE_ARGS adds node flags (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see what loads);
 * BENCH_RUNS (default 9) sets the starts per build.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
import { benchAiConfig, benchPorchEnv, children, PORCH_READY, startProcess, stopProcess } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

/** The node flags `npm start` passes, so the start measured is the one users get. */
async function startScriptNodeFlags(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (manifest.scripts?.start ?? '').split(/\s+/).filter((word) => word.length > 0);
  const entry = words.indexOf('dist/cli/index.js');
  if (words[0] !== 'node' || entry === -1) throw new Error(`unexpected start script: ${manifest.scripts?.start ?? '(none)'}`);
  return words.slice(1, entry);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const flags = [...(await startScriptNodeFlags()), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];
  const dists = (process.env.BENCH_DISTS ?? 'this=dist').split(',').map((entry) => {
    const [name, path] = entry.split('=');
    if (name === undefined || path === undefined) throw new Error(`BENCH_DISTS entry ${entry}: name=path`);
    return { name, path: resolve(ROOT, path) };
  });
  const directory = await mkdtemp(join(tmpdir(), 'porch-cold-start-'));
  try {
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: benchAiConfig('http://127.0.0.1:9/v1') }));
    const builds = [];
    for (const [index, dist] of dists.entries()) {
      const env = benchPorchEnv(directory, `porch-${index}.db`, configPath, 'sk-bench');
      // Migrated and seeded beforehand, as the full bench's start is: the start measured is a restart.
      const { loadConfig } = (await import(join(dist.path, 'config.js'))) as { loadConfig: typeof LoadConfig };
      const { createApplication } = (await import(join(dist.path, 'main.js'))) as { createApplication: typeof CreateApplication };
      const application = await createApplication(loadConfig(env, ROOT));
      await application.core.accounts.createAccount({ email: 'cold@example.com', plan: 'expert', credits: 1_000 });
      await application.close();
      builds.push({ ...dist, env, runs: [] as number[] });
    }
    for (let run = 0; run < RUNS; run += 1) {
      for (const build of builds) {
        const started = await startProcess(process.execPath, [...flags, join(build.path, 'cli', 'index.js'), 'serve'], build.env, PORCH_READY);
        const response = await fetch(`${started.url}/api/public/v1/health`);
        await response.text();
        if (response.status !== 200) throw new Error(`${build.name} health: ${response.status}`);
        build.runs.push(performance.now() - started.spawnedAt);
        await stopProcess(started.process);
      }
    }
    for (const build of builds) {
      process.stdout.write(`${build.name}: median ${median(build.runs).toFixed(0)} ms (${build.runs.map((ms) => ms.toFixed(0)).join(', ')})\n`);
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
