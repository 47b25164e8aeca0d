/**
 * `porch serve --workers N`: one supervisor and N server processes sharing the port. A worker
 * that dies is replaced while the others keep serving, and a stop ends every process cleanly.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { porchEntryArgs, runPorch, runPorchProcess } from '../helpers/cli.js';
import { api, baseEnv, makeDataDir, openDirect, startPorchProcess, type PorchProcess } from './porch-process.js';

let data: Awaited<ReturnType<typeof makeDataDir>>;
let key: string;
/** The command line of the `porch` entry, which each worker process runs too. */
let entry: string;

beforeAll(async () => {
  entry = (await porchEntryArgs()).join(' ');
  data = await makeDataDir();
  const setup = await openDirect(data.databaseUrl);
  const account = await setup.core.accounts.createAccount({ email: 'workers@example.com', plan: 'expert', credits: 10 });
  key = (await setup.core.accounts.createKey({ accountId: account.id, requestsPerMinute: 100_000, requestsPerDay: 100_000 })).plaintext;
  await setup.close();
});

afterAll(() => data.cleanup());

/** The supervisor's worker processes, by pid: its children running the `porch` entry. */
function workerPids(supervisor: PorchProcess): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(supervisor.child.pid), '-f', entry], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('porch serve --workers', () => {
  it('serves from two workers, replaces one killed with kill -9 while the other serves, and stops cleanly on SIGTERM', async () => {
    const supervisor = await startPorchProcess(data.databaseUrl, {}, ['--workers', '2']);
    try {
      expect(supervisor.stdout()).toMatch(/with 2 workers/);
      // PORT=0: the supervisor chose the port both workers share, and the links name it.
      expect(supervisor.stdout()).toContain(`(API ${supervisor.url}/api/public/v1)`);
      const [first, second] = workerPids(supervisor);
      expect(second, 'two workers run').toBeDefined();
      for (let index = 0; index < 10; index++) expect((await api(supervisor.url, 'GET', '/context-cards', { key })).status).toBe(200);

      process.kill(first ?? 0, 'SIGKILL');
      // The other worker keeps answering while the replacement starts, to a client that does what
      // clients must across any restart: time out and retry an idempotent GET. A keep-alive
      // connection the killed worker held is reset; and a new connection Node's cluster primary
      // handed to that worker in the instant it died is never answered (its round-robin keeps
      // such a connection open and does not hand it on: seen in full suite runs, a retry's
      // connection included), so the client retries more than once.
      const list = () => api(supervisor.url, 'GET', '/context-cards', { key, timeoutMs: 5_000 });
      const listWithRetries = () => list().catch(list).catch(list);
      expect((await listWithRetries()).status).toBe(200);
      await waitFor(() => workerPids(supervisor).length === 2 && !workerPids(supervisor).includes(first ?? 0), 20_000);
      await waitFor(() => /a worker stopped unexpectedly; starting a new one/.test(supervisor.stderr()), 5_000);
      for (let index = 0; index < 10; index++) expect((await listWithRetries()).status).toBe(200);
    } finally {
      const workers = workerPids(supervisor);
      supervisor.child.kill('SIGTERM');
      expect(await supervisor.exited, 'the supervisor exits 0').toBe(0);
      await waitFor(() => workers.every((pid) => !isAlive(pid)), 10_000);
    }
  }, 60_000);

  it('exits 1 when the port is taken, leaving no process behind (regression: the workers printed the error and stayed, and so did the supervisor)', async () => {
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = occupant.address() as AddressInfo;
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...baseEnv(data.databaseUrl, { PORT: String(port), LOG_LEVEL: 'error' }) };
      const result = await runPorchProcess(env, 'serve', '--workers', '2');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/another process uses that port/);
      expect(result.stderr).toMatch(/A worker stopped while starting/);
    } finally {
      occupant.close();
    }
  }, 30_000);

  it.each(['0', 'two', '-1', ''])('refuses --workers "%s", naming the option', async (value) => {
    const result = await runPorch({ DATABASE_URL: data.databaseUrl, LOG_LEVEL: 'silent' }, 'serve', '--workers', value);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--workers \(or PORCH_WORKERS\) must be a whole number from 1 to 256, or auto/);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
