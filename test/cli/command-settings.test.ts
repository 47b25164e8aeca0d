/**
 * Settings a command does not use must not stop it (ARCHITECTURE: "A setting is required only by
 * the commands that use it"), and the database a command uses is the one the operator meant.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runPorchIn, runPorchProcess } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;

/** A config naming a provider key variable that the operator's shell does not hold. */
const CONFIG_WITH_UNSET_KEY = {
  ai: { providers: [{ id: 'vendor', base_url: 'https://vendor.test/v1', api_key_env: 'PORCH_TEST_UNSET_VENDOR_KEY', models: [{ name: 'large' }] }] },
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-settings-'));
  await writeFile(join(directory, 'porch.config.yaml'), stringify(CONFIG_WITH_UNSET_KEY));
  env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  expect((await porch('db', 'init')).code).toBe(0);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

const porch = (...args: string[]) => runPorchIn(directory, env, ...args);

describe('provider key variables', () => {
  // Regression: once porch.config.yaml named api_key_env, `porch account list` failed without the secret.
  it('are not required by commands that do not call models', async () => {
    const created = await porch('account', 'create', '--email', 'no-secret@example.com', '--json');
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { id: string };
    for (const args of [
      ['account', 'list'],
      ['key', 'create', '--account', account.id],
      ['credits', 'grant', '--account', account.id, '--credits', '5'],
      ['export', '--account', account.id],
    ]) {
      const result = await porch(...args);
      expect(result.code, `porch ${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
  });

  it('are still required by the MCP server, which calls models', async () => {
    const result = await runPorchIn(directory, { ...env, PORCH_TEST_UNSET_VENDOR_KEY: '' }, 'mcp');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ai\.providers\[0\]\.api_key_env: environment variable PORCH_TEST_UNSET_VENDOR_KEY is not set/);
  });
});

describe('the database a command uses', () => {
  // Regression: run in the wrong folder, every command silently created a new, empty database there.
  it('is never created by a command run where there is none, which names the path it looked for', async () => {
    const elsewhere = join(directory, 'elsewhere');
    const missing = join(elsewhere, 'data', 'porch.db');
    for (const args of [['account', 'list'], ['demo'], ['mcp']]) {
      const result = await runPorchIn(directory, { ...env, PORCH_TEST_UNSET_VENDOR_KEY: 'set for porch mcp', DATABASE_URL: `file:${missing}` }, ...args);
      expect(result.code, `porch ${args.join(' ')}`).toBe(1);
      expect(result.stderr).toContain(`No Porch database at ${missing}`);
      expect(result.stderr).toContain('DATABASE_URL');
    }
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('is created by porch db init, which says so, and only the first time', async () => {
    const fresh = join(directory, 'fresh.db');
    const freshEnv = { ...env, DATABASE_URL: fresh };
    const created = await runPorchIn(directory, freshEnv, 'db', 'init', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ location: fresh, created: true, applied: [] });
    const again = await runPorchIn(directory, freshEnv, 'db', 'init');
    expect(again.stdout).toBe(`The database at ${fresh} exists and is up to date.\n`);
    expect((await runPorchIn(directory, freshEnv, 'account', 'list')).code).toBe(0);
  });

  it('is named on stderr, keeping stdout for the output', async () => {
    const listed = await porch('account', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe(`porch: database ${join(directory, 'porch.db')}\n`);
    expect(JSON.parse(listed.stdout)).toBeInstanceOf(Array);
  });

  it('is named in the log by porch mcp, whose stderr carries only JSON log lines', async () => {
    const served = await runPorchIn(directory, { ...env, LOG_LEVEL: 'info', PORCH_TEST_UNSET_VENDOR_KEY: 'set for porch mcp' }, 'mcp');
    expect(served.code, served.stderr).toBe(0);
    const lines = served.stderr.split('\n').filter((line) => line.length > 0);
    const logs = lines.map((line) => JSON.parse(line) as { msg?: string; database?: string });
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'using the database', database: join(directory, 'porch.db') }));
  });
});

describe('porch serve', () => {
  it('says a port in use is taken, as the operator’s to fix (regression: "unexpected error: listen EADDRINUSE")', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const served = await runPorchIn(
        directory,
        { ...env, HOST: '127.0.0.1', PORT: String(port), PORCH_NO_BOOTSTRAP: '1', PORCH_TEST_UNSET_VENDOR_KEY: 'sk-test' },
        'serve',
      );
      expect(served.code).toBe(1);
      expect(served.stderr).toContain(`porch: cannot listen on 127.0.0.1:${port}: another process uses that port.`);
      expect(served.stderr).not.toContain('unexpected error');
      // So does each worker of --workers, whose port the primary binds for it (regression: "unexpected error: bind EADDRINUSE").
      // A real process: its workers are forks of it.
      const workers = await runPorchProcess(
        { ...env, HOST: '127.0.0.1', PORT: String(port), PORCH_NO_BOOTSTRAP: '1', PORCH_TEST_UNSET_VENDOR_KEY: 'sk-test' },
        'serve',
        '--workers',
        '2',
      );
      expect(workers.code).toBe(1);
      expect(workers.stderr).toContain(`porch: cannot listen on 127.0.0.1:${port}: another process uses that port.`);
      expect(workers.stderr).not.toContain('unexpected error');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('refuses --workers on an in-memory database, which each process would have to itself (regression: N empty databases)', async () => {
    const served = await runPorchIn(
      directory,
      { ...env, DATABASE_URL: ':memory:', PORCH_NO_BOOTSTRAP: '1', PORCH_TEST_UNSET_VENDOR_KEY: 'sk-test' },
      'serve',
      '--workers',
      '2',
    );
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('porch: --workers needs a database the processes share');
  });
});

describe('porch demo', () => {
  it('prints curl commands for the configured PORT, or PORCH_PUBLIC_URL when set', async () => {
    const onPort = await runPorchIn(directory, { ...env, PORT: '8123' }, 'demo');
    expect(onPort.code, onPort.stderr).toBe(0);
    expect(onPort.stdout).toContain('http://127.0.0.1:8123/api/public/v1/context-cards');
    expect(onPort.stdout).not.toContain(':3000');
    const behindProxy = await runPorchIn(directory, { ...env, PORT: '8123', PORCH_PUBLIC_URL: 'https://porch.example.com/' }, 'demo');
    expect(behindProxy.stdout).toContain('https://porch.example.com/api/public/v1/workflows');
  });
});
