/**
 * A 2025-era request answered with one JSON body, served without the SDK's Streamable HTTP
 * transport. That transport converts every Node request and response to web-standard
 * `Request`/`Response` objects and back, which was the largest cost of an MCP call that REST does
 * not pay (bench/RESULTS-NOTES.md, MCP); this one hands the parsed message to the server and
 * writes the server's response on the Node response.
 *
 * It serves only what it answers exactly as the SDK's transport does: one request (not a
 * notification, a response, a batch or `initialize`) in a JSON body the client sent accepting
 * both JSON and event streams. Everything else, and every refusal of those headers or of the
 * body, stays with the SDK's transport, so its checks and their order are unchanged.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@modelcontextprotocol/server';

/**
 * The request in the body when this transport can serve it, else undefined. The message is the
 * SDK's own parse of the body (as its transport hands the server), so the server sees the same.
 */
export function jsonExchangeRequest(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  const accept = headers.accept;
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(body);
  } catch {
    // Not a JSON-RPC message: the SDK's transport answers it (-32700).
    return undefined;
  }
  if (!isJSONRPCRequest(message) || message.method === 'initialize') return undefined;
  return message;
}

/**
 * One request, one JSON response, on a Node response. A transport serves one request at a time;
 * `reset` hands it the next one's response, so the server connected to it can be kept and
 * reused (http.ts pools them) instead of built per request.
 */
export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Called once the request's response was written (or would have been, had the client stayed). */
  onanswered?: () => void;

  /** The server's revisions (it hands them over on connect); the SDK's list until then. */
  private supportedVersions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private requestId: RequestId | undefined;
  private closed = false;
  private written = false;

  constructor(private res: ServerResponse) {}

  /** Whether the response was written: after that, the exchange has nothing left to close. */
  get answered(): boolean {
    return this.written;
  }

  /** Whether the transport was closed: its server is done, and must not serve another request. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether this is the response the transport is serving now (not one it served before). */
  isServing(res: ServerResponse): boolean {
    return this.res === res;
  }

  /** Takes the next request's response; only once the request it served (if any) was answered. */
  reset(res: ServerResponse): void {
    if (this.requestId !== undefined && !this.written) throw new Error('A JSON exchange was reset before its response was written.');
    this.res = res;
    this.written = false;
    this.requestId = undefined;
  }

  async start(): Promise<void> {}

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedVersions = versions;
  }

  /**
   * Hands the request to the connected server, whose response `send` writes. A revision header
   * the server does not speak is refused first, in the words and status of the SDK's transport.
   */
  serve(request: JSONRPCRequest, protocolVersionHeader: string | undefined): void {
    if (protocolVersionHeader !== undefined && !this.supportedVersions.includes(protocolVersionHeader)) {
      const message = `Bad Request: Unsupported protocol version: ${protocolVersionHeader} (supported versions: ${this.supportedVersions.join(', ')})`;
      this.onerror?.(new Error(message));
      this.write(400, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
      return;
    }
    this.requestId = request.id;
    this.onmessage?.(request, {});
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // A JSON answer carries only the response: notifications and requests to the client have no
    // stream to go on, and the SDK's transport drops them too in this mode.
    if (!('result' in message) && !('error' in message)) return;
    if (message.id === undefined || message.id !== this.requestId) throw new Error(`No connection established for request ID: ${String(message.id)}`);
    this.write(200, message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private write(status: number, body: unknown): void {
    this.written = true;
    // The client may have gone; there is no one to answer then.
    if (!this.res.writableEnded && !this.res.destroyed) {
      this.res.statusCode = status;
      this.res.setHeader('Content-Type', 'application/json');
      this.res.end(JSON.stringify(body));
    }
    this.onanswered?.();
  }
}
