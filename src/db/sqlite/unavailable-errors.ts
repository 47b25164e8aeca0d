/**
 * Which SQLite errors mean "the database cannot answer right now", as opposed to a bug or a bad
 * query. Those become StoreUnavailableError (503 with Retry-After, "never a 500"), as PostgreSQL's
 * connection failures do (postgres/connection-errors.ts):
 * - busy or locked: another process held the write lock for longer than a call waits for it
 *   (lock-waits.ts: an import with --prune, a backup tool, the sqlite3 shell in a transaction),
 *   which goes away by itself;
 * - full, I/O error, read-only: the disk or the file refuses writes, which lasts until an
 *   operator acts, so the store also reports itself unready for a while (index.ts).
 */
import { StoreUnavailableError } from '../store.js';

/** drizzle may wrap the driver's error in its own ("Failed query: ..."): the cause chain is searched, a few links deep. */
const MAX_CAUSE_DEPTH = 4;

/** SQLite's extended result codes, as better-sqlite3 names them (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_WRITE`...). */
function sqliteCodeOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if ('code' in current && typeof current.code === 'string' && current.code.startsWith('SQLITE_')) return current.code;
    current = current.cause;
  }
  return undefined;
}

export type SqliteOutage = 'locked' | 'lasting';

/** What kind of unavailability `err` is, or undefined for an error that is no outage. */
export function sqliteOutageOf(err: unknown): { kind: SqliteOutage; message: string } | undefined {
  const code = sqliteCodeOf(err);
  if (code === undefined) return undefined;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return {
      kind: 'locked',
      message: 'The SQLite database is locked by another process (a long write such as an import or a backup tool, or many writers at once); retry shortly.',
    };
  }
  if (code === 'SQLITE_FULL') return { kind: 'lasting', message: 'The disk holding the SQLite database is full.' };
  if (code.startsWith('SQLITE_IOERR')) return { kind: 'lasting', message: 'The SQLite database file could not be read or written (an I/O error).' };
  if (code.startsWith('SQLITE_READONLY')) return { kind: 'lasting', message: 'The SQLite database file cannot be written (it, or its folder, is read-only).' };
  return undefined;
}

/** The error a repository method throws for `err`; `onLasting` hears of each outage that lasts. */
export function sqliteErrorTranslator(onLasting: () => void): (err: unknown) => unknown {
  return (err) => {
    if (err instanceof StoreUnavailableError) return err;
    const outage = sqliteOutageOf(err);
    if (outage === undefined) return err;
    if (outage.kind === 'lasting') onLasting();
    return new StoreUnavailableError(outage.message, { cause: err });
  };
}
