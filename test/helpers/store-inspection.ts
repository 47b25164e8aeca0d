/**
 * Engine-level inspection of a store, for tests whose guarantee no port can show: that a refused
 * request wrote nothing anywhere. The only test file that knows the engines' insides; a new
 * engine adds its branch here.
 */
import { createHash } from 'node:crypto';
import { isSqliteStore } from '../../src/db/sqlite/index.js';
import type { Store } from '../../src/db/store.js';

/**
 * Tables whose change on a rejected request is expected: the rate limiter counts refusals too,
 * and process bookkeeping (a lease renewed, an execution slot taken and given back) is not data.
 */
const VOLATILE_TABLES = new Set(['rate_limit_counters', '__drizzle_migrations', 'instances', 'execution_slots']);

/**
 * A digest of every row of every table but the rate-limit counters. The test databases hold a
 * few dozen rows, so hashing them all is cheap and catches any change, not only new rows.
 */
export function databaseFingerprint(store: Store): string {
  if (!isSqliteStore(store)) throw new Error(`databaseFingerprint cannot read the ${store.describe().engine} engine yet.`);
  const { sqlite } = store.database;
  const tables = sqlite.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`).all() as Array<{
    name: string;
  }>;
  const hash = createHash('sha256');
  for (const { name } of tables) {
    if (VOLATILE_TABLES.has(name)) continue;
    const rows = sqlite.prepare(`select * from "${name}" order by rowid`).raw().all();
    hash
      .update(name)
      .update(
        JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : Buffer.isBuffer(value) ? value.toString('hex') : value)),
      );
  }
  return hash.digest('hex');
}

/** Every row of every table as text: what a secret must never be found in, in plaintext. */
export function everyStoredRow(store: Store): string {
  if (!isSqliteStore(store)) throw new Error(`everyStoredRow cannot read the ${store.describe().engine} engine yet.`);
  const { sqlite } = store.database;
  const tables = sqlite.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{ name: string }>;
  return tables
    .map(({ name }) =>
      JSON.stringify(sqlite.prepare(`select * from "${name}"`).raw().all(), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)),
    )
    .join('\n');
}

/** Makes the database look migrated by a newer Porch than this one (a row dated after every known migration). */
export function recordNewerMigration(store: Store): void {
  if (!isSqliteStore(store)) throw new Error(`recordNewerMigration cannot write the ${store.describe().engine} engine yet.`);
  store.database.sqlite.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run('from-a-newer-porch', Date.UTC(2100, 0, 1));
}

/**
 * Caps the SQLite file at the pages it holds now, as a full disk does: the next write that needs
 * a page more fails with SQLITE_FULL. Answers the undo.
 */
export function fillSqliteDisk(store: Store): () => void {
  if (!isSqliteStore(store)) throw new Error(`fillSqliteDisk cannot fill the ${store.describe().engine} engine.`);
  const { sqlite } = store.database;
  const before = sqlite.pragma('max_page_count', { simple: true }) as number;
  sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
  return () => void sqlite.pragma(`max_page_count = ${before}`);
}

/** The SQLite file of a store, for a second connection to lock it as another process would. */
export function sqliteFileOf(store: Store): string {
  if (!isSqliteStore(store)) throw new Error(`sqliteFileOf has no file for the ${store.describe().engine} engine.`);
  return store.database.location;
}
