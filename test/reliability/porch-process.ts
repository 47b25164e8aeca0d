/**
 * Real `porch serve` child processes over one database (an SQLite file or a PostgreSQL database),
 * for the multi-process and crash tests, and a direct handle on the same database (the test
 * process opens it like one more process).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import { createSilentLogger } from '../../src/logger.js';
import { createApplication, type Application } from '../../src/main.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { porchEntryArgs } from '../helpers/cli.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A cold start of the bundle takes about half a second; this bounds a broken start, not a slow one. */
const START_DEADLINE_MS = 20_000;
/** A fixed BYOK encryption key, so every process on the file can read what another stored. */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

export interface PorchProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout (its own output, never logs). */
  stdout(): string;
  /** Everything the process wrote to stderr (its logs). */
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | NodeJS.Signals | null>;
}

export async function makeDataDir(): Promise<{ dir: string; databaseUrl: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'porch-reliability-'));
  return { dir, databaseUrl: `file:${join(dir, 'porch.db')}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** An empty database for a reliability suite, and how to remove it afterwards. */
export interface SuiteDatabase {
  url: string;
  remove(): Promise<void>;
}

/** The engines the reliability suites run on: an SQLite file (one host) and a PostgreSQL database (many hosts). */
export const SUITE_ENGINES: ReadonlyArray<{ name: string; open(): Promise<SuiteDatabase> }> = [
  {
    name: 'SQLite',
    async open() {
      const data = await makeDataDir();
      return { url: data.databaseUrl, remove: data.cleanup };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const database = await createTestDatabase();
      return { url: database.url, remove: database.drop };
    },
  },
];

export function baseEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: '0', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'warn', PORCH_SECRET_KEY: TEST_SECRET_KEY, ...extra };
}

/**
 * Starts `porch serve` and resolves once it prints its address. `entryArgs`: node's arguments up
 * to the command (the bundled sources by default; the bundle test passes `npm start`'s).
 */
export async function startPorchProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  serveArgs: string[] = [],
  entryArgs?: readonly string[],
): Promise<PorchProcess> {
  // PORT=0 makes porch serve choose a free port, then listen on it (its links name the port
  // first); a process started beside it may take that port in between (CI: "another process uses
  // that port"). Such a start is tried again; any other failure is the test's.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(databaseUrl, env, serveArgs, entryArgs);
    } catch (err) {
      const portTaken = err instanceof Error && err.message.includes('another process uses that port');
      if (!portTaken || (env.PORT ?? baseEnv(databaseUrl).PORT) !== '0' || attempt >= PORT_RACE_ATTEMPTS) throw err;
    }
  }
}

/** How many times a start that lost its chosen port to another process is tried. */
const PORT_RACE_ATTEMPTS = 3;

async function startOnce(
  databaseUrl: string,
  env: Record<string, string>,
  serveArgs: string[],
  entryArgs: readonly string[] | undefined,
): Promise<PorchProcess> {
  const child = spawn(process.execPath, [...(entryArgs ?? (await porchEntryArgs())), 'serve', ...serveArgs], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...baseEnv(databaseUrl, env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`porch serve did not start within ${START_DEADLINE_MS} ms: ${stderr.slice(0, 2000)}`));
    }, START_DEADLINE_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /Porch is listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(deadline);
        resolve({ url: match[1], child, stdout: () => stdout, stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(deadline);
      reject(new Error(`porch serve exited (${String(code)}) before listening: ${stderr.slice(0, 2000)}`));
    });
  });
}

/** Opens the database file in this process through the real services (no server). */
export async function openDirect(databaseUrl: string, clock?: Clock): Promise<Application> {
  const config = loadConfig(baseEnv(databaseUrl));
  return createApplication(config, { logger: createSilentLogger(), ...(clock ? { clock } : {}) });
}

export async function api(
  url: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
) {
  const response = await fetch(`${url}/api/public/v1${path}`, {
    method,
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
    headers: {
      ...(options.key ? { 'x-api-key': options.key } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: text ? (JSON.parse(text) as { success: boolean; data?: Record<string, unknown>; error?: { code: string } }) : undefined,
  };
}
