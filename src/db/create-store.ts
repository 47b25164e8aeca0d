/**
 * The one place that knows which storage engines exist: `DATABASE_URL` picks one. A `file:` URL,
 * a plain path or `:memory:` is SQLite; `postgres://` or `postgresql://` is PostgreSQL.
 * Everything outside src/db sees only the `Store` ports and these functions. The PostgreSQL
 * engine (node-postgres, its schema) loads only when the URL names it: a SQLite process, the
 * default, starts without it.
 */
import { existsSync } from 'node:fs';
import { pgDumpCommand, postgresLocation } from './postgres/location.js';
import { backupSqlite, backupStamp, type SqliteBackup } from './sqlite/backup.js';
import { createSqliteStore, databaseDirectory } from './sqlite/index.js';
import { databaseLocation, isInMemory, openDatabase } from './sqlite/open-database.js';
import { existingSqliteRows, openSqliteCopySource, openSqliteCopyTarget } from './sqlite/table-copy.js';
import type { PendingMigrations } from './migration-journal.js';
import { DatabaseRefusal, type Store } from './store.js';
import type { CopySource, CopyTarget, ExistingRows } from './table-copy.js';

export type { PendingMigrations } from './migration-journal.js';
export type { SqliteBackup } from './sqlite/backup.js';

export type StorageEngine = 'sqlite' | 'postgres';

/**
 * `name:` at the start (`postgres://...`, `mysql://...`, `foo:bar`); a plain path and `:memory:`
 * have none. A one-letter scheme is a Windows drive (`C:\data\porch.db`), so it is a path.
 */
const URL_SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The engine `DATABASE_URL` (or the setting named `setting`) names. Errors quote only the scheme,
 * never the URL, which may hold a password.
 */
export function engineOf(databaseUrl: string, setting = 'DATABASE_URL'): StorageEngine {
  const scheme = URL_SCHEME.exec(databaseUrl)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'file') return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') {
    // Malformed URLs are refused here, at configuration time, with a message naming the setting.
    postgresLocation(databaseUrl, setting);
    return 'postgres';
  }
  // Used as a path, `foo:bar` would quietly become an empty SQLite file of that name.
  throw new Error(
    `${setting} starts with ${scheme}:, which names no database Porch supports: use a file: URL, a path or :memory: (SQLite), or postgres://user:password@host/database (PostgreSQL).`,
  );
}

export interface StoreOptions {
  /** PostgreSQL connections per process; ignored by SQLite, which has one connection. */
  poolSize?: number;
  /** Errors of idle PostgreSQL connections, which the pool replaces; for the log. */
  onIdleError?: (err: Error) => void;
  /** Whether opening applies the migrations the database lacks (the default) or refuses it. */
  pendingMigrations?: PendingMigrations;
}

/**
 * Opens the database `DATABASE_URL` names, creating it (SQLite) and applying migrations as needed,
 * or refusing one that lacks migrations when `options.pendingMigrations` is `refuse`.
 */
export async function createStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return createSqliteStore(databaseUrl, options.pendingMigrations);
    case 'postgres':
      return (await import('./postgres/index.js')).createPostgresStore(databaseUrl, options);
  }
}

/**
 * Where generated state (the BYOK secret key file) goes when PORCH_DATA_DIR is not set: beside
 * an SQLite file. Null when the database has no folder (in memory, or a PostgreSQL server).
 * Throws, as `createStore` does, when `DATABASE_URL` names no engine, so config refuses it at
 * start-up.
 */
export function defaultDataDirectory(databaseUrl: string): string | null {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return databaseDirectory(databaseUrl);
    case 'postgres':
      return null;
  }
}

/** Where `DATABASE_URL` points, and whether a database is already there. */
export interface DatabaseTarget {
  /** The absolute file path, `:memory:`, or `host:port/database`. */
  location: string;
  /**
   * False when opening it would create a new, empty database. An in-memory one is always new, as
   * asked; a PostgreSQL database is created by its operator, never by Porch, so it counts as there.
   */
  exists: boolean;
}

/**
 * Says where `DATABASE_URL` points without opening (and so creating) anything, so a command run
 * in the wrong folder can refuse instead of starting an empty database there.
 */
export function locateDatabase(databaseUrl: string): DatabaseTarget {
  switch (engineOf(databaseUrl)) {
    case 'sqlite': {
      const location = databaseLocation(databaseUrl);
      return { location, exists: isInMemory(location) || existsSync(location) };
    }
    case 'postgres':
      return { location: postgresLocation(databaseUrl), exists: true };
  }
}

/**
 * `databaseUrl` with a relative SQLite path made absolute against `cwd`, for a URL given on the
 * command line (`porch db copy --to ./other.db`) rather than read from the environment.
 */
export function absoluteDatabaseUrl(databaseUrl: string, cwd: string, setting = 'DATABASE_URL'): string {
  if (engineOf(databaseUrl, setting) !== 'sqlite') return databaseUrl;
  // The absolute path as a plain path, which is read as written: as a file: URL, a % or ? in it would be decoded.
  return databaseLocation(databaseUrl, cwd, setting);
}

/** What `porch db migrate` did. */
export interface MigrationReport {
  engine: StorageEngine;
  location: string;
  /** The migrations applied, oldest first; empty when the database was up to date. */
  applied: string[];
}

/**
 * Applies the pending migrations of the database `DATABASE_URL` names and says which; opening
 * a store does the same silently. A database a newer Porch migrated is refused.
 */
export async function migrateDatabase(databaseUrl: string): Promise<MigrationReport> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite': {
      const { sqlite, location, appliedMigrations } = openDatabase(databaseUrl);
      sqlite.close();
      return { engine: 'sqlite', location, applied: appliedMigrations };
    }
    case 'postgres': {
      const { openPostgres } = await import('./postgres/open-database.js');
      const { pool, location, appliedMigrations } = await openPostgres(databaseUrl, { poolSize: 1 });
      await pool.end();
      return { engine: 'postgres', location, applied: appliedMigrations };
    }
  }
}

/** Counts what the Porch tables of `databaseUrl` already hold, creating and migrating nothing. */
export async function existingRows(databaseUrl: string): Promise<ExistingRows> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return existingSqliteRows(databaseUrl);
    case 'postgres':
      return (await import('./postgres/table-copy.js')).existingPostgresRows(databaseUrl);
  }
}

/**
 * Opens `databaseUrl` to be copied from, at one snapshot. It is only read: one that lacks
 * migrations is refused (`porch db migrate` brings it up to date first).
 */
export async function openCopySource(databaseUrl: string): Promise<CopySource> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return openSqliteCopySource(databaseUrl);
    case 'postgres':
      return (await import('./postgres/table-copy.js')).openPostgresCopySource(databaseUrl);
  }
}

/** Opens `databaseUrl` (creating a SQLite file, migrating) to be copied into, in one transaction. */
export async function openCopyTarget(databaseUrl: string): Promise<CopyTarget> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return openSqliteCopyTarget(databaseUrl);
    case 'postgres':
      return (await import('./postgres/table-copy.js')).openPostgresCopyTarget(databaseUrl);
  }
}

/**
 * `porch backup`: an online backup of a SQLite database to `destination` (or a timestamped file
 * beside it). PostgreSQL is backed up with its own `pg_dump`, which Porch does not ship, so the
 * refusal gives the command line.
 */
export async function backupDatabase(databaseUrl: string, destination: string | undefined, now: Date, signal?: AbortSignal): Promise<SqliteBackup> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return backupSqlite(databaseUrl, destination, now, signal);
    case 'postgres': {
      const file = destination ?? `porch-backup-${backupStamp(now)}.dump`;
      throw new DatabaseRefusal(
        `porch backup copies SQLite files; the database ${postgresLocation(databaseUrl)} is PostgreSQL. Back it up with PostgreSQL's pg_dump (not shipped with Porch), giving the user and password through PGUSER and PGPASSWORD or ~/.pgpass:\n  ${pgDumpCommand(databaseUrl, file)}\nRestore: stop Porch, pg_restore --clean --if-exists --no-owner --dbname=<database> ${file}, start Porch.`,
      );
    }
  }
}
