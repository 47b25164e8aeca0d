/**
 * `npx tsx bench/cold-start-bench.ts`: cold start (spawn to the first 200 on /health, on an
 * existing database) of one or more Porch builds, taking turns start by start so the shared
 * machine's drift falls on all of them alike; `npm run bench` times only this tree's build.
 *
 * BENCH_DISTS="base=/tmp/base/dist,new=dist" compares builds (default: this tree's dist). Each
 * build starts as its package's `npm start` starts it (the start script beside its dist: node
 * flags and entry, `bundle/porch.js` in this tree); `name=dist:entry` names another entry, e.g.
 * "unbundled=dist:cli/index.js,bundle=dist" puts tsc's output beside the bundle of one build;
 * BENCH_NODE_ARGS adds node flags (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see what loads);
 * BENCH_RUNS (default 9) sets the starts per build.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { loadConfig as LoadConfig } from '../src/config.js';
import type { createApplication as CreateApplication } from '../src/main.js';
import { benchAiConfig, benchPorchEnv, children, PORCH_READY, startProcess, startScript, stopProcess } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const extraFlags = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0);
  const dists = (process.env.BENCH_DISTS ?? 'this=dist').split(',').map((entry) => {
    const [name, location] = entry.split('=');
    if (name === undefined || location === undefined) throw new Error(`BENCH_DISTS entry ${entry}: name=path or name=path:entry`);
    const [path = location, entryFile] = location.split(':');
    // A build starts as its own package's start script starts it (another checkout's flags too).
    const packageRoot = resolve(ROOT, path, '..');
    const script = startScript(existsSync(join(packageRoot, 'package.json')) ? packageRoot : ROOT);
    return { name, path: resolve(ROOT, path), entry: resolve(ROOT, path, entryFile ?? script.distEntry), flags: [...script.nodeFlags, ...extraFlags] };
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
        const started = await startProcess(process.execPath, [...build.flags, build.entry, 'serve'], build.env, PORCH_READY);
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
