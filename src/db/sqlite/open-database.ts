import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import {
  migrationsAfter,
  readMigrationJournal,
  refuseForeignDatabase,
  refuseNewerDatabase,
  refusePendingMigrations,
  schemaStatusOf,
  type PendingMigrations,
} from '../migration-journal.js';
import * as schema from './schema.js';
import { LOCK_WAIT_MS } from './lock-waits.js';
import { DatabaseRefusal } from '../store.js';

/** drizzle over better-sqlite3; `$client` is the connection, for transactions built once. */
export type PorchDatabase = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenedDatabase {
  db: PorchDatabase;
  sqlite: Database.Database;
  /** The file path, or ':memory:'. */
  location: string;
  /** The migrations this open applied, oldest first (empty when the database was up to date). */
  appliedMigrations: string[];
}

/** Migrations are committed SQL; the folder sits beside the sources and ships with the package. */
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../src/db/sqlite/migrations', import.meta.url));

const IN_MEMORY = ':memory:';

/**
 * The database holds key hashes, BYOK ciphertexts and every account's data: only the user Porch
 * runs as may read it. A folder Porch creates is 0700; the database file is 0600, and SQLite
 * gives its -wal and -shm files the database file's mode.
 */
const DATA_FOLDER_MODE = 0o700;
const DATABASE_FILE_MODE = 0o600;
const SQLITE_COMPANION_SUFFIXES = ['', '-wal', '-shm'];

/**
 * Turns `DATABASE_URL` (`file:./data/porch.db`, a plain path, or `:memory:`) into a location;
 * a relative path is resolved against `cwd`. `setting` names where the URL was given, for errors.
 *
 * A plain path is taken as written. A `file:` URL is read as a URL (regression: stripping `file:`
 * created `/localhost/...` for `file://localhost/...`, a file named `my%20db.db`, and one named
 * `porch.db?mode=ro`): `file:relative/path`, `file:/absolute/path`, or `file://host/absolute/path`
 * with no host or `localhost`; the path is percent-decoded; query parameters and fragments,
 * which SQLite URLs use for open modes Porch does not offer, are refused.
 */
export function databaseLocation(databaseUrl: string, cwd = process.cwd(), setting = 'DATABASE_URL'): string {
  if (databaseUrl === IN_MEMORY || databaseUrl === `file:${IN_MEMORY}`) return IN_MEMORY;
  const path = /^file:/i.test(databaseUrl) ? fileUrlPath(databaseUrl, setting) : databaseUrl;
  if (path.length === 0) throw new Error(`${setting} names no file.`);
  return resolve(cwd, path);
}

/** The path of a `file:` URL, decoded (see `databaseLocation`). Errors never quote the URL beyond its host. */
function fileUrlPath(fileUrl: string, setting: string): string {
  const rest = fileUrl.slice('file:'.length);
  const end = rest.search(/[?#]/);
  if (end !== -1) {
    throw new Error(
      `${setting}: a file: URL takes no query parameters or fragment (${rest[end] === '?' ? rest.slice(end).split('=')[0] : '#'}...); Porch sets SQLite's open mode itself. Write the path alone, percent-encoding a ? or # in a file name (%3F, %23).`,
    );
  }
  let encodedPath = rest;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const host = rest.slice(2, slash === -1 ? undefined : slash);
    if (host !== '' && host.toLowerCase() !== 'localhost') {
      throw new Error(`${setting}: a file: URL names a file on this host: file:///absolute/path or file://localhost/absolute/path, not the host ${host}.`);
    }
    encodedPath = slash === -1 ? '' : rest.slice(slash);
  }
  try {
    return decodeURIComponent(encodedPath);
  } catch {
    throw new Error(`${setting}: the path of the file: URL is not valid percent-encoding (write % itself as %25).`);
  }
}

export function isInMemory(location: string): boolean {
  return location === IN_MEMORY;
}

/** The folder of the database file, where generated state is kept beside it; null in memory. */
export function databaseDirectory(databaseUrl: string): string | null {
  const location = databaseLocation(databaseUrl);
  return isInMemory(location) ? null : dirname(location);
}

/**
 * Creates `folder` and the folders above it that do not exist, owner-only, one at a time: Node's
 * recursive mkdirSync never returns under /proc, where every mkdir answers ENOENT (regression:
 * `porch db init` spun for twenty minutes). An existing folder keeps its mode.
 */
function createFolders(folder: string): void {
  const missing: string[] = [];
  for (let current = folder; !existsSync(current) && dirname(current) !== current; current = dirname(current)) missing.push(current);
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path, { mode: DATA_FOLDER_MODE });
    } catch (err) {
      // Another process starting on the same database made it first.
      if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
    }
  }
}

/**
 * Creates the database file (and its folder) owner-only before SQLite opens it, and takes group
 * and world access away from files an older version created, where this user may. An existing folder keeps its mode:
 * it may be shared (`/var/lib`), and only the files in it are Porch's.
 */
function restrictDatabaseFiles(location: string): void {
  createFolders(dirname(location));
  if (!existsSync(location)) closeSync(openSync(location, 'a', DATABASE_FILE_MODE));
  for (const suffix of SQLITE_COMPANION_SUFFIXES) {
    const path = `${location}${suffix}`;
    if (!existsSync(path)) continue;
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) === 0) continue;
    // Only group and world access are taken away: a read-only file stays read-only (regression:
    // it became 0600, writable). A file this user may not chmod (another owner's) is left as it
    // is, and SQLite's own permission check decides whether it opens (regression: EPERM).
    try {
      chmodSync(path, mode & ~0o077);
    } catch {
      // Not ours to change.
    }
  }
}

/** The database's migrations against the ones this code knows (readiness). */
export function schemaStatus(sqlite: Database.Database): 'current' | 'behind' | 'ahead' {
  return schemaStatusOf(readMigrationJournal(MIGRATIONS_FOLDER), newestAppliedMigration(sqlite));
}

/** The creation time of the newest migration applied to the database; 0 for a new one. */
function newestAppliedMigration(sqlite: Database.Database): number {
  const table = sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'`).get();
  if (table === undefined) return 0;
  const row = sqlite.prepare('select max(created_at) as newest from __drizzle_migrations').get() as { newest: number | null } | undefined;
  return Number(row?.newest ?? 0);
}

/**
 * Refuses a file that holds tables but no Porch migration history: another application's
 * database (`refuseForeignDatabase`). Checked before Porch changes anything in it (its journal mode).
 */
function refuseForeignSqlite(sqlite: Database.Database, location: string): void {
  // One read transaction: the history and the tables as of one moment, so a process migrating
  // beside this one is never seen half done (its tables, not yet its history).
  const foreignTables = sqlite.transaction(() => {
    if (newestAppliedMigration(sqlite) !== 0) return [];
    return sqlite
      .prepare(
        `select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name <> '__drizzle_migrations' order by name`,
      )
      .pluck()
      .all() as string[];
  });
  refuseForeignDatabase(location, foreignTables());
}

/**
 * Applies the pending migrations (or refuses them, as `policy` says) and names them. A database a
 * newer Porch migrated is refused (drizzle alone would open it silently and this code would
 * misread its tables).
 */
function applyMigrations(db: PorchDatabase, sqlite: Database.Database, location: string, policy: PendingMigrations): string[] {
  const known = readMigrationJournal(MIGRATIONS_FOLDER);
  const newestApplied = newestAppliedMigration(sqlite);
  refuseNewerDatabase(location, newestApplied, known);
  const pending = migrationsAfter(known, newestApplied);
  // An in-memory database is new at every open: there is nothing to protect, and `porch db migrate`
  // could not help (regression: every command on :memory: pointed to it).
  refusePendingMigrations(location, pending, isInMemory(location) ? 'apply' : policy);
  if (pending.length > 0) migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return pending;
}

/**
 * Opens the file (creating it and its folder when missing) with Porch's pragmas. What stops it (a
 * file that is not a SQLite database, a folder, no permission) is a refusal naming the file, not
 * SQLite's bare "file is not a database".
 */
function connect(location: string): Database.Database {
  let sqlite: Database.Database | undefined;
  try {
    if (!isInMemory(location)) restrictDatabaseFiles(location);
    sqlite = new Database(location);
    refuseForeignSqlite(sqlite, location);
    // WAL lets readers run beside the writer; NORMAL sync is durable across a process crash
    // (kill -9), which is the failure the server must survive without fsync on every request.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    // Two Porch processes may share one database file: while opening (and migrating), another's
    // write lock is waited out inside SQLite, as long as a store's calls wait it out on a timer.
    sqlite.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
    sqlite.pragma('foreign_keys = ON');
    return sqlite;
  } catch (err) {
    sqlite?.close();
    if (err instanceof DatabaseRefusal) throw err;
    throw new DatabaseRefusal(`DATABASE_URL: cannot open the SQLite database ${location}: ${(err as Error).message}.`, { cause: err });
  }
}

/**
 * Opens (creating if needed) the database, sets its pragmas and applies pending migrations, or
 * refuses a database that has some when `pendingMigrations` is `refuse`.
 */
export function openDatabase(databaseUrl: string, pendingMigrations: PendingMigrations = 'apply'): OpenedDatabase {
  const location = databaseLocation(databaseUrl);
  const sqlite = connect(location);
  const db = drizzle(sqlite, { schema });
  try {
    return { db, sqlite, location, appliedMigrations: applyMigrations(db, sqlite, location, pendingMigrations) };
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
