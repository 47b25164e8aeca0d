/**
 * Fresh PostgreSQL databases for tests, copied from the migrated template the global setup
 * (test/setup/postgres-server.ts) made on the run's one server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, inject } from 'vitest';
import { createStore } from '../../src/db/create-store.js';
import type { Store } from '../../src/db/store.js';

export interface TestDatabase {
  /** postgres://... of the new database. */
  url: string;
  /** Drops it, closing any connection still open to it. */
  drop(): Promise<void>;
}

async function admin<Result>(run: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new database, migrated unless `migrated` is false (then it is empty, as an operator's `createdb` leaves it). */
export async function createTestDatabase({ migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `porch_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name} template ${migrated ? inject('postgresTemplate') : 'template0'}`));
  const url = new URL(inject('postgresAdminUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/**
 * For a file whose every test wants a migrated database of its own with a store open on it: the
 * current test's, read inside the test (it exists from beforeEach to afterEach).
 */
export function postgresStorePerTest(): { readonly database: TestDatabase; readonly store: Store } {
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  beforeEach(async () => {
    database = await createTestDatabase();
    store = await createStore(database.url);
  });
  afterEach(async () => {
    await store?.close();
    await database?.drop();
  });
  const during = <Value>(value: Value | undefined): Value => {
    if (value === undefined) throw new Error('postgresStorePerTest: read only inside a test');
    return value;
  };
  return {
    get database() {
      return during(database);
    },
    get store() {
      return during(store);
    },
  };
}

/** Empties every Porch table of the database (the migrations stay applied), for the next test. */
export async function emptyTestDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(`select quote_ident(tablename) as name from pg_tables where schemaname = 'public'`);
    // DELETE, not TRUNCATE: a test leaves a handful of rows, and TRUNCATE's new files cost far more than deleting them.
    await client.query(`set session_replication_role = replica; ${tables.rows.map((table) => `delete from ${table.name};`).join(' ')}`);
  } finally {
    await client.end();
  }
}
