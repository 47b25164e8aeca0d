/**
 * `porch account invite|reset-password`, run in-process against a real database file: the link is
 * printed once and works on the console's set-password page; only its hash is stored.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPorch } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;
const porch = (...args: string[]) => runPorch(env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-links-'));
  env = { ...process.env, DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent', PORCH_PUBLIC_URL: 'https://porch.example.com' };
  expect((await porch('db', 'init')).code).toBe(0);
  expect((await porch('account', 'create', '--email', 'Links@Example.com', '--plan', 'builder')).code).toBe(0);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('porch account invite and reset-password', () => {
  it('prints a one-time set-password link on the public URL, with its expiry; the database holds only its hash', async () => {
    const invited = await porch('account', 'invite', 'links@example.com', '--json');
    expect(invited.code, invited.stderr).toBe(0);
    const link = JSON.parse(invited.stdout) as { email: string; url: string; expires_at: string };
    expect(link.email).toBe('links@example.com');
    expect(link.url).toMatch(/^https:\/\/porch\.example\.com\/console\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(link.url).searchParams.get('token') ?? '';
    const database = new Database(join(directory, 'porch.db'), { readonly: true });
    try {
      const stored = database.prepare('select token_hash, purpose from account_tokens').all() as Array<{ token_hash: string; purpose: string }>;
      expect(stored).toHaveLength(1);
      expect(stored[0]?.purpose).toBe('invite');
      expect(stored[0]?.token_hash).not.toContain(token);
    } finally {
      database.close();
    }
  });

  it('a reset link replaces the invite and says it is shown once', async () => {
    const reset = await porch('account', 'reset-password', 'links@example.com');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/Shown once/);
    expect(reset.stdout).toMatch(/\/console\/set-password\?token=/);
  });

  it('refuses under PORT=0 without PORCH_PUBLIC_URL, issuing nothing (regression: printed a link to port 0)', async () => {
    const { PORCH_PUBLIC_URL: _named, ...unnamed } = env;
    const anyPort = { ...unnamed, PORT: '0' };
    for (const args of [['account', 'invite', 'links@example.com'], ['demo']]) {
      const refused = await runPorch(anyPort, ...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^porch: PORT is 0, so the server picks its port when it starts .* Set PORCH_PUBLIC_URL \(or PORT\)/);
    }
    const database = new Database(join(directory, 'porch.db'), { readonly: true });
    try {
      expect(database.prepare('select count(*) as accounts from accounts').get(), 'no demo account').toEqual({ accounts: 1 });
    } finally {
      database.close();
    }
    const named = await runPorch({ ...anyPort, PORCH_PUBLIC_URL: 'https://porch.example.com' }, 'account', 'invite', 'links@example.com', '--json');
    expect(JSON.parse(named.stdout)).toMatchObject({ url: expect.stringMatching(/^https:\/\/porch\.example\.com\/console\/set-password\?token=/) });
  });

  it('names an unknown email', async () => {
    const missing = await porch('account', 'invite', 'nobody@example.com');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/No account with email nobody@example.com/);
  });
});
