import { Column, fillPlaceholders, type Query } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PorchDatabase } from './open-database.js';

/** A read prepared on the driver: rows as drizzle would type them, read with named placeholder values. */
export interface RowStatement<Row> {
  all(values: Record<string, unknown>): Row[];
  get(values: Record<string, unknown>): Row | undefined;
}

type Decoder = ((value: unknown) => unknown) | null;

/** A flat selection, or one grouped by table for a join. */
type Selection = Record<string, SQLiteColumn | Record<string, SQLiteColumn>>;

interface SelectedColumn {
  /** The group (table) of a joined selection, null in a flat one. */
  readonly group: string | null;
  readonly name: string;
  /** The column's name in the database, as the statement reports it. */
  readonly column: string;
  readonly decoder: Decoder;
}

function selectedColumn(group: string | null, name: string, column: SQLiteColumn): SelectedColumn {
  // A column that stores what it reads (text, integer) needs no call per value.
  const decoder = column.mapFromDriverValue === Column.prototype.mapFromDriverValue ? null : (value: unknown) => column.mapFromDriverValue(value);
  return { group, name, column: column.name, decoder };
}

/**
 * A drizzle select prepared on better-sqlite3 itself, reading rows as arrays and decoding them
 * with the selected columns' own decoders. drizzle's prepared statement maps each row through
 * its generic mapper (a type check per column and a path walk per value), which cost a 20-card
 * list about as much CPU as SQLite's reading it (bench/RESULTS-NOTES.md). The SQL, the
 * placeholders and each column's decoding stay drizzle's, so the schema is still the one
 * description of the rows; only the loop is written here. For the reads every request makes.
 *
 * `fields` must be the selection the query was built with: `build` receives it to make the
 * pairing visible, and the statement's result columns are checked against it when prepared. It is
 * flat, or for a join grouped one level deep by table (`{ key: columns, account: columns }`),
 * as drizzle nests such a selection's rows.
 */
export function rowStatement<Fields extends Selection, Built extends { toSQL(): Query; all(): unknown[] }>(
  db: PorchDatabase,
  fields: Fields,
  build: (fields: Fields) => Built,
): RowStatement<ReturnType<Built['all']>[number]> {
  type Row = ReturnType<Built['all']>[number];
  const { sql, params } = build(fields).toSQL();
  const statement = db.$client.prepare<unknown[], unknown[]>(sql).raw(true);
  // The selected columns in the order the query reads them, each with the group it belongs to.
  const selected: SelectedColumn[] = Object.entries(fields).flatMap(([name, field]) =>
    field instanceof Column ? [selectedColumn(null, name, field)] : Object.entries(field).map(([inner, column]) => selectedColumn(name, inner, column)),
  );
  const groups = [...new Set(selected.flatMap(({ group }) => (group === null ? [] : [group])))];
  if (groups.length > 0 && selected.some(({ group }) => group === null)) throw new Error('rowStatement: a selection is either flat or grouped, not both');
  const resultColumns = statement.columns().map((column) => column.name);
  const fieldColumns = selected.map(({ column }) => column);
  if (resultColumns.join() !== fieldColumns.join()) {
    throw new Error(`rowStatement: the query reads ${resultColumns.join(', ')}, not the fields it was given (${fieldColumns.join(', ')})`);
  }
  const decodeInto = (target: Record<string, unknown>, columns: readonly SelectedColumn[], values: unknown[], offset: number): void => {
    columns.forEach(({ name, decoder }, index) => {
      const value = values[offset + index];
      target[name] = value === null || decoder === null ? value : decoder(value);
    });
  };
  // A joined selection lists each group's columns together, in the order of `groups`.
  const groupColumns = groups.map((group) => selected.filter((column) => column.group === group));
  const decode = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    if (groups.length === 0) {
      decodeInto(row, selected, values, 0);
      return row as Row;
    }
    let offset = 0;
    groups.forEach((group, index) => {
      const columns = groupColumns[index] ?? [];
      const record: Record<string, unknown> = {};
      decodeInto(record, columns, values, offset);
      row[group] = record;
      offset += columns.length;
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
