/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) for Porch.
 *
 * The suite needs Node.js 22 (it imports `fs.globSync`) and Porch runs on 20, so the tools pinned
 * in scripts/mcp-conformance/package.json and its lock file (the suite, and Node.js 22 from the
 * npm package `node`) are installed with `npm ci` into .cache/mcp-conformance/<digest>/ the first
 * time they are needed; the digest changes with the pins, so a new pin installs afresh.
 *
 * As a library: `ensureConformanceTools` and `runServerScenarios` (test/mcp/conformance.test.ts).
 * As a command, against a running Porch:
 *   npx tsx scripts/mcp-conformance.ts --url http://127.0.0.1:3000/api/public/mcp
 *   npx tsx scripts/mcp-conformance.ts --url http://127.0.0.1:3000/api/public/mcp --key mdi_...
 *   DATABASE_URL=file:$PWD/data/porch.db PORCH_API_KEY=mdi_... npx tsx scripts/mcp-conformance.ts --stdio
 *   npx tsx scripts/mcp-conformance.ts --url http://127.0.0.1:3000/api/public/mcp --revision 2026-07-28 --requirements 2026-07-28
 * `--revision 2026-07-28` runs the prerelease suite pinned as `conformance-2026` (0.1.x tests the
 * 2025 revisions only). Any other argument (`--scenario tools-list`, `--verbose`) goes to
 * `conformance server`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Relay, startKeyRelay, startStdioRelay } from './mcp-conformance/relays.js';

const REPO_ROOT = join(import.meta.dirname, '..');
const PINS_DIR = join(import.meta.dirname, 'mcp-conformance');
const CACHE_ROOT = join(REPO_ROOT, '.cache', 'mcp-conformance');
/** Written last into a finished install, so a folder without it is one an interrupted install left. */
const INSTALLED_MARKER = 'installed.json';

export interface ConformanceTools {
  /** The Node.js 22 binary the suite runs on. */
  node: string;
  /** The suite's command-line entry. */
  entry: string;
  /** The pinned suite version, for messages. */
  version: string;
  /** The prerelease suite's command-line entry, for revision 2026-07-28 (which 0.1.x does not test). */
  entry2026: string;
  version2026: string;
  /** The MCP Inspector's command-line entry (`mcp-inspector`). */
  inspector: string;
  inspectorVersion: string;
}

export interface InstallOptions {
  /** An `npm ci` that takes longer is stopped and reported (default 5 minutes). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

function toolsIn(dir: string): ConformanceTools {
  const manifest = JSON.parse(readFileSync(join(PINS_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  return {
    node: join(dir, 'node_modules', 'node', 'bin', 'node'),
    entry: join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
    version: manifest.dependencies['@modelcontextprotocol/conformance'] ?? 'unknown',
    entry2026: join(dir, 'node_modules', 'conformance-2026', 'dist', 'index.js'),
    version2026: (manifest.dependencies['conformance-2026'] ?? 'unknown').replace(/^npm:@modelcontextprotocol\/conformance@/, ''),
    inspector: join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js'),
    inspectorVersion: manifest.dependencies['@modelcontextprotocol/inspector'] ?? 'unknown',
  };
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runProcess(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/**
 * The environment for a nested npm: without the `npm_*` variables of an `npm test` that may be
 * running us, which would otherwise steer the nested install (its prefix, its omitted deps).
 */
function cleanNpmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

/** The environment for the suite: no NODE_OPTIONS meant for this Node.js 20 process (a loader, say). */
function suiteEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ignored, ...env } = cleanNpmEnv();
  return env;
}

/** Installs the pinned tools unless this exact pin set is already in the cache; returns where they are. */
export async function ensureConformanceTools(options: InstallOptions = {}): Promise<ConformanceTools> {
  const { timeoutMs = 5 * 60_000, log = () => undefined } = options;
  const pinFiles = ['package.json', 'package-lock.json'];
  const digest = createHash('sha256')
    .update(pinFiles.map((file) => readFileSync(join(PINS_DIR, file), 'utf8')).join('\0'))
    .digest('hex')
    .slice(0, 16);
  const dir = join(CACHE_ROOT, digest);
  const tools = toolsIn(dir);
  if (existsSync(join(dir, INSTALLED_MARKER))) return tools;

  // Install into a fresh folder and rename it into place, so a test and a command installing at
  // the same time never see each other's half-written node_modules.
  mkdirSync(CACHE_ROOT, { recursive: true });
  const staging = mkdtempSync(join(CACHE_ROOT, `${digest}.partial-`));
  try {
    for (const file of pinFiles) copyFileSync(join(PINS_DIR, file), join(staging, file));
    log(`Installing the MCP conformance suite ${tools.version}, the MCP Inspector ${tools.inspectorVersion} and Node.js 22 into ${dir} (npm ci, once)...`);
    const install = await runProcess('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, env: cleanNpmEnv(), timeoutMs });
    if (install.timedOut || install.code !== 0) {
      throw new Error(
        `Could not install the MCP conformance tools (${install.timedOut ? `npm ci took over ${timeoutMs} ms` : `npm ci exited ${install.code}`}); ` +
          `the npm registry must be reachable the first time. npm said:\n${(install.stderr || install.stdout).slice(-3000)}`,
      );
    }
    const staged = toolsIn(staging);
    const version = await runProcess(staged.node, ['--version'], { cwd: staging, env: process.env, timeoutMs: 30_000 });
    if (version.code !== 0 || !version.stdout.startsWith('v22.')) {
      throw new Error(`The npm package "node" did not install a Node.js 22 binary at ${staged.node}: ${version.stdout}${version.stderr}`);
    }
    for (const entry of [staged.entry, staged.entry2026, staged.inspector])
      if (!existsSync(entry)) throw new Error(`A pinned tool's entry is missing after install: ${entry}`);
    writeFileSync(join(staging, INSTALLED_MARKER), `${JSON.stringify({ node: version.stdout.trim(), conformance: tools.version })}\n`);
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another process finished the same install first; its copy is as good as ours.
      if (!existsSync(join(dir, INSTALLED_MARKER))) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  // Installs of earlier pins are over 300 MB each and nothing uses them any more.
  for (const folder of readdirSync(CACHE_ROOT)) {
    if (folder !== digest && existsSync(join(CACHE_ROOT, folder, INSTALLED_MARKER))) rmSync(join(CACHE_ROOT, folder), { recursive: true, force: true });
  }
  return tools;
}

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface ConformanceCheck {
  id: string;
  status: CheckStatus;
  description?: string;
  errorMessage?: string;
}

export interface ScenarioOutcome {
  scenario: string;
  /** `passes`: no failed check and at least one passed; `fails`: a failed check; `no-verdict`: neither (warnings only). */
  verdict: 'passes' | 'fails' | 'no-verdict';
  checks: ConformanceCheck[];
}

/** The failed (or, without failures, warned) checks of an outcome, one line each, for messages. */
export function describeOutcome(outcome: ScenarioOutcome): string {
  const notable = outcome.checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  return notable.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`.slice(0, 400)).join('\n    ');
}

function verdictOf(checks: readonly ConformanceCheck[]): ScenarioOutcome['verdict'] {
  if (checks.some((check) => check.status === 'FAILURE')) return 'fails';
  return checks.some((check) => check.status === 'SUCCESS') ? 'passes' : 'no-verdict';
}

/** The suite names each result folder `server-<scenario>-<ISO timestamp with : and . as ->`. */
const RESULT_FOLDER = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

export interface RunOptions {
  url: string;
  /** Where the suite writes one folder of checks.json per scenario (must be empty). */
  outputDir: string;
  /** Extra arguments for `conformance server` (e.g. `--scenario tools-list`). */
  args?: readonly string[];
  /** The whole suite run is stopped after this long (default 2 minutes). */
  timeoutMs?: number;
}

/** Runs the suite's server scenarios against `url` and reads back each scenario's checks. */
export async function runServerScenarios(tools: ConformanceTools, options: RunOptions): Promise<ScenarioOutcome[]> {
  const { url, outputDir, args = [], timeoutMs = 120_000 } = options;
  mkdirSync(outputDir, { recursive: true });
  const run = await runProcess(tools.node, [tools.entry, 'server', '--url', url, '--output-dir', outputDir, ...args], {
    cwd: outputDir,
    env: suiteEnv(),
    timeoutMs,
  });
  const outcomes: ScenarioOutcome[] = [];
  for (const folder of readdirSync(outputDir).sort()) {
    const scenario = RESULT_FOLDER.exec(folder)?.[1];
    const file = join(outputDir, folder, 'checks.json');
    if (scenario === undefined || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8')) as ConformanceCheck[];
    outcomes.push({ scenario, verdict: verdictOf(checks), checks });
  }
  if (run.timedOut || outcomes.length === 0) {
    throw new Error(
      `The conformance suite ${tools.version} against ${url} ${run.timedOut ? `did not finish within ${timeoutMs} ms` : `produced no results (exit ${run.code})`}. ` +
        `Its output ends with:\n${(run.stdout + run.stderr).slice(-3000)}`,
    );
  }
  return outcomes;
}

/**
 * Runs the MCP Inspector's CLI (`mcp-inspector --cli ...args`) on Node.js 22; resolves with its
 * exit code and output rather than throwing, since a refused connection is a result to look at.
 */
export function runInspectorCli(
  tools: ConformanceTools,
  args: readonly string[],
  options: { cwd: string; home: string; timeoutMs?: number },
): Promise<ProcessResult> {
  // HOME: the Inspector keeps a catalog and OAuth state under ~/.mcp-inspector; a test's stay in its own folder.
  return runProcess(tools.node, [tools.inspector, '--cli', ...args], {
    cwd: options.cwd,
    env: { ...suiteEnv(), HOME: options.home },
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}

interface CommandLine {
  url: string | undefined;
  key: string | undefined;
  stdio: boolean;
  /** `--revision 2026-07-28`: run the prerelease suite, which tests that revision. */
  revision2026: boolean;
  rest: string[];
}

function parseCommandLine(argv: readonly string[]): CommandLine {
  const parsed: CommandLine = { url: undefined, key: undefined, stdio: false, revision2026: false, rest: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--url') parsed.url = argv[++index];
    else if (arg === '--key') parsed.key = argv[++index];
    else if (arg === '--stdio') parsed.stdio = true;
    else if (arg === '--revision') parsed.revision2026 = argv[++index] === '2026-07-28';
    else if (arg !== undefined) parsed.rest.push(arg);
  }
  return parsed;
}

async function main(): Promise<void> {
  const command = parseCommandLine(process.argv.slice(2));
  if (command.url === undefined && !command.stdio) {
    process.stderr.write(
      'usage: tsx scripts/mcp-conformance.ts (--url <Porch MCP URL> [--key mdi_...] | --stdio) [--revision 2026-07-28] [conformance server options]\n',
    );
    process.exitCode = 2;
    return;
  }
  const tools = await ensureConformanceTools({ log: (line) => process.stderr.write(`${line}\n`) });
  let relay: Relay | undefined;
  let url = command.url ?? '';
  if (command.stdio) {
    // `porch mcp` from this checkout, with DATABASE_URL and PORCH_API_KEY from the environment.
    relay = await startStdioRelay({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/index.ts', 'mcp'],
      cwd: REPO_ROOT,
      env: process.env,
      requestTimeoutMs: 30_000,
    });
    url = relay.url;
  } else if (command.key !== undefined) {
    relay = await startKeyRelay(url, command.key);
    url = relay.url;
  }
  try {
    const entry = command.revision2026 ? tools.entry2026 : tools.entry;
    const child = spawn(tools.node, [entry, 'server', '--url', url, ...command.rest], { stdio: 'inherit', env: suiteEnv() });
    process.exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  } finally {
    await relay?.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
