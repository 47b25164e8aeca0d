/** `porch webhook ...`, run in-process (as the `porch` entry runs it) against a real database file. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { runPorch } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;
let account: string;

const porch = (...args: string[]) => runPorch(env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-webhooks-'));
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'] } }), 'utf8');
  env = { ...process.env, DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent', PORCH_CONFIG: configPath };
  expect((await porch('db', 'init')).code).toBe(0);
  account = (JSON.parse((await porch('account', 'create', '--email', 'hooks-cli@example.com', '--plan', 'expert', '--json')).stdout) as { id: string }).id;
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('porch webhook', () => {
  it('adds an endpoint and prints its secret once; list, update, rotate, deliveries and remove act on it', async () => {
    const added = await porch('webhook', 'add', '--account', account, '--url', 'http://127.0.0.1:9/hook', '--events', 'run.completed,credits.low', '--json');
    expect(added.code, added.stderr).toBe(0);
    const { endpoint, secret } = JSON.parse(added.stdout) as { endpoint: { id: string; events: string[] }; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.events).toEqual(['run.completed', 'credits.low']);

    const listed = await porch('webhook', 'list', '--account', account);
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain('whsec_');

    const updated = await porch('webhook', 'update', endpoint.id, '--account', account, '--enabled', 'off', '--events', 'run.failed', '--json');
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ enabled: false, events: ['run.failed'] });

    const rotated = await porch('webhook', 'rotate', endpoint.id, '--account', account, '--grace', '60');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/secret {2}whsec_/);
    expect(rotated.stdout).not.toContain(secret);
    expect(rotated.stdout).toMatch(/old secret also signs until/);

    const deliveries = await porch('webhook', 'deliveries', endpoint.id, '--account', account, '--status', 'failed');
    expect(deliveries.stdout).toContain('No deliveries.');
    const redeliver = await porch('webhook', 'redeliver', endpoint.id, newId(), '--account', account);
    expect(redeliver.code).not.toBe(0);
    expect(redeliver.stderr).toMatch(/No delivery/);

    const threshold = await porch('webhook', 'threshold', '--account', account, '--credits', '25');
    expect(threshold.stdout).toContain('below 25 credits');
    // The operation's bounds hold on the CLI too (regression: 2000000000 was stored).
    for (const [credits, message] of [
      ['2000000000', /--credits must be at most 1000000000, got 2000000000/],
      ['2.0005', /--credits must have at most three decimals/],
    ] as const) {
      const refused = await porch('webhook', 'threshold', '--account', account, '--credits', credits);
      expect(refused.code, credits).toBe(1);
      expect(refused.stderr, credits).toMatch(message);
    }

    expect((await porch('webhook', 'remove', endpoint.id, '--account', account)).code).toBe(0);
    expect((await porch('webhook', 'list', '--account', account)).stdout).toContain('No webhook endpoints.');
  });

  it('refuses a URL the SSRF guard refuses and unknown events, saying why', async () => {
    const http = await porch('webhook', 'add', '--account', account, '--url', 'http://93.184.215.14/hook', '--events', 'run.completed');
    expect(http.code).not.toBe(0);
    expect(http.stderr).toMatch(/url: must use https/);
    const metadata = await porch('webhook', 'add', '--account', account, '--url', 'https://169.254.169.254/', '--events', 'run.completed');
    expect(metadata.stderr).toMatch(/cloud metadata address/);
    const events = await porch('webhook', 'add', '--account', account, '--url', 'http://127.0.0.1:9/', '--events', 'run.started');
    expect(events.code).not.toBe(0);
    expect(events.stderr).toMatch(/--events must list events among run.completed, run.failed, credits.low; unknown: run.started/);
  });

  it('refuses an id that names no account or organisation rather than list nothing (regression: exit 0, "No webhook endpoints.")', async () => {
    const missing = '0190a4b0-0000-7000-8000-00000000dead';
    for (const args of [
      ['webhook', 'list', '--account', missing],
      ['resource', 'list', 'composition', '--account', missing],
      ['byok', 'list', '--account', missing],
      ['byok', 'list', '--org', missing],
    ]) {
      const listed = await porch(...args);
      expect(listed.code, args.join(' ')).toBe(1);
      expect(listed.stderr, args.join(' ')).toMatch(new RegExp(`No (account|organisation) with id ${missing}`));
    }
  });

  it('refuses an account that is not on Expert', async () => {
    const free = (JSON.parse((await porch('account', 'create', '--email', 'free-hooks@example.com', '--plan', 'free', '--json')).stdout) as { id: string }).id;
    const refused = await porch('webhook', 'add', '--account', free, '--url', 'http://127.0.0.1:9/', '--events', 'run.completed');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Expert-plan feature/);
  });
});
