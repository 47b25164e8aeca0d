/**
 * Answers for requests Node's HTTP parser refuses before Express sees them (a malformed request
 * line or header, headers beyond the size limit) or cuts off at its timeouts (headers or a body
 * that did not arrive in time), in the error envelope and with X-API-Version like every other
 * answer (DECISIONS.md, Headers), instead of Node's bare status lines.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_TABLE, PorchError, type ErrorCodeSet } from '../core/errors.js';
import { API_VERSION } from '../core/health.js';
import { errorEnvelope } from '../operations/envelope.js';

/** The status of a request whose headers or body did not arrive within the server's timeouts (REQUEST_TIMEOUT). */
export const REQUEST_TIMEOUT_STATUS = ERROR_TABLE.REQUEST_TIMEOUT.status;

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

function errorFor(code: string | undefined): PorchError {
  if (code === 'HPE_HEADER_OVERFLOW') return new PorchError('HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts.');
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return new PorchError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.');
  return new PorchError('VALIDATION_ERROR', 'The request could not be parsed: its request line or a header is malformed.');
}

/** A request Porch is reading on a connection: what a timeout cutting it off answers and logs with. */
export interface RequestOnConnection {
  readonly requestId: string;
  readonly response: ServerResponse;
  /** Set when the server's request timeout cut the request off: its access line and metric then say 408. */
  timedOut: boolean;
}

/**
 * The latest request each connection opened. Node's timeout reaches only the `clientError`
 * listener, with the socket: this is how the listener answers with the request's own id, and how
 * the request's access line learns why it ended (regression: logged and counted as 499, the
 * client's doing). Entries go with their sockets.
 */
const requestsOnConnections = new WeakMap<object, RequestOnConnection>();

/** Records `req` as its connection's request, until the connection opens another. */
export function trackRequestOnConnection(req: IncomingMessage, res: ServerResponse, requestId: string): RequestOnConnection {
  const request: RequestOnConnection = { requestId, response: res, timedOut: false };
  requestsOnConnections.set(req.socket, request);
  return request;
}

/** The request a connection is still reading or answering; undefined between requests. */
function openRequestOn(socket: object): RequestOnConnection | undefined {
  const request = requestsOnConnections.get(socket);
  return request === undefined || request.response.writableFinished ? undefined : request;
}

function rawResponse(
  error: PorchError,
  codeSet: ErrorCodeSet,
  extraHeaders: readonly string[] = [],
  { requestId = randomUUID() }: { requestId?: string } = {},
): string {
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

/** The answer to a request cut off at the server's timeouts, with the id of the request it cuts off when there is one. */
function requestTimeoutResponse(codeSet: ErrorCodeSet, request: RequestOnConnection | undefined): string {
  const error = new PorchError(
    'REQUEST_TIMEOUT',
    request === undefined
      ? 'The request did not arrive within the time the server allows; send the whole request again, without pauses.'
      : 'The request body did not arrive in time (less of it came than its Content-Length announced, or a chunked body did not end); send the whole request again.',
  );
  return rawResponse(error, codeSet, [], request === undefined ? {} : { requestId: request.requestId });
}

/**
 * The http server's `clientError` listener. Like Node's default it answers only a connection that
 * has not been answered yet and is still writable, then destroys it; a reset connection gets
 * nothing. A request cut off at the timeouts is answered 408 in the envelope, and when Porch had
 * already opened it (its body was late), its access line and metric say 408 too.
 */
export function answerClientError(codeSet: ErrorCodeSet): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const request = openRequestOn(socket);
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (request !== undefined && timedOut) request.timedOut = true;
    // A connection that served earlier requests has written bytes already; what matters then is
    // whether the request at hand has begun its answer.
    const unanswered =
      socket.writable &&
      (request === undefined
        ? !('bytesWritten' in socket && typeof socket.bytesWritten === 'number' && socket.bytesWritten > 0)
        : !request.response.headersSent);
    if (unanswered && err.code !== 'ECONNRESET') {
      socket.write(timedOut ? requestTimeoutResponse(codeSet, request) : rawResponse(errorFor(err.code), codeSet));
    }
    socket.destroy(err);
  };
}
