/**
 * `npx tsx bench/observability-profile.ts`: CPU profiles (`node --cpu-prof`) of Porch servers under
 * the observability bench's loads, to find where instrumentation spends its time. Each variant is
 * `name=dist` in PROFILE_VARIANTS (e.g. `baseline=/path/to/old/dist,off=dist`); a name may carry
 * environment settings after `+` as `KEY:value` pairs separated by `;`, `SINK` standing for the
 * local OTLP sink's URL (`on+OTEL_EXPORTER_OTLP_ENDPOINT:SINK=dist`). Profiles land in
 * PROFILE_DIR/<name>-<load>/ (default /tmp/obsprof) and open in Chrome DevTools or any
 * .cpuprofile reader.
 *
 * By default each variant in turn takes the list load (PROFILE_LIST_SECONDS of 32 connections)
 * and PROFILE_EXECUTIONS sequential executions (PROFILE_LOADS=list,execute). PROFILE_CONCURRENT=1
 * puts every variant under the list load at the same time instead, so the shared machine's noise
 * falls on all of them alike: compare shares of the profile, not absolute times.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { createApplication } from '../src/main.js';
import { benchAiConfig, benchListBundle, benchPorchEnv, children, LISTENING, PORCH_READY, startProcess, stopProcess, TSX } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = process.env.PROFILE_DIR ?? '/tmp/obsprof';
const LIST_SECONDS = Number(process.env.PROFILE_LIST_SECONDS ?? 10);
const EXECUTIONS = Number(process.env.PROFILE_EXECUTIONS ?? 1500);
const variants = (process.env.PROFILE_VARIANTS ?? 'off=dist').split(',').map((pair) => {
  const [name = '', dist = ''] = pair.split('=');
  return { name, dist: dist.startsWith('/') ? dist : join(ROOT, dist) };
});
const loads = (process.env.PROFILE_LOADS ?? 'list,execute').split(',');
/**
 * PROFILE_NODE_ARGS replaces `--cpu-prof` in the concurrent mode, e.g. `--perf-basic-prof` for
 * `perf record -g -p <pid>` attached from outside while the load runs (the pids are printed).
 */
const NODE_ARGS = process.env.PROFILE_NODE_ARGS === undefined ? undefined : process.env.PROFILE_NODE_ARGS.split(' ').filter(Boolean);

/** The variant's name without its settings. */
function shortName(name: string): string {
  return name.split('+')[0] ?? name;
}

/** The bench environment plus the settings a variant's name carries after `+`. */
function withSettings(env: NodeJS.ProcessEnv, name: string, sinkUrl: string): NodeJS.ProcessEnv {
  for (const pair of (name.split('+')[1] ?? '').split(';').filter(Boolean)) {
    const [key = '', value = ''] = pair.split(':');
    env[key] = value === 'SINK' ? sinkUrl : value;
  }
  return env;
}

async function seed(env: NodeJS.ProcessEnv) {
  const application = await createApplication(loadConfig(env, ROOT), { processMetrics: false });
  try {
    const { core } = application;
    const account = await core.accounts.createAccount({ email: 'bench@example.com', plan: 'expert', credits: 1_000_000_000 });
    const key = await core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
    const { ids } = await core.bundles.importBundle(account.id, benchListBundle(20));
    return { key: key.plaintext, compositionId: ids['composition:hello'] ?? '' };
  } finally {
    await application.close();
  }
}

const directory = await mkdtemp(join(tmpdir(), 'porch-obs-prof-'));
try {
  const fake = await startProcess(TSX, [join(ROOT, 'bench', 'fake-openai-server.ts')], process.env, LISTENING);
  const sink = await startProcess(TSX, [join(ROOT, 'bench', 'otlp-sink.ts')], process.env, LISTENING);
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: benchAiConfig(fake.url) }));
  if (process.env.PROFILE_CONCURRENT === '1') {
    // Every variant under the same list load at the same time: the machine's noise falls on each alike.
    const started = [];
    for (const [index, variant] of variants.entries()) {
      const env = withSettings(benchPorchEnv(directory, `porch-c-${index}.db`, configPath, 'sk-bench-gateway'), variant.name, sink.url);
      const seeded = await seed(env);
      const server = await startProcess(
        process.execPath,
        [
          '--max-semi-space-size=8',
          ...(NODE_ARGS ?? ['--cpu-prof', `--cpu-prof-dir=${join(OUT, `${shortName(variant.name)}-clist`)}`]),
          join(variant.dist, 'cli', 'index.js'),
          'serve',
        ],
        env,
        PORCH_READY,
      );
      // For a profiler attached from outside (perf record -p): which process is which.
      process.stdout.write(`${shortName(variant.name)} pid ${server.process.pid}\n`);
      started.push({ server, seeded, name: variant.name });
    }
    const results = await Promise.all(
      started.map(({ server, seeded }) =>
        autocannon({
          url: server.url,
          connections: 8,
          duration: LIST_SECONDS,
          requests: [{ method: 'GET', path: '/api/public/v1/context-cards', headers: { 'x-api-key': seeded.key } }],
        }),
      ),
    );
    for (const [index, { server, name }] of started.entries()) {
      process.stdout.write(`${shortName(name)}: ${results[index]?.requests.total} requests\n`);
      await stopProcess(server.process);
    }
    loads.length = 0;
  }
  for (const load of loads) {
    for (const [index, variant] of variants.entries()) {
      const env = withSettings(benchPorchEnv(directory, `porch-${load}-${index}.db`, configPath, 'sk-bench-gateway'), variant.name, sink.url);
      const seeded = await seed(env);
      const profileDir = join(OUT, `${shortName(variant.name)}-${load}`);
      const server = await startProcess(
        process.execPath,
        ['--max-semi-space-size=8', '--cpu-prof', `--cpu-prof-dir=${profileDir}`, join(variant.dist, 'cli', 'index.js'), 'serve'],
        env,
        PORCH_READY,
      );
      if (load === 'list') {
        const run = (duration: number) =>
          autocannon({
            url: server.url,
            connections: 32,
            duration,
            requests: [{ method: 'GET', path: '/api/public/v1/context-cards', headers: { 'x-api-key': seeded.key } }],
          });
        await run(2);
        const result = await run(LIST_SECONDS);
        process.stdout.write(`${shortName(variant.name)} list: ${result.requests.total} requests, ${result.non2xx} non-2xx\n`);
      } else {
        const body = JSON.stringify({ variables: { name: 'Ada' } });
        for (let index = 0; index < EXECUTIONS; index++) {
          const response = await fetch(`${server.url}/api/public/v1/compositions/${seeded.compositionId}/execute`, {
            method: 'POST',
            headers: { 'x-api-key': seeded.key, 'content-type': 'application/json' },
            body,
          });
          await response.text();
          if (response.status !== 200) throw new Error(`execute ${response.status}`);
        }
        process.stdout.write(`${shortName(variant.name)} execute: ${EXECUTIONS} calls\n`);
      }
      await stopProcess(server.process);
    }
  }
  await stopProcess(fake.process);
  await stopProcess(sink.process);
} finally {
  await Promise.all([...children].map(stopProcess));
  await rm(directory, { recursive: true, force: true });
}
