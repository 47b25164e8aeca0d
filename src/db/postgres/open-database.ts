import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import {
  migrationsAfter,
  readMigrationJournal,
  refuseForeignDatabase,
  refuseNewerDatabase,
  refusePendingMigrations,
  schemaStatusOf,
  type PendingMigrations,
} from '../migration-journal.js';
import { describeStartupError } from './connection-errors.js';
import * as schema from './schema.js';
import { DatabaseRefusal } from '../store.js';
import { postgresLocation } from './location.js';

export { isPostgresUrl, pgDumpCommand, postgresLocation } from './location.js';

/** drizzle over a node-postgres pool; `$client` is the pool. */
export type PostgresDatabase = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export interface OpenedPostgres {
  db: PostgresDatabase;
  pool: pg.Pool;
  /** `host:port/database`, safe to log. */
  location: string;
  /** The migrations this open applied, oldest first (empty when the database was up to date). */
  appliedMigrations: string[];
}

export interface PostgresOptions {
  /** Connections this process keeps at most (node-postgres `max`). */
  poolSize?: number;
  /** Called for errors of idle connections (a server restart drops them); the pool replaces them. */
  onIdleError?: (err: Error) => void;
  /** Whether opening applies the migrations the database lacks (the default) or refuses it. */
  pendingMigrations?: PendingMigrations;
}

/**
 * Ten connections per process: a request holds one for a few milliseconds (a transaction of a
 * handful of statements), so ten serve thousands of requests a second, and four processes stay
 * well inside PostgreSQL's default max_connections of 100. Raise it with DATABASE_POOL_SIZE.
 */
export const DEFAULT_POOL_SIZE = 10;

/** A request waits this long for a free connection before it is answered 503. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Idle connections are closed after this, so a quiet process holds few. */
const IDLE_TIMEOUT_MS = 30_000;
/** How long the driver waits for the answer to one statement before failing it (see openPostgres). */
const QUERY_TIMEOUT_MS = 30_000;

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../src/db/postgres/migrations', import.meta.url));

/**
 * Any fixed 64-bit number names the lock; this one spells "porch" in ASCII. Processes starting
 * together take it in turn, so one applies the migrations and the others find them applied.
 */
const MIGRATION_LOCK_ID = 0x706f726368;

/** The database's migrations against the ones this code knows (readiness). */
export async function schemaStatus(db: NodePgDatabase<typeof schema>): Promise<'current' | 'behind' | 'ahead'> {
  return schemaStatusOf(readMigrationJournal(MIGRATIONS_FOLDER), await newestAppliedMigration(db));
}

/** The newest migration applied to the database; 0 for a database Porch never migrated. */
async function newestAppliedMigration(db: NodePgDatabase<typeof schema>): Promise<number> {
  // A database Porch never migrated has no migrations table yet (the query would not even parse).
  const present = await db.execute<{ present: boolean }>(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!present.rows[0]?.present) return 0;
  const applied = await db.execute<{ newest: string | null }>(sql`select max(created_at)::text as newest from drizzle.__drizzle_migrations`);
  return Number(applied.rows[0]?.newest ?? 0);
}

/**
 * The tables of the schema Porch's tables go in (the first of the search path, `public` by
 * default), sorted: tables only, not views, and not those an extension owns (pg_stat_statements'
 * views, PostGIS's spatial_ref_sys), which a managed server puts in a new database's `public`.
 */
async function tablesOfSchema(db: NodePgDatabase<typeof schema>): Promise<string[]> {
  const found = await db.execute<{ name: string }>(sql`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
    order by c.relname`);
  return found.rows.map((row) => row.name);
}

/**
 * The newest migration applied, having refused a database that holds tables and no Porch
 * history. The history is read again once tables are found: another process may have migrated
 * between the two reads, and its tables and history commit together, so the second read sees
 * them (regression: a process starting beside the one that migrated refused the database).
 */
async function newestAppliedToPorch(db: NodePgDatabase<typeof schema>, location: string): Promise<number> {
  const before = await newestAppliedMigration(db);
  if (before !== 0) return before;
  const tables = await tablesOfSchema(db);
  if (tables.length === 0) return 0;
  const again = await newestAppliedMigration(db);
  if (again === 0) refuseForeignDatabase(location, tables);
  return again;
}

/**
 * Refuses a database that a newer Porch migrated (the code would read tables it does not know),
 * applies what is pending under a lock, and names what it applied. Processes starting together
 * take the lock in turn: one migrates, the others find the work done. A database already up to
 * date costs two reads.
 */
async function applyMigrations(databaseUrl: string, location: string, policy: PendingMigrations): Promise<string[]> {
  const known = readMigrationJournal(MIGRATIONS_FOLDER);
  // A connection of its own, without the pool's query timeout: waiting for another process's
  // migration (the lock) or building an index on a large table may rightly take longer.
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'porch' });
  // A connection lost between two statements fails the next one; unheard, its event would end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const db = drizzle({ client, schema });
    const before = await newestAppliedToPorch(db, location);
    refuseNewerDatabase(location, before, known);
    const pending = migrationsAfter(known, before);
    refusePendingMigrations(location, pending, policy);
    if (pending.length === 0) return [];
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      // Another process may have migrated while this one waited for the lock.
      const underLock = await newestAppliedMigration(db);
      refuseNewerDatabase(location, underLock, known);
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return migrationsAfter(known, underLock);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await client.end();
  }
}

/**
 * Connects, checks that the server answers as the configured user, and applies pending
 * migrations under a lock (or refuses them, as `options.pendingMigrations` says). Every failure is a message naming DATABASE_URL; nothing is written
 * unless the migrations run.
 */
export async function openPostgres(databaseUrl: string, options: PostgresOptions = {}): Promise<OpenedPostgres> {
  const location = postgresLocation(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    // A safety net, not a limit on work: a statement answers in milliseconds, and a page of a
    // list in well under a second. A statement sent as its connection was being terminated can
    // otherwise wait for an answer that never comes, holding its request (and its shutdown) for
    // good; after this long it fails as an unreachable database does (503).
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: 'porch',
  });
  // Without a listener, an idle connection dropped by a server restart would crash the process.
  pool.on('error', (err) => options.onIdleError?.(err));
  // So would one checked out (inside a transaction, between two statements): the pool listens to
  // its clients only while they are idle (regression: a PostgreSQL restart killed the process
  // serving transactions, "Unhandled 'error' event ... terminating connection due to
  // administrator command"). The statement under way fails on its own, and the pool discards
  // the broken client when it comes back.
  pool.on('connect', (client) => {
    client.on('error', (err) => options.onIdleError?.(err));
  });
  let appliedMigrations: string[];
  try {
    appliedMigrations = await applyMigrations(databaseUrl, location, options.pendingMigrations ?? 'apply');
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof DatabaseRefusal) throw err;
    throw new DatabaseRefusal(describeStartupError(err, location), { cause: err });
  }
  return { db: drizzle({ client: pool, schema }), pool, location, appliedMigrations };
}
