import { pino, type Logger } from 'pino';
import { PARTNER_KEY_PREFIX, USER_KEY_PREFIX } from './core/access/key-material.js';

export type { Logger };

/**
 * Paths whose values are secrets. Keys, partner keys and BYOK keys must never reach a log line,
 * whatever object they travel in.
 */
const REDACTED_PATHS = [
  'apiKey',
  'key',
  'plaintext',
  'secret',
  'password',
  '*.apiKey',
  '*.key',
  '*.plaintext',
  '*.secret',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  // Console session and form cookies, and the one-time tokens of invite and reset links.
  'req.headers.cookie',
  'headers.cookie',
  'res.headers["set-cookie"]',
  'token',
  '*.password',
  '*.token',
];

/** What stands in a logged path for a key found in it (its prefix is kept: which kind it was). */
const REDACTED_KEY = '[redacted]';

/**
 * A key in a URL path: a key prefix (its `_` perhaps percent-encoded, which the path keeps as
 * sent) and the characters a key or its percent-encoding may hold, up to the next `/`.
 */
const KEY_IN_PATH = new RegExp(`(${[USER_KEY_PREFIX, PARTNER_KEY_PREFIX].map((prefix) => prefix.slice(0, -1)).join('|')})(?:_|%5[Ff])[A-Za-z0-9_.~%-]*`, 'g');

/**
 * A request path as logs and spans may hold it: any key in it (a client that put its key in the
 * URL, `GET /api/public/v1/context-cards/mdi_...`) replaced by its prefix and a marker, since the
 * logs promise no key material (regression: the access line quoted the key).
 */
export function withoutKeys(path: string): string {
  return path.includes('_') || path.includes('%') ? path.replace(KEY_IN_PATH, (_, prefix: string) => `${prefix}_${REDACTED_KEY}`) : path;
}

/** How many causes deep a logged error is searched for failed queries. */
const MAX_CAUSE_DEPTH = 4;

/** drizzle's error for a failed query (DrizzleQueryError): it quotes the query's parameters. */
function isFailedQuery(err: Error): err is Error & { query: string } {
  return 'query' in err && typeof err.query === 'string' && 'params' in err;
}

/** A failed query as it is logged: the SQL and the driver's reason (its cause), without the values. */
class FailedQueryError extends Error {
  override name = 'FailedQueryError';
}

/**
 * The error a log line carries for `err`. A failed query's error quotes the query's parameters in
 * its message, its stack and a `params` field: the row's values, which may be a customer's
 * prompt, an email address or a key's hash. Logged, it keeps the SQL, the driver's reason and
 * the stack frames, never the values; an error wrapping one is logged with it cleaned.
 */
export function withoutQueryParameters(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > MAX_CAUSE_DEPTH) return err;
  const cause = withoutQueryParameters(err.cause, depth + 1);
  if (isFailedQuery(err)) {
    const clean = new FailedQueryError(`Failed query: ${err.query}`, { cause });
    // The stack begins with the message; only the frames after it are kept (none if it does not).
    const header = `${err.name}: ${err.message}`;
    clean.stack = `${clean.name}: ${clean.message}${err.stack?.startsWith(header) ? err.stack.slice(header.length) : ''}`;
    return clean;
  }
  if (cause === err.cause) return err;
  const copy: Error = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err, { cause });
  Object.defineProperty(copy, 'message', { value: err.message, enumerable: false });
  Object.defineProperty(copy, 'stack', { value: err.stack, enumerable: false });
  return copy;
}

/**
 * A structured logger writing JSON lines to stderr: stdout belongs to CLI output and MCP stdio.
 * A line written for a request carries the request's fields (request id, trace id, account id):
 * the writer adds them from the request's scope (`logFieldsOf`), which it has at hand.
 */
export function createLogger(level: string, destination: NodeJS.WritableStream | number = 2): Logger {
  return pino(
    {
      level,
      base: { service: 'porch' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: (err: unknown) => pino.stdSerializers.err(withoutQueryParameters(err) as Error) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination,
  );
}

/** A logger that drops everything (tests, benchmarks). */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
