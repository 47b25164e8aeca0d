/**
 * What the MCP SDK reports to `onerror`: mostly requests it refused and answered (a client's
 * mistake), sometimes a fault of Porch's own (a result it could not encode, a handler that
 * threw). The first are debug lines without a stack, so an anonymous client cannot fill the
 * logs with warnings (regression: a kilobyte of stack per refused request); the rest stay
 * warnings with their stack, where an operator looks.
 */
import type { Logger } from 'pino';

/** The SDK's refusals of a request, by how their messages start (its own HTTP-style wording). */
const CLIENT_MISTAKE =
  /^(?:Bad Request|Invalid Request|Not Acceptable|Unsupported Media Type|Unsupported protocol version|Method not allowed|Conflict|Parse error|Session not found|Invalid event ID|Received a response for an unknown request id)/i;

export function logSdkError(logger: Logger, err: Error, fields: Record<string, unknown> = {}): void {
  if (CLIENT_MISTAKE.test(err.message)) logger.debug({ ...fields, reason: err.message }, 'MCP request refused by the protocol layer');
  else logger.warn({ ...fields, err }, 'MCP protocol layer error');
}
