/**
 * The SQLite side of `porch db copy` (src/db/table-copy.ts): reads under one read transaction,
 * so the copy sees a single snapshot while a server keeps writing (WAL lets both run), and
 * writes under one IMMEDIATE transaction, so a failed copy leaves nothing behind.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { getTableColumns, getTableName, is, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  COPIED_TABLES,
  fieldNamesOf,
  indexCopiedTables,
  keysetBatches,
  type CopiedRow,
  type CopiedTable,
  type CopySource,
  type CopyTarget,
  type ExistingRows,
  type TableReader,
  tableOf,
} from '../table-copy.js';
import { databaseLocation, isInMemory, openDatabase, type PorchDatabase } from './open-database.js';
import * as schema from './schema.js';

/** Every table of the schema by SQL name, checked against the copy's list (cheap: a score of tables). */
const SCHEMA_EXPORTS: readonly unknown[] = Object.values(schema);
const TABLES = indexCopiedTables(
  SCHEMA_EXPORTS.filter((value): value is SQLiteTable => is(value, SQLiteTable)).map((table) => [getTableName(table), table] as const),
);
const TABLE = (name: CopiedTable): SQLiteTable => tableOf(TABLES, name);

function primaryKeyOf(table: SQLiteTable): SQLiteColumn[] {
  const config = getTableConfig(table);
  return config.primaryKeys[0]?.columns ?? config.columns.filter((column) => column.primary);
}

const listed = (values: readonly unknown[]): SQL =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/** A counter row in the shared layout: one per key, both windows (Unix seconds and counts). */
type CounterRow = {
  keyId: string;
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
};

function reader(db: PorchDatabase): TableReader {
  return {
    batches(table, batchSize) {
      if (table === 'rate_limit_counters') {
        // SQLite keeps a row per key and window; grouping by key gives the shared layout.
        return keysetBatches(
          async (after) =>
            db.all<CounterRow>(sql`
              select key_id as "keyId",
                coalesce(max(case when "window" = 'minute' then window_start end), 0) as "minuteStart",
                coalesce(max(case when "window" = 'minute' then count end), 0) as "minuteCount",
                coalesce(max(case when "window" = 'day' then window_start end), 0) as "dayStart",
                coalesce(max(case when "window" = 'day' then count end), 0) as "dayCount"
              from rate_limit_counters
              ${after === null ? sql`` : sql`where key_id > ${after[0]}`}
              group by key_id order by key_id limit ${batchSize}`),
          (row) => [row.keyId],
          batchSize,
        );
      }
      const definition = TABLE(table);
      const keys = primaryKeyOf(definition);
      const keyFields = fieldNamesOf(getTableColumns(definition), keys);
      return keysetBatches(
        async (after) =>
          db
            .select()
            .from(definition)
            .where(after === null ? undefined : sql`(${sql.join(keys, sql`, `)}) > (${listed(after)})`)
            .orderBy(...keys)
            .limit(batchSize)
            .all(),
        (row) => keyFields.map((field) => row[field]),
        batchSize,
      );
    },
    async count(table) {
      const counted =
        table === 'rate_limit_counters'
          ? db.get<{ rows: number }>(sql`select count(distinct key_id) as "rows" from rate_limit_counters`)
          : db.get<{ rows: number }>(sql`select count(*) as "rows" from ${TABLE(table)}`);
      return counted?.rows ?? 0;
    },
  };
}

/** A window never used (a key the other engine only ever counted in one window) is not written. */
function counterWindows(rows: readonly CopiedRow[]): Array<typeof schema.rateLimitCounters.$inferInsert> {
  return rows.flatMap((row) => {
    const counter = row as CounterRow;
    const windows = [
      { keyId: counter.keyId, window: 'minute' as const, windowStart: counter.minuteStart, count: counter.minuteCount },
      { keyId: counter.keyId, window: 'day' as const, windowStart: counter.dayStart, count: counter.dayCount },
    ];
    return windows.filter((window) => window.windowStart !== 0 || window.count !== 0);
  });
}

/** Opens the database `DATABASE_URL` names at one read snapshot, refusing one that lacks migrations. */
export function openSqliteCopySource(databaseUrl: string): CopySource {
  const { db, sqlite, location } = openDatabase(databaseUrl, 'refuse');
  // A deferred transaction takes its snapshot at the first read, so read once now.
  sqlite.exec('begin');
  sqlite.prepare('select count(*) from sqlite_master').get();
  return {
    engine: 'sqlite',
    location,
    ...reader(db),
    async close() {
      if (sqlite.inTransaction) sqlite.exec('commit');
      sqlite.close();
    },
  };
}

/**
 * Counts the rows already in the target's Porch tables without migrating or creating anything:
 * a file that does not exist is empty, and so is one without Porch's tables.
 */
export function existingSqliteRows(databaseUrl: string): ExistingRows {
  const location = databaseLocation(databaseUrl);
  if (isInMemory(location)) throw new Error('An in-memory database cannot be copied into: name a file.');
  if (!existsSync(location)) return { location, nonEmpty: [] };
  // SQLite's own word for a folder is "disk I/O error" (regression: the whole message).
  if (statSync(location).isDirectory()) throw new Error(`${location} is a folder; name the database file to copy into, such as ${join(location, 'porch.db')}.`);
  const sqlite = new Database(location, { readonly: true, fileMustExist: true });
  try {
    const nonEmpty = COPIED_TABLES.flatMap((table) => {
      const present = sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(table);
      if (present === undefined) return [];
      const counted = sqlite.prepare(`select count(*) as "rows" from "${table}"`).get() as { rows: number };
      return counted.rows > 0 ? [{ table, rows: counted.rows }] : [];
    });
    return { location, nonEmpty };
  } finally {
    sqlite.close();
  }
}

/** Opens (creating and migrating) the target and begins the one transaction the copy writes in. */
export function openSqliteCopyTarget(databaseUrl: string): CopyTarget {
  const { db, sqlite, location } = openDatabase(databaseUrl);
  sqlite.exec('begin immediate');
  const rollback = async () => {
    if (sqlite.inTransaction) sqlite.exec('rollback');
  };
  return {
    engine: 'sqlite',
    location,
    ...reader(db),
    async insert(table, rows) {
      if (rows.length === 0) return;
      if (table === 'rate_limit_counters') {
        const windows = counterWindows(rows);
        if (windows.length > 0) db.insert(schema.rateLimitCounters).values(windows).run();
        return;
      }
      // The rows come from the same schema on the other engine, field for field.
      db.insert(TABLE(table))
        .values(rows as Array<SQLiteTable['$inferInsert']>)
        .run();
    },
    async commit() {
      sqlite.exec('commit');
    },
    rollback,
    async close() {
      await rollback();
      sqlite.close();
    },
  };
}
