/**
 * Which database DATABASE_URL (or `db copy --to`) names, and which databases Porch refuses to
 * use: file: URLs read as URLs, another application's database, an in-memory one.
 */
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPorchIn } from '../helpers/cli.js';

let directory: string;

const base = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' };
const porchAt = (databaseUrl: string, ...args: string[]) => runPorchIn(directory, { ...base, DATABASE_URL: databaseUrl }, ...args);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-cli-location-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('a file: URL', () => {
  // Regression: stripping "file:" made file://localhost/x a path under /localhost, kept %20 and ?mode=ro in the file name.
  it('is read as a URL: localhost or no host, a percent-decoded path', async () => {
    const absolute = join(directory, 'absolute.db');
    const viaLocalhost = await porchAt(`file://localhost${absolute}`, 'db', 'init', '--json');
    expect(viaLocalhost.code, viaLocalhost.stderr).toBe(0);
    expect(JSON.parse(viaLocalhost.stdout)).toMatchObject({ location: absolute, created: true });
    expect((await porchAt(`file://${absolute}`, 'account', 'list')).code).toBe(0);

    await mkdir(join(directory, 'data'), { recursive: true });
    const spaced = await porchAt(`file:${join(directory, 'data')}/my%20db.db`, 'db', 'init', '--json');
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(JSON.parse(spaced.stdout)).toMatchObject({ location: join(directory, 'data', 'my db.db') });
    expect(readdirSync(join(directory, 'data'))).toContain('my db.db');
    expect(readdirSync(join(directory, 'data'))).not.toContain('my%20db.db');
  });

  it('with query parameters, another host or bad percent-encoding is refused naming the setting, creating nothing', async () => {
    for (const [url, message] of [
      [`file:${join(directory, 'data')}/porch.db?mode=ro`, /DATABASE_URL: a file: URL takes no query parameters/],
      ['file://db.internal/porch.db', /DATABASE_URL: a file: URL names a file on this host.*not the host db\.internal/],
      [`file:${join(directory, 'data')}/100%.db`, /DATABASE_URL: the path of the file: URL is not valid percent-encoding/],
    ] as const) {
      for (const args of [['db', 'init'], ['serve']]) {
        const result = await porchAt(url, ...args);
        expect(result.code, url).toBe(1);
        expect(result.stderr, url).toMatch(message);
        expect(result.stderr).not.toContain('unexpected error');
      }
    }
    expect(readdirSync(join(directory, 'data')).filter((name) => name.startsWith('porch') || name.startsWith('100'))).toEqual([]);
  });

  // Regression: "unexpected error: DATABASE_URL names no file." for an empty --to.
  it('given to db copy --to is checked as --to', async () => {
    const source = `file:${join(directory, 'absolute.db')}`;
    for (const [to, message] of [
      ['', /^porch: --to names no file\.$/m],
      ['file:', /^porch: --to names no file\.$/m],
      [`file:${join(directory, 'copy.db')}?mode=rwc`, /^porch: --to: a file: URL takes no query parameters/m],
    ] as const) {
      const copied = await porchAt(source, 'db', 'copy', '--to', to);
      expect(copied.code, to).toBe(1);
      expect(copied.stderr, to).toMatch(message);
    }
  });
});

describe('another application’s SQLite database', () => {
  // Regression: `account list` said it "lacks 17 migrations" and `serve` or `db migrate` added Porch's tables beside `users`.
  it('is refused by every command as not a Porch database, naming its tables, and left unchanged', async () => {
    const foreign = join(directory, 'foreign.db');
    const other = new Database(foreign);
    other.exec('create table users (id integer primary key); create table posts (id integer primary key); insert into users default values');
    other.close();
    for (const args of [['account', 'list'], ['db', 'migrate'], ['db', 'init'], ['serve']]) {
      const result = await porchAt(`file:${foreign}`, ...args);
      expect(result.code, `porch ${args.join(' ')}`).toBe(1);
      expect(result.stderr, `porch ${args.join(' ')}`).toContain(
        `${foreign} is not a Porch database: it holds tables (posts, users) and no Porch migration history`,
      );
      expect(result.stderr).not.toMatch(/migrate|unexpected error/);
    }
    const reopened = new Database(foreign, { readonly: true });
    const tables = reopened.prepare(`select name from sqlite_master where type = 'table' order by name`).pluck().all();
    reopened.close();
    expect(tables).toEqual(['posts', 'users']);
  });

  it('differs from an empty file, which is set up as a new database', async () => {
    const empty = join(directory, 'empty.db');
    await writeFile(empty, '');
    const initialised = await porchAt(`file:${empty}`, 'db', 'init');
    expect(initialised.code, initialised.stderr).toBe(0);
    expect((await porchAt(`file:${empty}`, 'account', 'list')).code).toBe(0);
  });
});

describe('an in-memory database', () => {
  // Regression: every command advised `porch db migrate`, and db init said the database "existed".
  it('is new at every command: created, never one that lacks migrations', async () => {
    const initialised = await porchAt(':memory:', 'db', 'init', '--json');
    expect(initialised.code, initialised.stderr).toBe(0);
    expect(JSON.parse(initialised.stdout)).toMatchObject({ location: ':memory:', created: true });
    const listed = await porchAt(':memory:', 'account', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});
