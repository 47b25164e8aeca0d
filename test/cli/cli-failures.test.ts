/**
 * Failures an operator meets outside the command's own logic: a HOST that does not resolve, a
 * database another process holds locked, an output that cannot be written. Each is said plainly
 * on stderr, exit 1, never as "unexpected error" or a stack trace.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { collectingStream, runPorchIn } from '../helpers/cli.js';

let directory: string;
let env: NodeJS.ProcessEnv;
let accountId: string;

const porch = (...args: string[]) => runPorchIn(directory, env, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-failures-'));
  env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${join(directory, 'porch.db')}`, LOG_LEVEL: 'silent' };
  expect((await porch('db', 'init')).code).toBe(0);
  const created = await porch('account', 'create', '--email', 'ada@example.com', '--plan', 'expert', '--json');
  expect(created.code, created.stderr).toBe(0);
  accountId = (JSON.parse(created.stdout) as { id: string }).id;
});
afterAll(() => rm(directory, { recursive: true, force: true }));

/** A stdout that refuses every write, as /dev/full does. */
function fullDisk(): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    },
  });
}

/** `porch ...args` writing its output to a full disk. */
async function porchToFullDisk(...args: string[]) {
  const stderr = collectingStream();
  const code = await runCli(args, { env, cwd: directory, stdout: fullDisk(), stderr: stderr.stream });
  return { code, stderr: stderr.text() };
}

describe('a HOST that does not resolve', () => {
  // Regression: "porch: unexpected error: getaddrinfo ENOTFOUND porch.example.com".
  it('is named as HOST, the setting to fix', async () => {
    const served = await runPorchIn(directory, { ...env, HOST: 'porch.invalid', PORT: '0', PORCH_NO_BOOTSTRAP: '1' }, 'serve');
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(
      /^porch: cannot listen on HOST porch\.invalid: the name does not resolve to an address of this host \(E[A-Z_]+\)\. Set HOST/m,
    );
    expect(served.stderr).not.toContain('unexpected error');
  });
});

describe('a database another process holds locked', () => {
  // Regression: "porch: unexpected error: The SQLite database is locked by another process ...; retry shortly.: database is locked".
  it('is said once, as the database being busy, exit 1', async () => {
    const holder = new Database(join(directory, 'porch.db'));
    holder.exec('begin immediate');
    try {
      const granted = await porch('credits', 'grant', '--account', accountId, '--credits', '5');
      expect(granted.code).toBe(1);
      expect(granted.stderr).toMatch(/^porch: The SQLite database is locked by another process/m);
      expect(granted.stderr).not.toMatch(/unexpected error|: database is locked/);
    } finally {
      holder.exec('rollback');
      holder.close();
    }
  }, 20_000);
});

describe('output that cannot be written', () => {
  // Regression: `porch account list > /dev/full` ended with a raw Node stack trace.
  it('fails the command with a message on stderr', async () => {
    const listed = await porchToFullDisk('account', 'list');
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/^porch: cannot write the output to stdout \(ENOSPC\)\.$/m);
  });

  it('says a key was created, with its id and how to revoke it, when its plaintext could not be shown', async () => {
    const created = await porchToFullDisk('key', 'create', '--account', accountId, '--json');
    expect(created.code).toBe(1);
    const id = /the API key (\S+) was created but could not be shown/.exec(created.stderr)?.[1];
    expect(id, created.stderr).toBeDefined();
    expect(created.stderr).toContain(`porch key revoke ${id}`);
    const keys = JSON.parse((await porch('key', 'list', '--account', accountId, '--json')).stdout) as Array<{ id: string; status: string }>;
    expect(keys).toContainEqual(expect.objectContaining({ id, status: 'active' }));
  });

  // Regression: `porch demo > /dev/full` said only "cannot write the output to stdout (ENOSPC)"
  // while it had made an account with credits and a key nobody would ever see.
  it('says a demo account was made, with its key and how to revoke it, when the key could not be shown', async () => {
    const demo = await porchToFullDisk('demo');
    expect(demo.code).toBe(1);
    const [, email, demoAccount, keyId] =
      /the demo account (\S+) \((\S+)\) was created with \d+ credits and the API key (\S+), but the key could not be shown/.exec(demo.stderr) ?? [];
    expect(keyId, demo.stderr).toBeDefined();
    expect(email).toMatch(/^demo/);
    expect(demo.stderr).toContain(`Revoke it with porch key revoke ${keyId}, then create another with porch key create --account ${demoAccount}.`);
    const keys = JSON.parse((await porch('key', 'list', '--account', demoAccount ?? '', '--json')).stdout) as Array<{ id: string }>;
    expect(keys.map((key) => key.id)).toEqual([keyId]);
  });

  it('says a one-time console link was issued, and how to replace it, when it could not be shown', async () => {
    for (const command of ['invite', 'reset-password']) {
      const issued = await porchToFullDisk('account', command, 'ada@example.com');
      expect(issued.code, command).toBe(1);
      expect(issued.stderr, command).toContain(
        `porch: cannot write the output to stdout (ENOSPC): a one-time link for ada@example.com was issued but could not be shown, and it cannot be shown again. Issue another with porch account ${command} ada@example.com: it replaces this one.\n`,
      );
    }
  });

  // Regression: "unexpected error: ENOSPC: no space left on device, write", naming no file.
  it('names the file an export could not be written to', async () => {
    const exported = await porch('export', '--account', accountId, '--output', '/dev/full');
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain('porch: cannot write the bundle to /dev/full: the disk is full.\n');
  });
});

describe('an empty file name to write to', () => {
  // Regression: `export --output ''` printed the bundle and exited 0, where `backup --to ''` is refused.
  it('is refused by export as by backup, writing nothing', async () => {
    for (const [args, message] of [
      [['export', '--account', accountId, '--output', ''], '--output needs the name of the bundle file to write'],
      [['skills', 'export', accountId, '--account', accountId, '--output', ' '], '--output needs the name of the folder to write the skill into'],
      [['backup', '--to', ''], '--to needs the name of the backup file to write.'],
    ] as const) {
      const refused = await porch(...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout, args.join(' ')).toBe('');
      expect(refused.stderr, args.join(' ')).toContain(`porch: ${message}`);
    }
  });
});
