/**
 * What both engines know about their committed migrations: the names and creation times that
 * drizzle-kit writes to `meta/_journal.json`, which migrations a database still lacks, and the
 * refusals for a database that a newer Porch migrated or that lacks migrations it may not apply.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DatabaseRefusal } from './store.js';

/**
 * What opening a database does with the migrations it lacks: `apply` them (the server, `db init`,
 * `db migrate`), or `refuse` to open it (every other command, so only those three change a
 * database's schema, and a command run during an upgrade never migrates it behind the operator's back).
 */
export type PendingMigrations = 'apply' | 'refuse';

/** One committed migration: its file name without `.sql`, and the time drizzle-kit generated it (epoch milliseconds). */
export interface KnownMigration {
  name: string;
  createdAt: number;
}

const JOURNAL = z.object({ entries: z.array(z.object({ when: z.number(), tag: z.string() })) });

/** The migrations of `migrationsFolder`, oldest first. */
export function readMigrationJournal(migrationsFolder: string): KnownMigration[] {
  const journal = JOURNAL.parse(JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')));
  return journal.entries.map((entry) => ({ name: entry.tag, createdAt: entry.when })).sort((a, b) => a.createdAt - b.createdAt);
}

/**
 * The migrations drizzle applies to a database whose newest applied one was created at
 * `newestApplied` (0 for a new database): drizzle compares creation times, not names.
 */
export function migrationsAfter(known: readonly KnownMigration[], newestApplied: number): string[] {
  return known.filter((migration) => migration.createdAt > newestApplied).map((migration) => migration.name);
}

/** How a database's applied migrations compare with the ones this code knows. */
export function schemaStatusOf(known: readonly KnownMigration[], newestApplied: number): 'current' | 'behind' | 'ahead' {
  const newestKnown = Math.max(0, ...known.map((migration) => migration.createdAt));
  if (newestApplied > newestKnown) return 'ahead';
  return migrationsAfter(known, newestApplied).length > 0 ? 'behind' : 'current';
}

/**
 * Throws when a newer Porch migrated the database: this code would read and write tables whose
 * shape it does not know. The message names the setting and both ways out.
 */
export function refuseNewerDatabase(location: string, newestApplied: number, known: readonly KnownMigration[]): void {
  const newestKnown = Math.max(0, ...known.map((migration) => migration.createdAt));
  if (newestApplied <= newestKnown) return;
  throw new DatabaseRefusal(
    `DATABASE_URL: the database ${location} was migrated by a newer version of Porch (${new Date(newestApplied).toISOString()}); this version knows migrations up to ${new Date(newestKnown).toISOString()}. Run the newer Porch, or restore a backup taken before the upgrade.`,
  );
}

/** Throws, naming them, when the database lacks migrations and the opener may not apply them. */
export function refusePendingMigrations(location: string, pending: readonly string[], policy: PendingMigrations): void {
  if (policy === 'apply' || pending.length === 0) return;
  throw new DatabaseRefusal(
    `DATABASE_URL: the database ${location} lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} of this version of Porch (${pending.join(', ')}). Apply them with porch db migrate (porch serve also applies them when it starts), then run this command again.`,
  );
}

/** How many of a foreign database's tables a refusal names. */
const FOREIGN_TABLES_NAMED = 5;

/**
 * Throws when a database Porch never migrated already holds tables: another application's
 * database, which Porch would otherwise fill with its own tables, or refuse as "lacking
 * migrations" and point to `porch db migrate` (regression). A new or empty database has none.
 * `tables` are the tables found, sorted; Porch's own migration table is not among them.
 */
export function refuseForeignDatabase(location: string, tables: readonly string[]): void {
  if (tables.length === 0) return;
  const named = tables.slice(0, FOREIGN_TABLES_NAMED).join(', ');
  const more = tables.length > FOREIGN_TABLES_NAMED ? ` and ${tables.length - FOREIGN_TABLES_NAMED} more` : '';
  throw new DatabaseRefusal(
    `DATABASE_URL: the database ${location} is not a Porch database: it holds tables (${named}${more}) and no Porch migration history. Point DATABASE_URL at a Porch database, or at a new file or an empty database for Porch to set up.`,
  );
}
