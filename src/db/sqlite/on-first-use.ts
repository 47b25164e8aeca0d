/**
 * A prepared statement built on its first use rather than when the store is created. The store
 * prepares some thirty statements, and drizzle builds and SQLite compiles each: doing that up
 * front costs start-up time (bench/RESULTS-NOTES.md), mostly for statements a process may never
 * run (a CLI command uses two or three). Each is still prepared once, then reused.
 */
export function onFirstUse<Statement>(prepare: () => Statement): () => Statement {
  let statement: Statement | undefined;
  return () => (statement ??= prepare());
}
