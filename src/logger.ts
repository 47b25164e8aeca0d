import { pino, type Logger } from 'pino';

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
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination,
  );
}

/** A logger that drops everything (tests, benchmarks). */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
