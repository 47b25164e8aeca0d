/**
 * `porch db copy`: every row of one Porch database into an empty other one, on either engine
 * (the main case: SQLite to PostgreSQL). All or nothing: the target is written in one
 * transaction, committed only after the row counts of every table and a checksum of the credit
 * ledger agree with the source, which is read at one snapshot.
 */
import { createHash } from 'node:crypto';
import { existingRows, locateDatabase, openCopySource, openCopyTarget } from './create-store.js';
import { DatabaseRefusal, type StoreDescription } from './store.js';
import { COPIED_TABLES, type CopiedTable, type CopyTarget, type TableReader } from './table-copy.js';

/**
 * Rows per read and per INSERT: large enough that round trips do not dominate, small enough that
 * a batch of the widest table stays far below both engines' limits on bound parameters and holds
 * little memory however large the table is.
 */
export const COPY_BATCH_ROWS = 500;

export interface CopiedTableCount {
  table: CopiedTable;
  source: number;
  target: number;
}

export interface CopyReport {
  source: Pick<StoreDescription, 'engine' | 'location'>;
  target: Pick<StoreDescription, 'engine' | 'location'>;
  /** Rows per table on both sides, read before the commit; `rate_limit_counters` counts keys. */
  tables: CopiedTableCount[];
  /** SHA-256 of the credit ledger, rows in id order, on both sides. */
  ledgerSha256: { source: string; target: string };
}

export interface CopyOptions {
  batchRows?: number;
}

/**
 * SHA-256 over the credit ledger's rows in id order, one JSON array per row: any row missing,
 * added, or with a different amount, balance, kind, reference or time changes it.
 */
export async function ledgerChecksum(reader: TableReader, batchRows = COPY_BATCH_ROWS): Promise<string> {
  const hash = createHash('sha256');
  for await (const rows of reader.batches('credit_ledger', batchRows)) {
    for (const row of rows) {
      hash.update(`${JSON.stringify([row.id, row.accountId, row.kind, row.deltaTokens, row.balanceAfterTokens, row.reference, row.createdAt])}\n`);
    }
  }
  return hash.digest('hex');
}

function describeRows(nonEmpty: ReadonlyArray<{ table: CopiedTable; rows: number }>): string {
  return nonEmpty.map(({ table, rows }) => `${table}: ${rows}`).join(', ');
}

/**
 * Errors about the target name it as `--to`, since the message would otherwise blame DATABASE_URL:
 * opening a database, refusals included, speaks of the database DATABASE_URL names (regressions:
 * "Fix the credentials in DATABASE_URL", and "DATABASE_URL: cannot open ... EROFS" for a
 * read-only target folder).
 */
async function aboutTarget<Result>(run: () => Promise<Result>): Promise<Result> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    throw new DatabaseRefusal(`The copy target (--to): ${err.message.replace(/^DATABASE_URL:?\s*/, '').replaceAll('DATABASE_URL', '--to')}`, { cause: err });
  }
}

async function refuseUnlessEmpty(target: CopyTarget): Promise<void> {
  const nonEmpty: Array<{ table: CopiedTable; rows: number }> = [];
  for (const table of COPIED_TABLES) {
    const rows = await target.count(table);
    if (rows > 0) nonEmpty.push({ table, rows });
  }
  if (nonEmpty.length > 0)
    throw new DatabaseRefusal(`The target ${target.location} filled up during the copy (${describeRows(nonEmpty)}); nothing was written.`);
}

/**
 * Copies one table a batch at a time. A batch the target refuses (a value one engine stores and
 * the other cannot, such as a NUL character in PostgreSQL text) is named by table and reason:
 * the database driver's own message would carry every value of the batch.
 */
async function copyTable(source: TableReader, target: CopyTarget, table: CopiedTable, batchRows: number): Promise<void> {
  for await (const rows of source.batches(table, batchRows)) {
    try {
      await target.insert(table, rows);
    } catch (err) {
      const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      throw new DatabaseRefusal(`The target ${target.location} refused a row of ${table} (${reason}); the copy was rolled back and nothing was written.`, {
        cause: err,
      });
    }
  }
}

async function countBoth(source: TableReader, target: TableReader): Promise<CopiedTableCount[]> {
  const counts: CopiedTableCount[] = [];
  for (const table of COPIED_TABLES) counts.push({ table, source: await source.count(table), target: await target.count(table) });
  return counts;
}

/** Copies the database `sourceUrl` names into the empty one `targetUrl` names, and reports the checks. */
export async function copyDatabase(sourceUrl: string, targetUrl: string, options: CopyOptions = {}): Promise<CopyReport> {
  const batchRows = options.batchRows ?? COPY_BATCH_ROWS;
  const sourceLocation = locateDatabase(sourceUrl).location;
  const existing = await aboutTarget(() => existingRows(targetUrl));
  if (existing.location === sourceLocation) throw new DatabaseRefusal(`--to names the database DATABASE_URL names (${sourceLocation}); copy into another one.`);
  // Checked before anything is created or migrated there: a database with data is never touched.
  if (existing.nonEmpty.length > 0) {
    throw new DatabaseRefusal(
      `The target ${existing.location} is not empty (${describeRows(existing.nonEmpty)}); porch db copy fills only an empty database, so nothing was written.`,
    );
  }
  const source = await openCopySource(sourceUrl);
  try {
    const target = await aboutTarget(() => openCopyTarget(targetUrl));
    try {
      await refuseUnlessEmpty(target);
      for (const table of COPIED_TABLES) await copyTable(source, target, table, batchRows);
      const tables = await countBoth(source, target);
      const ledgerSha256 = { source: await ledgerChecksum(source, batchRows), target: await ledgerChecksum(target, batchRows) };
      const differing = tables.filter((count) => count.source !== count.target);
      if (differing.length > 0 || ledgerSha256.source !== ledgerSha256.target) {
        throw new Error(
          `The copy did not verify (${differing.map((count) => `${count.table}: ${count.source} read, ${count.target} written`).join(', ') || 'the credit ledger checksums differ'}); it was rolled back.`,
        );
      }
      await target.commit();
      return {
        source: { engine: source.engine, location: source.location },
        target: { engine: target.engine, location: target.location },
        tables,
        ledgerSha256,
      };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
