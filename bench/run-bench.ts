/**
 * `npm run bench`: Porch beside bare Express, REST beside MCP, Porch's execution path beside a
 * direct SDK call, cold start, memory under load and growth with data size. Every server runs in
 * its own process on 127.0.0.1 (Porch as `npm start` runs it, built first by the npm script);
 * this process only seeds the database and generates load (autocannon). Results go to
 * bench/RESULTS.md.
 *
 * BENCH_QUICK=1 shortens every phase (for checking the harness, not for numbers).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import OpenAI from 'openai';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/core/ids.js';
import { createApplication } from '../src/main.js';
import type { CompositionRecord, ContextCardRecord } from '../src/db/store.js';
import {
  benchAiConfig,
  benchListBundle,
  benchPorchEnv,
  children,
  cpuNanoseconds,
  echoChainWorkflow,
  LISTENING,
  PORCH_READY,
  startProcess,
  startScript,
  stopProcess,
  TSX,
} from './bench-processes.js';
import { PORTKEY_VERSION, portkeyHeaders, startPortkey } from './portkey.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
/** Porch runs as `npm start` runs it: the node flags of package.json's start script (its memory settings), its entry, `serve`. */
const { nodeFlags: PORCH_START_FLAGS, distEntry: PORCH_DIST_ENTRY } = startScript();
const PORCH_ENTRY = join(ROOT, 'dist', PORCH_DIST_ENTRY);
/** Extra node flags for the Porch server, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
const PORCH_NODE_ARGS = [...PORCH_START_FLAGS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)];
/** BENCH_STOP_AFTER=throughput ends the run after the throughput rows (for profiling). */
const STOP_AFTER_THROUGHPUT = process.env.BENCH_STOP_AFTER === 'throughput';
/** BENCH_ONLY_ROW=<index> runs just that throughput row (0 bare, 1 list, 2 MCP, 3 scan), for profiling. */
const ONLY_ROW = process.env.BENCH_ONLY_ROW === undefined ? undefined : Number(process.env.BENCH_ONLY_ROW);

/** Load phases: long enough for a stable mean on a small machine, short enough for one run. */
const LOAD_SECONDS = QUICK ? 2 : 10;
const WARMUP_SECONDS = QUICK ? 1 : 3;
/** The spec's target: resident memory after this long under mixed load. */
const MEMORY_LOAD_SECONDS = QUICK ? 5 : 60;
/** Enough parallel connections to saturate one Node process without queueing for seconds. */
const CONNECTIONS = 32;
/** Below the per-key limit of executions in flight (8), so the mixed load is never refused. */
const EXECUTE_CONNECTIONS = 4;
/** Sequential samples for latency comparisons (one request in flight: pure added latency). */
const LATENCY_SAMPLES = QUICK ? 100 : 2_000;
const LATENCY_WARMUP = QUICK ? 20 : 200;
const COLD_START_RUNS = QUICK ? 2 : 7;
/**
 * The host's floor for a cold start, timed in turns with Porch's: Node itself starting an HTTP
 * server and answering one request. Hosts (and one host from hour to hour) differ by more than
 * the 500 ms target's margin, so a cold start is read beside this.
 */
const BARE_NODE_SERVER =
  "require('node:http').createServer((_, res) => res.end('ok')).listen(0, '127.0.0.1', function () { console.log('listening http://127.0.0.1:' + this.address().port); });";
const CARDS_IN_LIST = 20;
const SCAN_TEXT_BYTES = 1024;
const GROWTH_SIZES = [10, 1_000, 100_000] as const;
const WORKFLOW_SIZES = [1, 10, 100] as const;
const GATEWAY_KEY = 'sk-bench-gateway';

// ---------------------------------------------------------------------------------------------
// Processes

/** VmRSS and VmHWM (peak) of a process, in MB, from /proc (Linux); null elsewhere. */
async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number } | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

interface LatencySummary {
  p50: number;
  p99: number;
  mean: number;
  samples: number;
}

function summarise(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
    samples: sorted.length,
  };
}

/** Times `count` sequential calls after `warmup` untimed ones; each call must succeed. */
async function timeSequential(count: number, warmup: number, call: () => Promise<void>): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i += 1) await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return summarise(samples);
}

/**
 * Times kinds of call taking turns, one of each per round, so all see the same machine state
 * (the host is shared, and its speed drifts within a run): the difference of their medians is
 * then the cost of what one adds to another, not of when each was measured.
 */
async function timeAlternating(count: number, warmup: number, calls: ReadonlyArray<() => Promise<void>>): Promise<LatencySummary[]> {
  for (let i = 0; i < warmup; i += 1) {
    for (const call of calls) await call();
  }
  const samples: number[][] = calls.map(() => []);
  for (let i = 0; i < count; i += 1) {
    for (const [index, call] of calls.entries()) {
      const started = performance.now();
      await call();
      samples[index]?.push(performance.now() - started);
    }
  }
  return samples.map(summarise);
}

// ---------------------------------------------------------------------------------------------
// Load

interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  /** The server's CPU time per request answered (its process and threads, Linux /proc), in µs. */
  cpuMicros: number;
}

interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

async function load(name: string, origin: string, serverPid: number, requests: LoadRequest[], seconds = LOAD_SECONDS): Promise<LoadResult> {
  const options = { url: origin, connections: CONNECTIONS, requests };
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const cpuBefore = await cpuNanoseconds(serverPid);
  const result = await autocannon({ ...options, duration: seconds });
  const cpuMicros = ((await cpuNanoseconds(serverPid)) - cpuBefore) / 1e3 / Math.max(1, result.requests.total);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const outcome = {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    cpuMicros,
  };
  process.stdout.write(
    `  ${name}: ${Math.round(outcome.requestsPerSecond)} req/s, p50 ${outcome.p50} ms, p99 ${outcome.p99} ms, server CPU ${Math.round(cpuMicros)} µs per request\n`,
  );
  return outcome;
}

async function fetchJson(url: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------------------------
// Seeding

interface Seeded {
  key: string;
  compositionId: string;
  workflowIds: Map<number, string>;
  /** Chains of echo-model nodes: no upstream, so Porch's own cost per node. */
  echoWorkflowIds: Map<number, string>;
  growth: Map<number, { key: string; compositionId: string }>;
}

/** A 1 KB text with the kinds of things the sanitiser looks for, as a scan request would carry. */
function scanText(): string {
  const base =
    'Hello team, please contact Jane Doe at jane.doe@example.com or +44 20 7946 0958 about invoice 4471. ' +
    'The staging server is 10.0.3.17 and the deploy token must never be pasted into tickets. ';
  return base.repeat(Math.ceil(SCAN_TEXT_BYTES / base.length)).slice(0, SCAN_TEXT_BYTES);
}

function chainWorkflow(nodes: number) {
  return {
    key: `chain-${nodes}`,
    name: `Chain of ${nodes} model nodes`,
    description: 'Each node calls the model with the previous answer.',
    variables: [{ name: 'topic', required: true }],
    nodes: Array.from({ length: nodes }, (_, index) => ({
      id: `n${index}`,
      kind: 'model' as const,
      prompt: index === 0 ? 'Start with {{topic}}.' : `Step ${index}: continue from {{n${index - 1}}}.`,
    })),
    outputs: { last: `n${nodes - 1}` },
  };
}

async function seed(env: NodeJS.ProcessEnv): Promise<Seeded> {
  const application = await createApplication(loadConfig(env, ROOT));
  const { core, store } = application;
  try {
    const newAccount = async (email: string) => {
      const account = await core.accounts.createAccount({ email, plan: 'expert', credits: 1_000_000_000 });
      const key = await core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 });
      return { accountId: account.id, key: key.plaintext };
    };

    const main = await newAccount('bench@example.com');
    await core.bundles.importBundle(main.accountId, {
      ...benchListBundle(CARDS_IN_LIST),
      workflows: [...WORKFLOW_SIZES.map(chainWorkflow), ...WORKFLOW_SIZES.map(echoChainWorkflow)],
    });
    const compositions = await core.catalog.listCompositions(main.accountId, {});
    const workflows = await core.catalog.listWorkflows(main.accountId, {});
    const compositionId = compositions.items[0]?.id;
    if (compositionId === undefined) throw new Error('seeding created no composition');
    const workflowIds = new Map<number, string>();
    const echoWorkflowIds = new Map<number, string>();
    for (const size of WORKFLOW_SIZES) {
      const workflow = workflows.items.find((item) => item.name === `Chain of ${size} model nodes`);
      const echo = workflows.items.find((item) => item.name === `Echo chain of ${size}`);
      if (!workflow || !echo) throw new Error(`seeding created no ${size}-node workflow`);
      workflowIds.set(size, workflow.id);
      echoWorkflowIds.set(size, echo.id);
    }

    const growth = new Map<number, { key: string; compositionId: string }>();
    const now = Date.now();
    for (const size of GROWTH_SIZES) {
      const owner = await newAccount(`growth-${size}@example.com`);
      const cards: ContextCardRecord[] = [];
      const items: CompositionRecord[] = [];
      for (let index = 0; index < size; index += 1) {
        cards.push({
          id: newId(),
          accountId: owner.accountId,
          title: `Card ${index}`,
          content: `Context ${index}: a paragraph of reusable prompt context.`,
          category: 'style',
          tags: ['bench'],
          description: null,
          emoji: null,
          createdAt: now,
          updatedAt: now,
          version: 1,
          bundleKey: null,
        });
        items.push({
          id: newId(),
          accountId: owner.accountId,
          name: `Composition ${index}`,
          description: '',
          tags: [],
          template: 'Say hello to {{name}} in one word.',
          variables: [{ name: 'name', required: true }],
          defaultModel: null,
          timesUsed: 0,
          createdAt: now,
          updatedAt: now,
          version: 1,
          bundleKey: null,
        });
      }
      // The growth accounts are written straight to the store, past the quotas, to measure lookups in a table of any size.
      const unbounded = { maxItems: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };
      const quotas = { contextCards: unbounded, compositions: unbounded, skills: unbounded, workflows: unbounded };
      await store.catalog.write({
        accountId: owner.accountId,
        creates: [...cards.map((record) => ({ kind: 'contextCards' as const, record })), ...items.map((record) => ({ kind: 'compositions' as const, record }))],
        updates: [],
        deletes: [],
        at: now,
        authorKeyId: null,
        quotas,
      });
      // The oldest item: a lookup must not depend on where the row sits in the table.
      const compositionOfOwner = items[0]?.id;
      if (compositionOfOwner === undefined) throw new Error('no growth composition');
      growth.set(size, { key: owner.key, compositionId: compositionOfOwner });
    }
    return { key: main.key, compositionId, workflowIds, echoWorkflowIds, growth };
  } finally {
    await application.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The run

interface Results {
  machine: string;
  node: string;
  date: string;
  throughput: LoadResult[];
  execute: { direct: LatencySummary; portkey: LatencySummary; porch: LatencySummary };
  coldStart: { runs: number[]; median: number; bareNodeRuns: number[]; bareNodeMedian: number };
  memory: { rssMb: number; peakMb: number; requests: number } | null;
  growth: Array<{ items: number; listPage: LatencySummary; listAll: LatencySummary; listAllBytes: number; execute: LatencySummary }>;
  workflows: Array<{ kind: 'upstream' | 'echo'; nodes: number; execute: LatencySummary }>;
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'porch-bench-'));
  try {
    process.stdout.write('Starting the fake OpenAI-compatible upstream...\n');
    const fake = await startProcess(TSX, [join(ROOT, 'bench', 'fake-openai-server.ts')], process.env, LISTENING);

    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: benchAiConfig(fake.url) }));
    const porchEnv = benchPorchEnv(directory, 'porch.db', configPath, GATEWAY_KEY);

    process.stdout.write(`Seeding (${GROWTH_SIZES.join(', ')} items for the growth accounts)...\n`);
    const seeded = await seed(porchEnv);

    process.stdout.write('Starting Porch...\n');
    const porch = await startProcess(process.execPath, [...PORCH_NODE_ARGS, PORCH_ENTRY, 'serve'], porchEnv, PORCH_READY);
    const pid = porch.process.pid ?? 0;
    const api = `${porch.url}/api/public/v1`;
    const keyHeaders = { 'x-api-key': seeded.key };

    // The bare server answers with exactly what Porch answers for the 20-card list.
    const listBody = await fetchJson(`${api}/context-cards`, { headers: keyHeaders });
    const payloadPath = join(directory, 'payload.json');
    await writeFile(payloadPath, JSON.stringify(listBody));
    const bare = await startProcess(TSX, [join(ROOT, 'bench', 'bare-express-server.ts'), payloadPath], process.env, LISTENING);

    const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_context_cards', arguments: {} } });
    const mcpHeaders = { ...keyHeaders, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const mcpAnswer = (await fetchJson(`${porch.url}/api/public/mcp`, { method: 'POST', headers: mcpHeaders, body: mcpBody })) as {
      result?: { isError?: boolean; structuredContent?: { items?: unknown[] } };
    };
    if (mcpAnswer.result?.isError || mcpAnswer.result?.structuredContent?.items?.length !== CARDS_IN_LIST) {
      throw new Error(`MCP list did not return ${CARDS_IN_LIST} cards: ${JSON.stringify(mcpAnswer).slice(0, 300)}`);
    }
    const scanBody = JSON.stringify({ text: scanText() });
    const jsonHeaders = { ...keyHeaders, 'content-type': 'application/json' };

    process.stdout.write(`Throughput (${CONNECTIONS} connections, ${LOAD_SECONDS} s each after ${WARMUP_SECONDS} s warm-up):\n`);
    const barePid = bare.process.pid ?? 0;
    const rows: Array<[string, string, number, LoadRequest]> = [
      ['bare Express res.json (20 cards)', bare.url, barePid, { method: 'GET', path: '/cards' }],
      ['Porch GET /context-cards (20 cards)', porch.url, pid, { method: 'GET', path: '/api/public/v1/context-cards', headers: keyHeaders }],
      ['Porch MCP tools/call list_context_cards', porch.url, pid, { method: 'POST', path: '/api/public/mcp', headers: mcpHeaders, body: mcpBody }],
      ['Porch POST /sanitiser/scan (1 KB)', porch.url, pid, { method: 'POST', path: '/api/public/v1/sanitiser/scan', headers: jsonHeaders, body: scanBody }],
    ];
    const throughput: LoadResult[] = [];
    for (const [index, [name, origin, serverPid, request]] of rows.entries()) {
      if (ONLY_ROW === undefined || ONLY_ROW === index) throughput.push(await load(name, origin, serverPid, [request]));
    }
    await stopProcess(bare.process);
    if (STOP_AFTER_THROUGHPUT) return;

    process.stdout.write(`Execution latency (${LATENCY_SAMPLES} sequential calls each, direct and through Porch taking turns):\n`);
    const sdk = new OpenAI({ baseURL: fake.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const callDirectly = async () => {
      const completion = await sdk.chat.completions.create({
        model: 'fast',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'Say hello to Ada in one word.' }],
      });
      if (completion.choices[0]?.message.content !== 'ok') throw new Error('unexpected upstream answer');
    };
    const executeBody = JSON.stringify({ variables: { name: 'Ada' } });
    const executeOnce = (origin: string, key: string, id: string) => async () => {
      const response = await fetch(`${origin}/api/public/v1/compositions/${id}/execute`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: executeBody,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`execute: ${response.status} ${text.slice(0, 300)}`);
    };
    const portkey = await startPortkey();
    const viaPortkey = new OpenAI({ baseURL: `${portkey.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0, defaultHeaders: portkeyHeaders(fake.url, GATEWAY_KEY) });
    const callPortkey = async () => {
      const completion = await viaPortkey.chat.completions.create({
        model: 'fast',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'Say hello to Ada in one word.' }],
      });
      if (completion.choices[0]?.message.content !== 'ok') throw new Error('unexpected answer through Portkey');
    };
    const [direct, portkeyExecute, porchExecute] = await timeAlternating(LATENCY_SAMPLES, LATENCY_WARMUP, [
      callDirectly,
      callPortkey,
      executeOnce(porch.url, seeded.key, seeded.compositionId),
    ]);
    if (!direct || !portkeyExecute || !porchExecute) throw new Error('missing latency results');
    await stopProcess(portkey.process);
    process.stdout.write(
      `  direct SDK p50 ${direct.p50.toFixed(2)} p99 ${direct.p99.toFixed(2)}; via Portkey p50 ${portkeyExecute.p50.toFixed(2)} p99 ${portkeyExecute.p99.toFixed(2)}; via Porch p50 ${porchExecute.p50.toFixed(2)} p99 ${porchExecute.p99.toFixed(2)} ms\n`,
    );

    process.stdout.write(`Memory: ${MEMORY_LOAD_SECONDS} s of mixed load (list, MCP list, scan, execute)...\n`);
    // Executions get their own few connections: a key may have only 8 executions in flight
    // (the per-key concurrency limit), and a refusal would not exercise the execution path.
    const [reads, executions] = await Promise.all([
      autocannon({
        url: porch.url,
        connections: CONNECTIONS - EXECUTE_CONNECTIONS,
        duration: MEMORY_LOAD_SECONDS,
        requests: [
          { method: 'GET', path: '/api/public/v1/context-cards', headers: keyHeaders },
          { method: 'POST', path: '/api/public/mcp', headers: mcpHeaders, body: mcpBody },
          { method: 'POST', path: '/api/public/v1/sanitiser/scan', headers: jsonHeaders, body: scanBody },
        ],
      }),
      autocannon({
        url: porch.url,
        connections: EXECUTE_CONNECTIONS,
        duration: MEMORY_LOAD_SECONDS,
        requests: [{ method: 'POST', path: `/api/public/v1/compositions/${seeded.compositionId}/execute`, headers: jsonHeaders, body: executeBody }],
      }),
    ]);
    for (const result of [reads, executions]) {
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`mixed load: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }
    const mixed = { requests: { total: reads.requests.total + executions.requests.total } };
    const memoryNow = await memoryOf(pid);
    const memory = memoryNow ? { ...memoryNow, requests: mixed.requests.total } : null;
    process.stdout.write(`  RSS ${memory?.rssMb.toFixed(0)} MB (peak ${memory?.peakMb.toFixed(0)} MB) after ${mixed.requests.total} requests\n`);
    process.stdout.write('Growth with owned items:\n');
    const growth: Results['growth'] = [];
    for (const size of GROWTH_SIZES) {
      const owner = seeded.growth.get(size);
      if (!owner) throw new Error(`no growth account for ${size}`);
      const headers = { 'x-api-key': owner.key };
      const listPage = await timeSequential(QUICK ? 50 : 500, 20, async () => {
        await fetchJson(`${api}/context-cards?limit=20`, { headers });
      });
      let listAllBytes = 0;
      const listAll = await timeSequential(size >= 100_000 ? 5 : QUICK ? 20 : 200, size >= 100_000 ? 1 : 10, async () => {
        const response = await fetch(`${api}/context-cards`, { headers });
        const text = await response.text();
        if (!response.ok) throw new Error(`list all: ${response.status}`);
        listAllBytes = Buffer.byteLength(text);
      });
      const execute = await timeSequential(QUICK ? 50 : 500, 20, executeOnce(porch.url, owner.key, owner.compositionId));
      growth.push({ items: size, listPage, listAll, listAllBytes, execute });
      process.stdout.write(
        `  ${size} items: list?limit=20 p50 ${listPage.p50.toFixed(2)} ms, full list p50 ${listAll.p50.toFixed(1)} ms (${(listAllBytes / 1e6).toFixed(2)} MB), execute p50 ${execute.p50.toFixed(2)} ms\n`,
      );
    }

    process.stdout.write('Growth with workflow nodes:\n');
    const workflows: Results['workflows'] = [];
    for (const [kind, ids] of [
      ['upstream', seeded.workflowIds],
      ['echo', seeded.echoWorkflowIds],
    ] as const) {
      for (const size of WORKFLOW_SIZES) {
        const id = ids.get(size);
        const body = JSON.stringify({ variables: { topic: 'tea' } });
        const execute = await timeSequential(size >= 100 ? (QUICK ? 5 : 50) : QUICK ? 20 : 200, 3, async () => {
          const response = await fetch(`${api}/workflows/${id}/execute`, { method: 'POST', headers: jsonHeaders, body });
          const answer = (await response.json()) as { data?: { status?: string } };
          if (response.status !== 200 || answer.data?.status !== 'completed')
            throw new Error(`workflow ${size}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
        });
        workflows.push({ kind, nodes: size, execute });
        process.stdout.write(`  ${size} ${kind} nodes: p50 ${execute.p50.toFixed(2)} ms, p99 ${execute.p99.toFixed(2)} ms\n`);
      }
    }

    await stopProcess(porch.process);

    process.stdout.write("Cold start (spawn to the first 200 on /health, on the seeded database; Node's own HTTP server in turns):\n");
    const coldRuns: number[] = [];
    const bareNodeRuns: number[] = [];
    const timeStart = async (command: string[], env: NodeJS.ProcessEnv, ready: RegExp, path: string): Promise<number> => {
      const started = await startProcess(process.execPath, command, env, ready);
      const response = await fetch(`${started.url}${path}`);
      await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      const elapsed = performance.now() - started.spawnedAt;
      await stopProcess(started.process);
      return elapsed;
    };
    for (let run = 0; run < COLD_START_RUNS; run += 1) {
      bareNodeRuns.push(await timeStart(['-e', BARE_NODE_SERVER], process.env, LISTENING, '/'));
      coldRuns.push(await timeStart([...PORCH_START_FLAGS, PORCH_ENTRY, 'serve'], porchEnv, PORCH_READY, '/api/public/v1/health'));
    }
    const coldStart = { runs: coldRuns, median: summarise(coldRuns).p50, bareNodeRuns, bareNodeMedian: summarise(bareNodeRuns).p50 };
    process.stdout.write(
      `  median ${coldStart.median.toFixed(0)} ms (${coldRuns.map((ms) => ms.toFixed(0)).join(', ')}); Node's own HTTP server ${coldStart.bareNodeMedian.toFixed(0)} ms\n`,
    );
    await stopProcess(fake.process);

    const cpu = cpus();
    const results: Results = {
      machine: `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} vCPU, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${type()} ${release()}`,
      node: process.version,
      date: new Date().toISOString().slice(0, 10),
      throughput,
      execute: { direct, portkey: portkeyExecute, porch: porchExecute },
      coldStart,
      memory,
      growth,
      workflows,
    };
    // Hand-written analysis of the targets not met, kept beside the generated tables.
    const notes = await readFile(join(ROOT, 'bench', 'RESULTS-NOTES.md'), 'utf8').catch(() => '');
    // The Scale section comes from `npm run bench:scale` (bench/scale.ts, many minutes of its own): kept as it is.
    const previous = await readFile(join(ROOT, 'bench', 'RESULTS.md'), 'utf8').catch(() => '');
    const scale = /<!-- scale:start -->[\s\S]*?<!-- scale:end -->\n/.exec(previous)?.[0] ?? '';
    const markdown = `${renderResults(results)}${scale ? `${scale}\n` : ''}${notes ? `\n${notes}` : ''}`;
    if (QUICK) process.stdout.write(`\n${markdown}`);
    else await writeFile(join(ROOT, 'bench', 'RESULTS.md'), markdown);
    process.stdout.write(QUICK ? '\n(BENCH_QUICK: RESULTS.md not written)\n' : '\nWrote bench/RESULTS.md\n');
  } finally {
    await Promise.all([...children].map(stopProcess));
    await rm(directory, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value: number, digits = 2) => value.toFixed(digits);
const pass = (ok: boolean) => (ok ? 'met' : '**not met**');

function renderResults(results: Results): string {
  const [bare, list, mcp, scan] = results.throughput;
  if (!bare || !list || !mcp || !scan) throw new Error('missing throughput results');
  const listRatio = list.requestsPerSecond / bare.requestsPerSecond;
  const mcpRatio = mcp.requestsPerSecond / list.requestsPerSecond;
  const addedP50 = results.execute.porch.p50 - results.execute.direct.p50;
  const addedP99 = results.execute.porch.p99 - results.execute.direct.p99;
  const portkeyP50 = results.execute.portkey.p50 - results.execute.direct.p50;
  const portkeyP99 = results.execute.portkey.p99 - results.execute.direct.p99;
  const echo100 = results.workflows.find((row) => row.kind === 'echo' && row.nodes === 100);
  const lines = [
    '# Benchmarks',
    '',
    `Produced by \`npm run bench\` (bench/run-bench.ts) on ${results.date}.`,
    '',
    `- Machine: ${results.machine}`,
    `- Node: ${results.node}`,
    `- Setup: each server in its own process on 127.0.0.1; autocannon in the bench process, ${CONNECTIONS} connections, ${LOAD_SECONDS} s per row after ${WARMUP_SECONDS} s warm-up; Porch started as \`npm start\` starts it (\`node ${[...PORCH_START_FLAGS, `dist/${PORCH_DIST_ENTRY}`, 'serve'].join(' ')}\`) with \`LOG_LEVEL=warn\`, one SQLite file (WAL) holding the bench account plus ${GROWTH_SIZES.map((size) => size.toLocaleString('en')).join(', ')} cards and compositions of other accounts.`,
    '',
    '## Targets',
    '',
    '| Target | Result | |',
    '|---|---|---|',
    `| Authenticated list ≥ 60 % of bare Express | ${(listRatio * 100).toFixed(0)} % | ${pass(listRatio >= 0.6)} |`,
    `| MCP list ≥ 50 % of REST list | ${(mcpRatio * 100).toFixed(0)} % | ${pass(mcpRatio >= 0.5)} |`,
    `| Added execution latency p50 ≤ Portkey's (${ms(portkeyP50)} ms in the same run) | ${ms(addedP50)} ms | ${pass(addedP50 <= portkeyP50)} |`,
    `| Added execution latency p99 ≤ 10 ms | ${ms(addedP99)} ms | ${pass(addedP99 <= 10)} |`,
    `| Cold start ≤ 500 ms | ${ms(results.coldStart.median, 0)} ms (Node's own HTTP server: ${ms(results.coldStart.bareNodeMedian, 0)} ms) | ${pass(results.coldStart.median <= 500)} |`,
    echo100
      ? `| 100-node echo workflow p50 ≤ 30 ms | ${ms(echo100.execute.p50)} ms | ${pass(echo100.execute.p50 <= 30)} |`
      : '| 100-node echo workflow p50 ≤ 30 ms | not measured | |',
    results.memory
      ? `| RSS after ${MEMORY_LOAD_SECONDS} s of load ≤ 200 MB | ${ms(results.memory.rssMb, 0)} MB (peak ${ms(results.memory.peakMb, 0)} MB) | ${pass(results.memory.rssMb <= 200)} |`
      : '| RSS after load ≤ 200 MB | not measured (no /proc) | |',
    '',
    '## Throughput',
    '',
    '| Endpoint | Requests/s | p50 (ms) | p99 (ms) | vs bare | server CPU per request (µs) |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.throughput.map(
      (row) =>
        `| ${row.name} | ${Math.round(row.requestsPerSecond).toLocaleString('en')} | ${row.p50} | ${row.p99} | ${((row.requestsPerSecond / bare.requestsPerSecond) * 100).toFixed(0)} % | ${Math.round(row.cpuMicros)} |`,
    ),
    '',
    "Latency here is under saturation (32 requests in flight), so it is mostly queueing; the sequential numbers below are the cost of one request. The server CPU column is the serving process's CPU time (all its threads, from /proc) over the measured seconds, divided by the requests it answered: a server bound by its CPU serves at most the inverse, so the list reaches 60 % of bare Express only if it costs at most bare Express's CPU per request divided by 0.6.",
    '',
    '## Execution: Porch and Portkey vs calling the upstream directly',
    '',
    `${results.execute.porch.samples.toLocaleString('en')} sequential calls each, the three kinds taking turns, against a zero-latency fake OpenAI-compatible server (its own process). "Direct" is the openai SDK's \`chat.completions.create\`; "Portkey" is the same call through the open-source Portkey AI gateway (\`@portkey-ai/gateway\` ${PORTKEY_VERSION}, installed by the bench into bench/.cache; it does no authentication, limits, metering or usage records); "Porch" is \`POST /compositions/{id}/execute\` (key check, rate limit, template, credit reservation and settlement, usage record, the same SDK call).`,
    '',
    '| | p50 (ms) | p99 (ms) | mean (ms) |',
    '|---|---:|---:|---:|',
    `| Direct SDK call | ${ms(results.execute.direct.p50)} | ${ms(results.execute.direct.p99)} | ${ms(results.execute.direct.mean)} |`,
    `| Through Portkey | ${ms(results.execute.portkey.p50)} | ${ms(results.execute.portkey.p99)} | ${ms(results.execute.portkey.mean)} |`,
    `| Through Porch | ${ms(results.execute.porch.p50)} | ${ms(results.execute.porch.p99)} | ${ms(results.execute.porch.mean)} |`,
    `| Added by Portkey | ${ms(portkeyP50)} | ${ms(portkeyP99)} | ${ms(results.execute.portkey.mean - results.execute.direct.mean)} |`,
    `| **Added by Porch** | **${ms(addedP50)}** | **${ms(addedP99)}** | ${ms(results.execute.porch.mean - results.execute.direct.mean)} |`,
    '',
    '## Cold start and memory',
    '',
    `- Cold start, \`node ${[...PORCH_START_FLAGS, `dist/${PORCH_DIST_ENTRY}`, 'serve'].join(' ')}\` spawned to the first 200 on \`/health\` (existing database): median ${ms(results.coldStart.median, 0)} ms over ${results.coldStart.runs.length} runs (${results.coldStart.runs.map((run) => ms(run, 0)).join(', ')} ms). In turns with them, Node starting its own HTTP server and answering one request (the host's floor): median ${ms(results.coldStart.bareNodeMedian, 0)} ms (${results.coldStart.bareNodeRuns.map((run) => ms(run, 0)).join(', ')} ms).`,
    results.memory
      ? `- Resident memory after ${MEMORY_LOAD_SECONDS} s of mixed load (list, MCP list, 1 KB scan, execute; ${results.memory.requests.toLocaleString('en')} requests): ${ms(results.memory.rssMb, 0)} MB RSS, peak ${ms(results.memory.peakMb, 0)} MB.`
      : '- Memory: not measured on this platform.',
    '',
    '## Growth',
    '',
    'Sequential latency for one account owning N context cards and N compositions (every account shares the same tables).',
    '',
    '| Owned items | list `?limit=20` p50 / p99 (ms) | full list p50 (ms) | full list size | execute composition p50 / p99 (ms) |',
    '|---:|---:|---:|---:|---:|',
    ...results.growth.map(
      (row) =>
        `| ${row.items.toLocaleString('en')} | ${ms(row.listPage.p50)} / ${ms(row.listPage.p99)} | ${ms(row.listAll.p50, 1)} | ${(row.listAllBytes / 1e6).toFixed(2)} MB | ${ms(row.execute.p50)} / ${ms(row.execute.p99)} |`,
    ),
    '',
    'Workflow of N chained model nodes (each node one call to the zero-latency upstream):',
    '',
    '| Nodes | execute p50 (ms) | p99 (ms) | p50 per node (ms) |',
    '|---:|---:|---:|---:|',
    ...results.workflows
      .filter((row) => row.kind === 'upstream')
      .map((row) => `| ${row.nodes} | ${ms(row.execute.p50)} | ${ms(row.execute.p99)} | ${ms(row.execute.p50 / row.nodes)} |`),
    '',
    "Workflow of N chained echo-model nodes (the model answers in the process: what is left is Porch's own cost per node, engine, metering and storage):",
    '',
    '| Nodes | execute p50 (ms) | p99 (ms) | p50 per node (ms) |',
    '|---:|---:|---:|---:|',
    ...results.workflows
      .filter((row) => row.kind === 'echo')
      .map((row) => `| ${row.nodes} | ${ms(row.execute.p50)} | ${ms(row.execute.p99)} | ${ms(row.execute.p50 / row.nodes)} |`),
    '',
  ];
  return lines.join('\n');
}

try {
  await main();
} catch (err) {
  await Promise.all([...children].map(stopProcess));
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
