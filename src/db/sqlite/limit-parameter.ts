import { type Placeholder, sql } from 'drizzle-orm';

/**
 * A LIMIT bound when the statement runs, written `LIMIT +?` rather than `LIMIT ?`. The bundled
 * SQLite compiles a statement whose LIMIT is a bare parameter afresh each time it runs with a new
 * binding (the value may change the plan), which cost a 20-card list more than reading its rows
 * (bench/RESULTS-NOTES.md); an expression of the parameter is not looked at when planning, so
 * the prepared statement stays planned. The value and its meaning are the same (a negative one
 * is still "no limit").
 *
 * drizzle's `limit()` is typed for a placeholder or a number and embeds any SQL it is given as it
 * is: the expression carries a placeholder's `name` so it fits that type.
 */
export function limitParameter(name: string): Placeholder {
  return Object.assign(sql`+${sql.placeholder(name)}`, { name, protected: undefined });
}
