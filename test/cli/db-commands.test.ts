/**
 * `porch db migrate`, `porch db copy` and `porch backup` as an operator runs them: what they
 * print, their exit codes, the files they write, and that no URL's password is ever printed.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, createStore } from '../../src/db/create-store.js';
import { stallGuard } from '../../src/db/stall-guard.js';
import { runPorch } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const PASSWORD = 'porch-test';
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

let directory: string;
let databaseUrl: string;
const databases: TestDatabase[] = [];

const porchWith = (url: string, ...args: string[]) =>
  runPorch({ PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent', PORCH_SECRET_KEY: SECRET_KEY }, ...args);
const porch = (...args: string[]) => porchWith(databaseUrl, ...args);

async function postgresDatabase(options?: { migrated: boolean }): Promise<TestDatabase> {
  const database = await createTestDatabase(options);
  databases.push(database);
  return database;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-db-commands-'));
  databaseUrl = `file:${join(directory, 'porch.db')}`;
  expect((await porch('db', 'init')).code).toBe(0);
  const created = await porch('account', 'create', '--email', 'ada@example.com', '--plan', 'expert', '--credits', '50', '--json');
  expect(created.code, created.stderr).toBe(0);
});

afterAll(async () => {
  for (const database of databases) await database.drop();
  await rm(directory, { recursive: true, force: true });
});

describe('a PostgreSQL DATABASE_URL that cannot be used', () => {
  it('stops every command with the reason and the setting to fix, exit 1, never the password', async () => {
    for (const args of [
      ['account', 'list'],
      ['db', 'migrate'],
    ]) {
      const result = await porchWith('postgres://porch:do-not-print-me@127.0.0.1:1/porch', ...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^porch: DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:1\/porch/);
      expect(result.stderr).not.toMatch(/unexpected error|do-not-print-me/);
    }
  });
});

describe('porch db migrate', () => {
  it('reports nothing pending on an up-to-date SQLite database and exits 0', async () => {
    const result = await porch('db', 'migrate', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ engine: 'sqlite', location: join(directory, 'porch.db'), applied: [] });
    expect((await porch('db', 'migrate')).stdout).toMatch(/is up to date: no migration pending/);
  });

  it('reports nothing pending on a fresh PostgreSQL database and names its host and database, not its password', async () => {
    const database = await postgresDatabase();
    const result = await porchWith(database.url, 'db', 'migrate');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^The postgres database 127\.0\.0\.1:\d+\/porch_test_\w+ is up to date: no migration pending\.\n$/);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('init names the migrations it applies to an empty PostgreSQL database (regression: "exists and is up to date")', async () => {
    const database = await postgresDatabase({ migrated: false });
    const result = await porchWith(database.url, 'db', 'init');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^The database at 127\.0\.0\.1:\d+\/porch_test_\w+ existed; applied \d+ migrations: 0000_init, /);
    expect((await porchWith(database.url, 'db', 'init')).stdout).toMatch(/exists and is up to date\.\n$/);
  });

  it('names every migration it applies to a database that has none yet', async () => {
    const empty = join(directory, 'empty.db');
    await writeFile(empty, '');
    const result = await porchWith(`file:${empty}`, 'db', 'migrate', '--json');
    expect(result.code, result.stderr).toBe(0);
    const journal = JSON.parse(await readFile(new URL('../../src/db/sqlite/migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };
    expect(JSON.parse(result.stdout)).toMatchObject({ applied: journal.entries.map((entry) => entry.tag) });
    expect(journal.entries.length).toBeGreaterThanOrEqual(4);
  });

  it('refuses a database a newer Porch migrated, exits non-zero and changes nothing', async () => {
    const newer = join(directory, 'newer.db');
    expect((await porchWith(`file:${newer}`, 'db', 'init')).code).toBe(0);
    const sqlite = new Database(newer);
    sqlite.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run('from-the-future', Date.UTC(2099, 0, 1));
    sqlite.close();
    const result = await porchWith(`file:${newer}`, 'db', 'migrate');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/porch: DATABASE_URL: the database .*newer\.db was migrated by a newer version of Porch \(2099-01-01T00:00:00\.000Z\)/);
  });

  it('is the only command besides serve and db init that migrates: the others refuse a database with pending migrations and change nothing', async () => {
    const behind = join(directory, 'behind.db');
    await writeFile(behind, '');
    const behindUrl = `file:${behind}`;
    const postgres = await postgresDatabase({ migrated: false });
    for (const url of [behindUrl, postgres.url]) {
      for (const args of [
        ['account', 'list'],
        ['credits', 'show', '--account', 'acc_unknown'],
        ['export', '--account', 'acc_unknown'],
        ['db', 'copy', '--to', join(directory, 'from-behind.db')],
      ]) {
        const result = await porchWith(url, ...args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
        expect(result.stderr).toMatch(
          /^porch: DATABASE_URL: the database \S+ lacks \d+ migrations of this version of Porch \(0000_\w+, .*\)\. Apply them with porch db migrate/,
        );
      }
    }
    const sqlite = new Database(behind, { readonly: true });
    expect(sqlite.prepare('select count(*) as tables from sqlite_master').get(), 'nothing was created').toEqual({ tables: 0 });
    sqlite.close();
    await expect(createStore(postgres.url, { pendingMigrations: 'refuse' }), 'nothing was migrated').rejects.toThrow(/lacks \d+ migrations/);
    expect((await porchWith(behindUrl, 'db', 'migrate')).code).toBe(0);
    const listed = await porchWith(behindUrl, 'account', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('names the file when it is not a SQLite database or cannot be opened (regression: "unexpected error: file is not a database")', async () => {
    const text = join(directory, 'notes.txt');
    await writeFile(text, 'Not a database: a text file the operator pointed DATABASE_URL at by mistake.\n'.repeat(20));
    for (const args of [
      ['account', 'list'],
      ['db', 'migrate'],
    ]) {
      const result = await porchWith(`file:${text}`, ...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toBe(`porch: DATABASE_URL: cannot open the SQLite database ${text}: file is not a database.\n`);
    }
    const backup = await porchWith(`file:${text}`, 'backup', '--to', join(directory, 'notes-backup.db'));
    expect(backup.stderr).toBe(`porch: cannot back up the SQLite database ${text} to ${join(directory, 'notes-backup.db')}: file is not a database.\n`);
    expect(existsSync(join(directory, 'notes-backup.db')), 'no partial backup is left').toBe(false);
    const folder = await porchWith(`file:${directory}`, 'account', 'list');
    expect(folder.stderr).toBe(`porch: DATABASE_URL: cannot open the SQLite database ${directory}: unable to open database file.\n`);
  });

  it('refuses to create a database where none is', async () => {
    const result = await porchWith(`file:${join(directory, 'missing.db')}`, 'db', 'migrate');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No Porch database at .*missing\.db/);
  });
});

describe('porch db copy', () => {
  it('copies into PostgreSQL and prints the row counts and ledger checksums it verified, without the password', async () => {
    const database = await postgresDatabase();
    const result = await porch('db', 'copy', '--to', database.url);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Copied sqlite .*porch\.db into postgres 127\.0\.0\.1:\d+\/porch_test_\w+ in one transaction/);
    expect(result.stdout).toMatch(/^accounts +1 +1$/m);
    expect(result.stdout).toMatch(/^credit_ledger +1 +1$/m);
    const [, source, target] = /source ([0-9a-f]{64})\n\s+target ([0-9a-f]{64})/.exec(result.stdout) ?? [];
    expect(source).toBeDefined();
    expect(target).toBe(source);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('refuses a target that is a folder or names no engine, saying so about --to (regressions: "disk I/O error", "unexpected error" naming DATABASE_URL)', async () => {
    const folder = await porch('db', 'copy', '--to', directory);
    // Named as a folder, not as SQLite's "disk I/O error" (regression).
    expect(folder.stderr).toBe(
      `porch: The copy target (--to): ${directory} is a folder; name the database file to copy into, such as ${join(directory, 'porch.db')}.\n`,
    );
    const result = await porch('db', 'copy', '--to', 'mysql://user:secret-9@host/db');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^porch: --to starts with mysql:, which names no database Porch supports/);
    expect(result.stderr).not.toContain('secret-9');
  });

  it('refuses a non-empty target with exit code 1, naming what it holds', async () => {
    const target = join(directory, 'copy-target.db');
    const copied = await porch('db', 'copy', '--to', target, '--json');
    expect(copied.code, copied.stderr).toBe(0);
    // snake_case like every other command's JSON (regression: ledgerSha256).
    expect(Object.keys(JSON.parse(copied.stdout))).toEqual(['source', 'target', 'tables', 'ledger_sha256']);
    const again = await porch('db', 'copy', '--to', target, '--json');
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /porch: The target .*copy-target\.db is not empty \(organisations: 1, accounts: 1, .*\); porch db copy fills only an empty database/,
    );
  });

  it('names the target by host and database when its credentials are refused, never by its password', async () => {
    const database = await postgresDatabase();
    const url = new URL(database.url);
    url.password = 'not-the-password-4711';
    const result = await porch('db', 'copy', '--to', url.toString());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/The copy target \(--to\): PostgreSQL at 127\.0\.0\.1:\d+\/porch_test_\w+ refused the user name or password/);
    // The fix is in --to (regression: "Fix the credentials in DATABASE_URL").
    expect(result.stderr).toContain('Fix the credentials in --to.');
    expect(result.stderr).not.toContain('DATABASE_URL');
    expect(result.stdout + result.stderr).not.toContain('not-the-password-4711');
  });
});

describe('a database folder that cannot be made', () => {
  it('is refused at once under /proc, where Node’s recursive mkdir never returns (regression: db init spun)', async () => {
    const started = Date.now();
    const result = await porchWith('/proc/porch-nope/x.db', 'db', 'init');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\/proc\/porch-nope/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('porch backup', () => {
  it('writes an openable owner-only backup beside the database, named by the time', async () => {
    const result = await porch('backup', '--json');
    expect(result.code, result.stderr).toBe(0);
    const backup = JSON.parse(result.stdout) as { destination: string; bytes: number };
    expect(backup.destination).toMatch(new RegExp(`^${directory}/porch-backup-\\d{8}T\\d{6}Z\\.db$`));
    expect(statSync(backup.destination).mode & 0o777).toBe(0o600);
    const store = await createStore(`file:${backup.destination}`);
    try {
      expect((await store.accounts.list()).map((account) => account.email)).toEqual(['ada@example.com']);
    } finally {
      await store.close();
    }
  });

  it('writes to --to and never overwrites a file', async () => {
    const target = join(directory, 'named-backup.db');
    expect((await porch('backup', '--to', target)).code).toBe(0);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const again = await porch('backup', '--to', target);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/named-backup\.db already exists; a backup never overwrites a file/);
    // A folder or nothing is named by mistake: said so (regression: "already exists" for both).
    const folder = await porch('backup', '--to', directory);
    expect(folder.stderr).toMatch(/is a folder; name the backup file to write, such as .*porch-backup-\d{8}T\d{6}Z(-\d+)?\.db/);
    expect((await porch('backup', '--to', '')).stderr).toContain('--to needs the name of the backup file to write.');
    expect((await readdir(directory)).filter((name) => name.startsWith('named-backup'))).toEqual(['named-backup.db']);
  });

  it('names a second default backup within the same second -2, and refuses a missing folder plainly', async () => {
    const first = await porch('backup', '--json');
    const second = await porch('backup', '--json');
    expect(second.code, second.stderr).toBe(0);
    const names = [first, second].map((result) => (JSON.parse(result.stdout) as { destination: string }).destination);
    expect(names[1]).not.toBe(names[0]);
    const missing = await porch('backup', '--to', join(directory, 'no-such-folder', 'b.db'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`porch: cannot write the backup ${join(directory, 'no-such-folder', 'b.db')}: it, or its folder, does not exist.\n`);
  });

  it('stops when asked (Ctrl-C) between two steps and leaves no file behind (regression: a .partial file of megabytes stayed)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'porch-backup-stop-'));
    try {
      const source = join(folder, 'big.db');
      const sqlite = new Database(source);
      sqlite.exec(
        `create table filler (text text); with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) insert into filler select hex(randomblob(1000)) from n;`,
      );
      sqlite.close();
      const stop = new AbortController();
      const backup = backupDatabase(`file:${source}`, join(folder, 'copy.db'), new Date(), stop.signal);
      stop.abort(new Error('stopped by SIGINT'));
      await expect(backup).rejects.toThrow('stopped by SIGINT');
      expect(await readdir(folder)).toEqual(['big.db']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('gives up a copy that makes no progress for the stall time, and keeps one that does (regression: it spun for good)', () => {
    let clock = 0;
    const guard = stallGuard(1_000, () => clock);
    // Pages keep going: any pace is fine, a restart (the source changed) included.
    for (const remaining of [900, 800, 950, 700]) {
      clock += 900;
      guard({ totalPages: 1_000, remainingPages: remaining });
    }
    // Then nothing moves: SQLite answering "busy" for a database this user cannot read.
    clock += 500;
    guard({ totalPages: 1_000, remainingPages: 700 });
    clock += 501;
    expect(() => guard({ totalPages: 1_000, remainingPages: 700 })).toThrow(/no page could be copied for 1 s/);
  });

  it('makes the steps bigger at each restart until one copies the whole database (regression: restarted for ever under writes)', () => {
    const guard = stallGuard(1_000, () => 0);
    const total = 100_000;
    expect(guard({ totalPages: total, remainingPages: total - 100 })).toBe(100);
    expect(guard({ totalPages: total, remainingPages: total - 200 }), 'no restart: the same pace').toBe(100);
    const steps: number[] = [];
    // A write between every two steps: each step starts the copy again and leaves what the one
    // before left (the writes update rows in place, so the database does not grow).
    for (let restart = 0; restart < 8; restart++) steps.push(guard({ totalPages: total, remainingPages: total - 200 }));
    expect(steps).toEqual([400, 1_600, 6_400, 25_600, total, total, total, total]);
  });

  it('backs up a large database that is written to between every two steps (regression: never finished)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'porch-backup-busy-'));
    try {
      const source = join(folder, 'big.db');
      const sqlite = new Database(source);
      sqlite.pragma('journal_mode = WAL');
      sqlite.exec('create table filler (id integer primary key, body text)');
      const insert = sqlite.prepare('insert into filler (body) values (?)');
      sqlite.transaction(() => {
        for (let row = 0; row < 4_000; row++) insert.run('x'.repeat(2_000));
      })();
      // Another connection writes at every turn of the event loop, as a busy server does.
      const writer = setInterval(() => insert.run('y'), 0);
      try {
        const backup = await backupDatabase(`file:${source}`, join(folder, 'copy.db'), new Date());
        const copy = new Database(backup.destination, { readonly: true });
        expect((copy.prepare('select count(*) as rows from filler').get() as { rows: number }).rows).toBeGreaterThanOrEqual(4_000);
        copy.close();
      } finally {
        clearInterval(writer);
        sqlite.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses on PostgreSQL with the pg_dump command line, without the password', async () => {
    const database = await postgresDatabase();
    const result = await porchWith(database.url, 'backup');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_dump --format=custom --host=127\.0\.0\.1 --port=\d+ --dbname=porch_test_\w+ --file=porch-backup-\d{8}T\d{6}Z\.dump/);
    expect(result.stderr).toMatch(/pg_restore/);
    expect(result.stderr).not.toContain(PASSWORD);
  });
});
