/**
 * Answers for requests Node's HTTP parser refuses before Express sees them (a malformed request
 * line or header, headers beyond the size limit), in the error envelope and with X-API-Version
 * like every other answer (DECISIONS.md, Headers), instead of Node's bare status lines.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ERROR_TABLE, PorchError, type ErrorCodeSet } from '../core/errors.js';
import { API_VERSION } from '../core/health.js';
import { errorEnvelope } from '../operations/envelope.js';

/** Node's own answer to a request whose headers or body did not arrive in time (kept as Node writes it). */
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

function errorFor(code: string | undefined): PorchError {
  if (code === 'HPE_HEADER_OVERFLOW') return new PorchError('HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts.');
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return new PorchError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.');
  return new PorchError('VALIDATION_ERROR', 'The request could not be parsed: its request line or a header is malformed.');
}

function rawResponse(error: PorchError, codeSet: ErrorCodeSet, extraHeaders: readonly string[] = []): string {
  const requestId = randomUUID();
  const status = ERROR_TABLE[error.code].status;
  const body = JSON.stringify(errorEnvelope(error, requestId, codeSet));
  return [
    `HTTP/1.1 ${status} ${REASON_PHRASES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-API-Version: ${API_VERSION}`,
    `X-Request-Id: ${requestId}`,
    ...extraHeaders,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The http server's `connect` listener: Porch is no proxy, so CONNECT is 405 in the envelope
 * (without a listener Node closes the connection with no answer at all).
 */
export function answerConnect(codeSet: ErrorCodeSet): (req: unknown, socket: Duplex) => void {
  return (_req, socket) => {
    socket.on('error', () => undefined);
    socket.end(
      rawResponse(new PorchError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed: Porch is not a proxy.'), codeSet, [
        'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      ]),
    );
  };
}

/**
 * The http server's `clientError` listener. Like Node's default it answers only a connection that
 * has not been answered yet and is still writable, then destroys it; a reset connection gets
 * nothing, and a timed-out request keeps Node's plain 408.
 */
export function answerClientError(codeSet: ErrorCodeSet): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const unanswered = socket.writable && !('bytesWritten' in socket && typeof socket.bytesWritten === 'number' && socket.bytesWritten > 0);
    if (unanswered && err.code !== 'ECONNRESET') {
      socket.write(err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? REQUEST_TIMEOUT_RESPONSE : rawResponse(errorFor(err.code), codeSet));
    }
    socket.destroy(err);
  };
}
