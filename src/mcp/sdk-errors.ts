/**
 * What the MCP SDK reports to `onerror`: mostly requests it refused and answered (a client's
 * mistake), sometimes a fault of Porch's own (a result it could not encode, a handler that
 * threw). The first are debug lines without a stack, so an anonymous client cannot fill the
 * logs with warnings (regression: a kilobyte of stack per refused request); the rest stay
 * warnings with their stack, where an operator looks.
 */
import type { Logger } from 'pino';

/**
 * What a client's message can make the SDK report, by how the report starts: the transports'
 * HTTP-style refusals, the revision 2026-07-28 handler's refusals of a request's headers and
 * envelope (an Mcp-Protocol-Version or Mcp-Name header missing or contradicting the body, a
 * capability the request needs but does not declare), the protocol layer's words for a message
 * it dropped (a response or a progress notification it was not waiting for, a message of no known
 * type or era, a client gone before its answer was written), and a notification whose params the
 * SDK's own handler refused (`notifications/cancelled` without a request id, a progress token that
 * is an object): the handler's schema failure is reported as "Uncaught error", with zod's issues, a
 * JSON array, as its reason. A fault of a handler of Porch's own reads otherwise and stays a warning.
 */
const CLIENT_MISTAKE = new RegExp(
  `^(?:${[
    'Bad Request',
    'Invalid Request',
    'Not Acceptable',
    'Unsupported Media Type',
    'Unsupported protocol version',
    'Rejected inbound request',
    'Missing required client capabilities',
    'Method not allowed',
    'Conflict',
    'Parse error',
    'Session not found',
    'Invalid event ID',
    'Received a response for an unknown',
    'Received a progress notification for an unknown',
    'Unknown message type',
    'Era mismatch',
    'Dropped inbound request',
    'Failed to write to the response stream',
    'Uncaught error in notification handler: (?:Zod)?Error: \\[',
  ].join('|')})`,
  'i',
);

/** A client's message may be quoted in the report: at most this much of it is logged. */
const MAX_REASON_CHARACTERS = 200;

export function logSdkError(logger: Logger, err: Error, fields: Record<string, unknown> = {}): void {
  if (CLIENT_MISTAKE.test(err.message)) {
    logger.debug({ ...fields, reason: err.message.slice(0, MAX_REASON_CHARACTERS) }, 'MCP request refused by the protocol layer');
  } else {
    logger.warn({ ...fields, err }, 'MCP protocol layer error');
  }
}
