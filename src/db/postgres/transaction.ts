import { isRetryableTransactionError } from './connection-errors.js';
import type { PostgresDatabase } from './open-database.js';

export type PostgresTransaction = Parameters<Parameters<PostgresDatabase['transaction']>[0]>[0];

/** A rolled-back race is run again this many times before its error is passed on. */
const MAX_ATTEMPTS = 3;

/**
 * Runs `body` in one READ COMMITTED transaction. The check-and-update paths lock the rows they
 * check (`FOR UPDATE`, or an UPDATE whose WHERE holds the check), so concurrent requests from any
 * process queue on the row rather than read a stale value. A deadlock or serialisation failure
 * rolls the whole transaction back, so it is retried; any other error is passed on.
 */
export async function inTransaction<Result>(db: PostgresDatabase, body: (tx: PostgresTransaction) => Promise<Result>): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(body);
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !isRetryableTransactionError(err)) throw err;
    }
  }
}
