/**
 * `porch backup` on SQLite: SQLite's online backup API copies a consistent image of the database
 * page by page while a server keeps serving from it, which copying the file (and its -wal)
 * by hand does not guarantee.
 */
import { chmodSync, closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseRefusal } from '../store.js';
import { databaseLocation, isInMemory } from './open-database.js';

/** Like the database itself, the backup holds key hashes and BYOK ciphertexts: owner-only. */
const BACKUP_FILE_MODE = 0o600;

export interface SqliteBackup {
  /** The database file backed up. */
  location: string;
  /** The backup file written. */
  destination: string;
  bytes: number;
}

/** `20260115T120000Z`: UTC, sorts by time, and is a valid file name everywhere (no colons). */
export function backupStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** `porch-backup-20260115T120000Z.db` beside `porch.db`: sorts by time, and says what it is. */
export function defaultBackupPath(location: string, now: Date): string {
  const name = basename(location).replace(/\.db$/, '');
  return join(dirname(location), `${name}-backup-${backupStamp(now)}.db`);
}

/**
 * Writes an online backup of the database `DATABASE_URL` names to `destination` (resolved
 * against `cwd`), or beside the database. Opens the file as it is, without migrating: a backup
 * taken before an upgrade must be the old schema. Never overwrites a file.
 */
export async function backupSqlite(databaseUrl: string, destination: string | undefined, now: Date): Promise<SqliteBackup> {
  const location = databaseLocation(databaseUrl);
  if (isInMemory(location)) throw new DatabaseRefusal('DATABASE_URL names an in-memory database, which has nothing to back up.');
  if (!existsSync(location)) throw new DatabaseRefusal(`No Porch database at ${location} to back up.`);
  const target = destination === undefined ? defaultBackupPath(location, now) : resolve(destination);
  // Created empty and owner-only before SQLite writes to it, so it is never readable by others.
  try {
    closeSync(openSync(target, 'wx', BACKUP_FILE_MODE));
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'EEXIST')
      throw new DatabaseRefusal(`${target} already exists; a backup never overwrites a file.`);
    throw err;
  }
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(location, { fileMustExist: true });
    await sqlite.backup(target);
  } catch (err) {
    rmSync(target, { force: true });
    // SQLite's own message ("file is not a database", "database or disk is full") names no file.
    throw new DatabaseRefusal(`DATABASE_URL: cannot back up the SQLite database ${location} to ${target}: ${(err as Error).message}.`, { cause: err });
  } finally {
    sqlite?.close();
  }
  chmodSync(target, BACKUP_FILE_MODE);
  return { location, destination: target, bytes: statSync(target).size };
}
