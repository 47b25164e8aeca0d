/**
 * `porch backup` on SQLite: SQLite's online backup API copies a consistent image of the database
 * page by page while a server keeps serving from it, which copying the file (and its -wal)
 * by hand does not guarantee.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { fileErrorReason } from '../file-errors.js';
import { stallGuard } from '../stall-guard.js';
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

/**
 * `porch-backup-20260115T120000Z.db` beside `porch.db`: sorts by time, and says what it is. A
 * second backup within the same second gets `-2` (then `-3`...), so a script may take two in a row.
 */
export function defaultBackupPath(location: string, now: Date): string {
  const name = basename(location).replace(/\.db$/, '');
  const base = join(dirname(location), `${name}-backup-${backupStamp(now)}`);
  let candidate = `${base}.db`;
  for (let suffix = 2; existsSync(candidate); suffix += 1) candidate = `${base}-${suffix}.db`;
  return candidate;
}

/**
 * Gives the finished copy its name, never replacing a file: `link` fails when the name is taken.
 * A default name another backup took meanwhile (two started in the same second) is replaced by
 * the next free one, `nextName` (regression: the second backup failed with "already exists",
 * though the documentation promises `-2`); a name the operator gave is never changed.
 */
function publish(partial: string, target: string, nextName: (() => string) | undefined): string {
  for (let name = target; ; ) {
    try {
      linkSync(partial, name);
      return name;
    } catch (err) {
      const taken = err instanceof Error && 'code' in err && err.code === 'EEXIST';
      if (!taken || nextName === undefined) throw err;
      name = nextName();
    }
  }
}

/**
 * How long the copy may go without copying a page before it is given up. SQLite's backup step
 * answers "busy, try again" for a database it cannot read at all (a read-only -shm file left by
 * another user), and better-sqlite3 then retries for ever at full speed (regression: it spun for
 * 23 minutes). A server's writes never hold a reader back for long in WAL mode.
 */
const BACKUP_STALL_MS = 10_000;

/**
 * Writes an online backup of the database `DATABASE_URL` names to `destination` (resolved
 * against `cwd`), or beside the database. Opens the file as it is, without migrating: a backup
 * taken before an upgrade must be the old schema. Never overwrites a file. `signal` stops the
 * copy between two steps (Ctrl-C), leaving no file behind.
 */
export async function backupSqlite(databaseUrl: string, destination: string | undefined, now: Date, signal?: AbortSignal): Promise<SqliteBackup> {
  const location = databaseLocation(databaseUrl);
  if (isInMemory(location)) throw new DatabaseRefusal('DATABASE_URL names an in-memory database, which has nothing to back up.');
  if (!existsSync(location)) throw new DatabaseRefusal(`No Porch database at ${location} to back up.`);
  let target = destination === undefined ? defaultBackupPath(location, now) : resolve(destination);
  if (existsSync(target)) {
    // A folder is named by mistake more often than a file: say which it is (regression: "already exists" for both).
    if (statSync(target).isDirectory())
      throw new DatabaseRefusal(`${target} is a folder; name the backup file to write, such as ${defaultBackupPath(join(target, basename(location)), now)}.`);
    throw new DatabaseRefusal(`${target} already exists; a backup never overwrites a file.`);
  }
  // Written under a name of its own, and given the backup's name only once whole: a backup cut
  // short (an error, Ctrl-C) never leaves a file that looks like a backup or blocks the next one.
  // Random as well as the process's: backups started together in one process share its pid.
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  // Created empty and owner-only before SQLite writes to it, so it is never readable by others.
  try {
    closeSync(openSync(partial, 'wx', BACKUP_FILE_MODE));
  } catch (err) {
    throw new DatabaseRefusal(`cannot write the backup ${target}: ${fileErrorReason(err) ?? (err as Error).message}.`, { cause: err });
  }
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(location, { fileMustExist: true });
    const guard = stallGuard(BACKUP_STALL_MS);
    await sqlite.backup(partial, {
      progress: (progress) => {
        signal?.throwIfAborted();
        return guard(progress);
      },
    });
    chmodSync(partial, BACKUP_FILE_MODE);
    target = publish(partial, target, destination === undefined ? () => defaultBackupPath(location, now) : undefined);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof DatabaseRefusal) throw err;
    const exists = err instanceof Error && 'code' in err && err.code === 'EEXIST';
    if (exists) throw new DatabaseRefusal(`${target} already exists; a backup never overwrites a file.`);
    // SQLite's own message ("file is not a database", "database or disk is full") names no file.
    // Which of the two files is at fault is SQLite's to say: the message names both, and blames neither setting.
    throw new DatabaseRefusal(`cannot back up the SQLite database ${location} to ${target}: ${(err as Error).message}.`, { cause: err });
  } finally {
    sqlite?.close();
    rmSync(partial, { force: true });
  }
  return { location, destination: target, bytes: statSync(target).size };
}
