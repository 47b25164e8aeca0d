/**
 * Which PostgreSQL and network errors mean "the database cannot be reached right now", as
 * opposed to a bug or a bad query. Those become StoreUnavailableError (503 with Retry-After);
 * everything else stays a fault (500, logged). Messages never include the URL, which may hold a
 * password.
 */
import { StoreUnavailableError } from '../store.js';

/** Socket-level failures: the server is down, restarting, or the network between is broken. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is shutting down, starting up, or out of connections
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html). Class 08 is every
 * connection exception.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400']);

/** node-postgres reports a dropped connection or a pool wait that timed out by message only. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /connection is closed/i,
  // The driver's query_timeout (open-database.ts): no answer came, as from a connection that died.
  /Query read timeout/i,
];

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

function isConnectionFailure(err: unknown): boolean {
  const code = codeOf(err);
  if (code !== undefined && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  return err instanceof Error && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(err.message));
}

/** drizzle wraps the driver's error in its own ("Failed query: ..."), so the cause chain is searched, a few links deep. */
const MAX_CAUSE_DEPTH = 4;

export function isConnectionError(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (isConnectionFailure(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/** A transaction that lost a serialisation race or a deadlock was rolled back whole, so running it again is safe. */
export function isRetryableTransactionError(err: unknown): boolean {
  const code = codeOf(err) ?? codeOf(err instanceof Error ? err.cause : undefined);
  return code === '40001' || code === '40P01';
}

/** The error a repository method throws for `err`: unavailability becomes StoreUnavailableError, the rest passes unchanged. */
export function translateError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isConnectionError(err)) return err;
  return new StoreUnavailableError('The PostgreSQL database cannot be reached.', { cause: err });
}

/**
 * A start-up failure explained in terms of the setting to fix: unreachable server, refused
 * credentials, missing database. `location` is the host and database, never the password.
 */
export function describeStartupError(err: unknown, location: string): string {
  const code = codeOf(err) ?? codeOf(err instanceof Error ? err.cause : undefined);
  if (code === '28P01' || code === '28000')
    return `DATABASE_URL: PostgreSQL at ${location} refused the user name or password. Fix the credentials in DATABASE_URL.`;
  if (code === '3D000') return `DATABASE_URL: the database ${location} does not exist. Create it (createdb) or fix the database name in DATABASE_URL.`;
  if (code === '42501')
    return `DATABASE_URL: the PostgreSQL user may not create Porch's tables in ${location}. Grant it CREATE on the database, or migrate as an owner first.`;
  if (isConnectionError(err))
    return `DATABASE_URL: cannot reach PostgreSQL at ${location} (${code ?? 'connection failed'}). Start the server, or fix the host and port in DATABASE_URL.`;
  // A driver message that quotes a URL or a user@host might carry the password: say less then.
  const message = err instanceof Error && !/:\/\/|@/.test(err.message) ? `: ${err.message}` : '.';
  return `DATABASE_URL: PostgreSQL at ${location} could not be opened${message}`;
}
