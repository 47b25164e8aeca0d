import { Column, fillPlaceholders, type Query } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PorchDatabase } from './open-database.js';

/** A read prepared on the driver: rows as drizzle would type them, read with named placeholder values. */
export interface RowStatement<Row> {
  all(values: Record<string, unknown>): Row[];
  get(values: Record<string, unknown>): Row | undefined;
}

type Decoder = ((value: unknown) => unknown) | null;

/**
 * A drizzle select prepared on better-sqlite3 itself, reading rows as arrays and decoding them
 * with the selected columns' own decoders. drizzle's prepared statement maps each row through
 * its generic mapper (a type check per column and a path walk per value), which cost a 20-card
 * list about as much CPU as SQLite's reading it (bench/RESULTS-NOTES.md). The SQL, the
 * placeholders and each column's decoding stay drizzle's, so the schema is still the one
 * description of the rows; only the loop is written here. For the reads every request makes.
 *
 * `fields` must be the flat selection the query was built with: `build` receives it to make the
 * pairing visible, and the statement's result columns are checked against it when prepared.
 */
export function rowStatement<Fields extends Record<string, SQLiteColumn>, Built extends { toSQL(): Query; all(): unknown[] }>(
  db: PorchDatabase,
  fields: Fields,
  build: (fields: Fields) => Built,
): RowStatement<ReturnType<Built['all']>[number]> {
  type Row = ReturnType<Built['all']>[number];
  const { sql, params } = build(fields).toSQL();
  const statement = db.$client.prepare<unknown[], unknown[]>(sql).raw(true);
  // A column that stores what it reads (text, integer) needs no call per value.
  const selected: Array<{ name: string; decoder: Decoder }> = Object.entries(fields).map(([name, column]) => ({
    name,
    decoder: column.mapFromDriverValue === Column.prototype.mapFromDriverValue ? null : (value: unknown) => column.mapFromDriverValue(value),
  }));
  const resultColumns = statement.columns().map((column) => column.name);
  const fieldColumns = Object.values(fields).map((column) => column.name);
  if (resultColumns.join() !== fieldColumns.join()) {
    throw new Error(`rowStatement: the query reads ${resultColumns.join(', ')}, not the fields it was given (${fieldColumns.join(', ')})`);
  }
  const decode = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    selected.forEach(({ name, decoder }, index) => {
      const value = values[index];
      row[name] = value === null || decoder === null ? value : decoder(value);
    });
    return row as Row;
  };
  const bound = (values: Record<string, unknown>) => fillPlaceholders(params, values);
  return {
    all: (values) => statement.all(...bound(values)).map(decode),
    get: (values) => {
      const found = statement.get(...bound(values));
      return found === undefined ? undefined : decode(found);
    },
  };
}
