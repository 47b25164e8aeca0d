/**
 * The real `porch` entry, started as a process: what the in-process tests cannot see (the exit
 * code reaching the shell, stdout and stderr as separate pipes, signals ending `porch serve`).
 * Every other CLI test runs the same `runCli` in-process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPorch, runPorchProcess } from '../helpers/cli.js';
import { api, startPorchProcess } from '../reliability/porch-process.js';

const MISSING_ACCOUNT = '0190a4b0-0000-7000-8000-000000000000';

let directory: string;
let databaseUrl: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-entry-'));
  databaseUrl = `file:${join(directory, 'porch.db')}`;
  // Logs on (info), so a log line on stdout would show.
  env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', PORCH_NO_BOOTSTRAP: '1' };
  // In-process: a second process start would only cost time.
  expect((await runPorch(env, 'db', 'init')).code).toBe(0);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

// A cold start takes about half a second per process, and the run's first builds the bundle (about 3 s).
describe('the porch entry as a process', { timeout: 60_000 }, () => {
  it('exits 0 with only the output on stdout, and 1 with the message on stderr only', async () => {
    const created = await runPorchProcess(env, 'account', 'create', '--email', 'entry@example.com', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'entry@example.com' });

    const refused = await runPorchProcess(env, 'account', 'show', MISSING_ACCOUNT);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(new RegExp(`^porch: No account with id ${MISSING_ACCOUNT}`, 'm'));
  });

  it('serves until SIGTERM, then exits 0, printing its address (the port PORT=0 chose) on stdout and its logs on stderr', async () => {
    const server = await startPorchProcess(databaseUrl, { LOG_LEVEL: 'info' });
    try {
      const health = await api(server.url, 'GET', '/health');
      expect(health.status, health.text).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited, server.stderr()).toBe(0);
    // One line of output; the logs (JSON lines) went to stderr. PORT=0 (the helper's) chose a
    // port before the configuration fixed Porch's links, so the API URL names the same port.
    expect(server.stdout()).toBe(`Porch is listening on ${server.url} (API ${server.url}/api/public/v1)\n`);
    expect(server.stderr()).toMatch(/"msg":"shutting down"/);
  });

  it('shuts down as gracefully on SIGHUP, the closing of its terminal (regression: cut off at once, exit 129)', async () => {
    const server = await startPorchProcess(databaseUrl, { LOG_LEVEL: 'info' });
    // Once it serves: its signal handlers are in place from the moment it prints its address.
    expect((await api(server.url, 'GET', '/health')).status).toBe(200);
    server.child.kill('SIGHUP');
    expect(await server.exited, server.stderr()).toBe(0);
    expect(server.stderr()).toMatch(/"msg":"shutting down","signal":"SIGHUP"|"signal":"SIGHUP".*"msg":"shutting down"/);
  });
});
