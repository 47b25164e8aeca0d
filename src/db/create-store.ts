/**
 * The one place that knows which storage engines exist: `DATABASE_URL` picks one. A `file:` URL,
 * a plain path or `:memory:` is SQLite; `postgres://` or `postgresql://` is PostgreSQL.
 * Everything outside src/db sees only the `Store` ports and these functions.
 */
import { existsSync } from 'node:fs';
import { createPostgresStore, postgresLocation } from './postgres/index.js';
import { createSqliteStore, databaseDirectory } from './sqlite/index.js';
import { databaseLocation, isInMemory } from './sqlite/open-database.js';
import type { Store } from './store.js';

export type StorageEngine = 'sqlite' | 'postgres';

/**
 * `name:` at the start (`postgres://...`, `mysql://...`, `foo:bar`); a plain path and `:memory:`
 * have none. A one-letter scheme is a Windows drive (`C:\data\porch.db`), so it is a path.
 */
const URL_SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The engine `DATABASE_URL` names. Errors quote only the scheme, never the URL, which may hold a
 * password.
 */
export function engineOf(databaseUrl: string): StorageEngine {
  const scheme = URL_SCHEME.exec(databaseUrl)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'file') return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') {
    // Malformed URLs are refused here, at configuration time, with a message naming the setting.
    postgresLocation(databaseUrl);
    return 'postgres';
  }
  // Used as a path, `foo:bar` would quietly become an empty SQLite file of that name.
  throw new Error(
    `DATABASE_URL starts with ${scheme}:, which names no database Porch supports: use a file: URL, a path or :memory: (SQLite), or postgres://user:password@host/database (PostgreSQL).`,
  );
}

export interface StoreOptions {
  /** PostgreSQL connections per process; ignored by SQLite, which has one connection. */
  poolSize?: number;
  /** Errors of idle PostgreSQL connections, which the pool replaces; for the log. */
  onIdleError?: (err: Error) => void;
}

/** Opens the database `DATABASE_URL` names, creating it (SQLite) and applying migrations as needed. */
export async function createStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  switch (engineOf(databaseUrl)) {
    case 'sqlite':
      return createSqliteStore(databaseUrl);
    case 'postgres':
      return createPostgresStore(databaseUrl, options);
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
