/**
 * The engine-neutral view of a database that `porch db copy` moves: every Porch table by its SQL
 * name, rows as the storage layer's JavaScript values (numbers, booleans, parsed JSON), read in
 * primary-key order a batch at a time. Each engine implements it over its own schema
 * (src/db/<engine>/table-copy.ts); src/db/copy-database.ts moves rows from one to the other.
 */
import type { StoreDescription } from './store.js';

/**
 * Every table, parents before children, so rows can be inserted in this order under foreign
 * keys. `rate_limit_counters` is read and written in PostgreSQL's layout (one row per key with
 * both windows); SQLite's engine translates to and from its row per key and window.
 */
export const COPIED_TABLES = [
  'organisations',
  'accounts',
  'api_keys',
  'partner_keys',
  'credit_balances',
  'credit_reservations',
  'credit_ledger',
  'usage_records',
  'context_cards',
  'compositions',
  'skills',
  'workflows',
  'resource_versions',
  'resource_labels',
  'runs',
  'idempotency_records',
  'byok_keys',
  'sanitiser_rules',
  'instances',
  'execution_slots',
  'rate_limit_counters',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'account_passwords',
  'console_sessions',
  'account_tokens',
  'oauth_records',
  'oauth_connections',
] as const;

export type CopiedTable = (typeof COPIED_TABLES)[number];

/** One row, keyed by the schema's field names (`accountId`), with values as the store reads them. */
export type CopiedRow = Readonly<Record<string, unknown>>;

/** Reads one consistent view of a database: a snapshot (source) or the open transaction (target). */
export interface TableReader {
  /** Rows of `table` in primary-key order, at most `batchSize` at a time, never the whole table at once. */
  batches(table: CopiedTable, batchSize: number): AsyncIterable<CopiedRow[]>;
  /** Rows of `table`; for `rate_limit_counters`, keys with counters (the one layout both engines share). */
  count(table: CopiedTable): Promise<number>;
}

export interface OpenedForCopy {
  engine: StoreDescription['engine'];
  /** The file path, or `host:port/database`: never a password. */
  location: string;
}

/** The database copied from, held at one snapshot from opening to closing. */
export interface CopySource extends OpenedForCopy, TableReader {
  close(): Promise<void>;
}

/** The database copied into, inside one transaction from opening to `commit` or `rollback`. */
export interface CopyTarget extends OpenedForCopy, TableReader {
  insert(table: CopiedTable, rows: readonly CopiedRow[]): Promise<void>;
  commit(): Promise<void>;
  /** Undoes every insert; also what `close` does to a transaction still open. */
  rollback(): Promise<void>;
  close(): Promise<void>;
}

/** Rows already in a database's Porch tables, counted before anything is written to it. */
export interface ExistingRows {
  location: string;
  /** Only the tables that hold rows; empty for a new or empty database. */
  nonEmpty: Array<{ table: CopiedTable; rows: number }>;
}

/**
 * Keyset pagination: each page starts after the last primary key of the one before, so a batch
 * costs the same at the end of a large table as at its start (OFFSET would rescan what it skips).
 */
export async function* keysetBatches(
  readPage: (after: readonly unknown[] | null) => Promise<CopiedRow[]>,
  keyOf: (row: CopiedRow) => unknown[],
  batchSize: number,
): AsyncIterable<CopiedRow[]> {
  let after: unknown[] | null = null;
  for (;;) {
    const rows = await readPage(after);
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < batchSize) return;
    after = keyOf(last);
  }
}

/**
 * The schema field names of a table's primary-key columns, matched by SQL name: drizzle's
 * composite primary keys may hold copies of the column objects rather than the table's own.
 */
export function fieldNamesOf(columns: Readonly<Record<string, { name: string }>>, keyColumns: ReadonlyArray<{ name: string }>): string[] {
  return keyColumns.map((column) => {
    const entry = Object.entries(columns).find(([, candidate]) => candidate.name === column.name);
    if (entry === undefined) throw new Error(`the primary-key column ${column.name} is not a column of its table`);
    return entry[0];
  });
}

/**
 * An engine's tables by SQL name, checked against COPIED_TABLES both ways: a table added to a
 * schema but not to the copy would otherwise be left behind without a word.
 */
export function indexCopiedTables<Table>(tables: ReadonlyArray<readonly [string, Table]>): ReadonlyMap<CopiedTable, Table> {
  const known = new Set<string>(COPIED_TABLES);
  const unknown = tables.filter(([name]) => !known.has(name)).map(([name]) => name);
  if (unknown.length > 0) throw new Error(`porch db copy does not know the table(s) ${unknown.join(', ')}: add them to COPIED_TABLES.`);
  const byName = new Map(tables.filter((entry): entry is readonly [CopiedTable, Table] => known.has(entry[0])));
  const missing = COPIED_TABLES.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`The schema has no table(s) ${missing.join(', ')}.`);
  return byName;
}

/** The table `name` of an index `indexCopiedTables` checked, so it is always there. */
export function tableOf<Table>(tables: ReadonlyMap<CopiedTable, Table>, name: CopiedTable): Table {
  const table = tables.get(name);
  if (table === undefined) throw new Error(`no table ${name}`);
  return table;
}
