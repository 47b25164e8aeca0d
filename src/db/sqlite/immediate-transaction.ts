import type { PorchDatabase } from './open-database.js';

/**
 * `body` wrapped once in a better-sqlite3 IMMEDIATE transaction, for the check-and-update paths
 * every request or model call takes (rate limit, reserve, settle). drizzle's `db.transaction`
 * builds a transaction object (with a query builder per table) and a fresh better-sqlite3
 * wrapper on each call; built once, the transaction costs only its BEGIN and COMMIT. `body` uses
 * prepared statements, which run on the same connection.
 */
export function immediateTransaction<Args extends unknown[], Result>(db: PorchDatabase, body: (...args: Args) => Result): (...args: Args) => Result {
  const transaction = db.$client.transaction(body);
  return (...args) => transaction.immediate(...args);
}
