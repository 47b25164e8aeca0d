/**
 * The PostgreSQL side of `porch db copy` (src/db/table-copy.ts): reads in one REPEATABLE READ,
 * READ ONLY transaction, so the copy sees a single snapshot while servers keep writing, and
 * writes in one transaction on one connection, so a failed copy leaves nothing behind.
 */
import { getTableColumns, getTableName, is, sql, type SQL } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { getTableConfig, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import pg from 'pg';
import {
  COPIED_TABLES,
  fieldNamesOf,
  indexCopiedTables,
  keysetBatches,
  type CopiedTable,
  type CopySource,
  type CopyTarget,
  type ExistingRows,
  type TableReader,
  tableOf,
} from '../table-copy.js';
import type { PendingMigrations } from '../migration-journal.js';
import { describeStartupError } from './connection-errors.js';
import { openPostgres, postgresLocation } from './open-database.js';
import * as schema from './schema.js';

/** Every table of the schema by SQL name, checked against the copy's list (cheap: a score of tables). */
const SCHEMA_EXPORTS: readonly unknown[] = Object.values(schema);
const TABLES = indexCopiedTables(SCHEMA_EXPORTS.filter((value): value is PgTable => is(value, PgTable)).map((table) => [getTableName(table), table] as const));
const TABLE = (name: CopiedTable): PgTable => tableOf(TABLES, name);

function primaryKeyOf(table: PgTable): PgColumn[] {
  const config = getTableConfig(table);
  return config.primaryKeys[0]?.columns ?? config.columns.filter((column) => column.primary);
}

/**
 * Byte order, as SQLite compares text: the database's collation (say en_US) may order ids
 * differently, and the ledger checksum must read rows in the same order on both engines.
 */
const inByteOrder = (column: PgColumn): SQL => (column.dataType === 'string' ? sql`${column} collate "C"` : sql`${column}`);

/** Connections the copy holds: one for its transaction. */
const COPY_POOL_SIZE = 1;

function reader(db: NodePgDatabase<typeof schema>): TableReader {
  return {
    batches(table, batchSize) {
      const definition = TABLE(table);
      const keys = primaryKeyOf(definition);
      const keyFields = fieldNamesOf(getTableColumns(definition), keys);
      const ordered = keys.map(inByteOrder);
      return keysetBatches(
        async (after) =>
          db
            .select()
            .from(definition)
            .where(
              after === null
                ? undefined
                : sql`(${sql.join(ordered, sql`, `)}) > (${sql.join(
                    after.map((value) => sql`${value}`),
                    sql`, `,
                  )})`,
            )
            .orderBy(...ordered)
            .limit(batchSize),
        (row) => keyFields.map((field) => row[field]),
        batchSize,
      );
    },
    async count(table) {
      const counted = await db.execute<{ rows: string }>(sql`select count(*) as "rows" from ${TABLE(table)}`);
      return Number(counted.rows[0]?.rows ?? 0);
    },
  };
}

/**
 * Opens one connection (applying or refusing pending migrations first) and begins `begin`; the
 * caller ends the transaction.
 */
async function openInTransaction(databaseUrl: string, begin: string, pendingMigrations: PendingMigrations) {
  const { pool, location } = await openPostgres(databaseUrl, { poolSize: COPY_POOL_SIZE, pendingMigrations });
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
    await client.query(begin);
  } catch (err) {
    await pool.end();
    throw err;
  }
  let open = true;
  const finish = async (statement: 'commit' | 'rollback') => {
    if (!open) return;
    open = false;
    await client.query(statement);
  };
  return {
    location,
    db: drizzle({ client, schema }),
    finish,
    async close() {
      try {
        await finish('rollback');
      } finally {
        client.release();
        await pool.end();
      }
    },
  };
}

/** Opens the database `DATABASE_URL` names at one read snapshot, refusing one that lacks migrations. */
export async function openPostgresCopySource(databaseUrl: string): Promise<CopySource> {
  const opened = await openInTransaction(databaseUrl, 'begin isolation level repeatable read read only', 'refuse');
  // A REPEATABLE READ transaction takes its snapshot at its first statement: take it now.
  await opened.db.execute(sql`select 1`);
  return {
    engine: 'postgres',
    location: opened.location,
    ...reader(opened.db),
    async close() {
      await opened.finish('commit');
      await opened.close();
    },
  };
}

/**
 * Counts the rows already in the target's Porch tables without migrating anything: a database
 * without Porch's tables is empty.
 */
export async function existingPostgresRows(databaseUrl: string): Promise<ExistingRows> {
  const location = postgresLocation(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'porch' });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new Error(describeStartupError(err, location), { cause: err });
  }
  try {
    const nonEmpty: ExistingRows['nonEmpty'] = [];
    for (const table of COPIED_TABLES) {
      const present = await client.query<{ present: boolean }>('select to_regclass($1) is not null as present', [table]);
      if (!present.rows[0]?.present) continue;
      const counted = await client.query<{ rows: string }>(`select count(*) as "rows" from "${table}"`);
      const rows = Number(counted.rows[0]?.rows ?? 0);
      if (rows > 0) nonEmpty.push({ table, rows });
    }
    return { location, nonEmpty };
  } finally {
    await client.end();
  }
}

/** Opens (migrating) the target and begins the one transaction the copy writes in. */
export async function openPostgresCopyTarget(databaseUrl: string): Promise<CopyTarget> {
  const opened = await openInTransaction(databaseUrl, 'begin', 'apply');
  return {
    engine: 'postgres',
    location: opened.location,
    ...reader(opened.db),
    async insert(table, rows) {
      if (rows.length === 0) return;
      // The rows come from the same schema on the other engine, field for field.
      await opened.db.insert(TABLE(table)).values(rows as Array<PgTable['$inferInsert']>);
    },
    commit: () => opened.finish('commit'),
    rollback: () => opened.finish('rollback'),
    close: opened.close,
  };
}
