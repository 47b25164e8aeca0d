/**
 * The processes a benchmark runs beside itself (Porch, the fake upstream, receivers), started
 * from the package root and stopped on the way out, and the provider config pointing Porch at
 * the fake upstream. Shared by bench/run-bench.ts and bench/observability-bench.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
export const PORCH_READY = /Porch is listening on (http:\/\/[^\s]+)/;
export const LISTENING = /listening (http:\/\/[^\s]+)/;

/**
 * How `npm start` runs Porch, read from package.json's start script (`node <flags> dist/<entry> serve`):
 * its node flags (memory settings) and the entry, relative to dist/ (`bundle/porch.js`), so a bench
 * starts what users start, in this tree's dist or in another build's (`packageRoot`, its own script).
 */
export function startScript(packageRoot: string = ROOT): { nodeFlags: string[]; distEntry: string } {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (manifest.scripts?.start ?? '').split(/\s+/).filter((word) => word.length > 0);
  const entry = words.findIndex((word) => word.startsWith('dist/'));
  if (words[0] !== 'node' || entry === -1 || words[entry + 1] !== 'serve') throw new Error(`unexpected start script: ${manifest.scripts?.start ?? '(none)'}`);
  return { nodeFlags: words.slice(1, entry), distEntry: (words[entry] ?? '').slice('dist/'.length) };
}

export interface Child {
  process: ChildProcess;
  /** The first capture group of the ready line (a URL). */
  url: string;
  /** performance.now() when the child was spawned. */
  spawnedAt: number;
}

/** Every process still running, for the final clean-up. */
export const children = new Set<ChildProcess>();

/** Spawns a process and resolves once a stdout line matches `ready` (its group 1 is the URL). */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Child> {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = ready.exec(stdout);
      if (match?.[1]) resolve({ process: child, url: match[1], spawnedAt });
    });
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code} before it was ready:\n${stderr}`)));
  });
}

/**
 * On-CPU time of a process, its threads and its descendants, in nanoseconds, from Linux's
 * /proc/<pid>/task/<tid>/schedstat (a server started through tsx runs in tsx's child). Divided by
 * the requests a load answered, the server's CPU per request: what bounds a CPU-bound server's
 * throughput, and what the shared machine's other work disturbs least.
 */
export async function cpuNanoseconds(pid: number): Promise<number> {
  let total = 0;
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const [schedstat, descendants] = await Promise.all([
      readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0'),
      readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => ''),
    ]);
    total += Number(schedstat.split(' ')[0] ?? 0);
    for (const child of descendants.split(' ').filter((word) => word.length > 0)) total += await cpuNanoseconds(Number(child));
  }
  return total;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** porch.config.yaml's `ai`: one provider, the zero-latency fake upstream at `baseUrl`, with a short output cap. */
export function benchAiConfig(baseUrl: string) {
  return {
    default_model: 'fake/fast',
    providers: [
      {
        id: 'fake',
        base_url: baseUrl,
        api_key_env: 'FAKE_PROVIDER_KEY',
        region: 'us',
        timeout_ms: 5_000,
        max_retries: 0,
        models: [{ name: 'fast', max_output_tokens: 16 }],
      },
    ],
  };
}

/** The list every throughput row reads (`count` context cards) and the one-variable composition every execution runs. */
export function benchListBundle(count: number) {
  return {
    context_cards: Array.from({ length: count }, (_, index) => ({
      title: `Card ${index + 1}`,
      content: `Reusable context number ${index + 1}: the house style, the product names and the tone to use in replies.`,
      category: 'style',
      tags: ['bench', `card-${index + 1}`],
    })),
    compositions: [{ key: 'hello', name: 'Hello', template: 'Say hello to {{name}} in one word.', variables: [{ name: 'name', required: true }] }],
  };
}

/** The environment of a benchmarked Porch: its database in `directory`, the fake upstream's key, quiet logs, any free port. */
export function benchPorchEnv(directory: string, databaseFile: string, configPath: string, gatewayKey: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `file:${join(directory, databaseFile)}`,
    PORCH_DATA_DIR: directory,
    PORCH_CONFIG: configPath,
    FAKE_PROVIDER_KEY: gatewayKey,
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  delete env.PORCH_PUBLIC_URL;
  return env;
}

/** A chain of `nodes` echo nodes; each reads the one before, as the bench's upstream chain does. */
export function echoChainWorkflow(nodes: number) {
  return {
    key: `echo-chain-${nodes}`,
    name: `Echo chain of ${nodes}`,
    description: 'Each node echoes the answer before it plus its own number.',
    variables: [{ name: 'topic', required: true }],
    nodes: Array.from({ length: nodes }, (_, index) => ({
      id: `n${index}`,
      kind: 'model' as const,
      model: 'echo/echo',
      // The reference makes the chain (each node waits for the one before); the echoed text grows
      // by a few characters per node, so the last prompt of 100 is about 400 characters.
      prompt: index === 0 ? 'Start with {{topic}}.' : `{{n${index - 1}}} ${index}`,
    })),
    outputs: { last: `n${nodes - 1}` },
  };
}
