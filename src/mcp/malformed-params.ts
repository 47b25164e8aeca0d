/**
 * Requests answered before the SDK sees them: malformed params (-32602, which the SDK would report
 * as internal errors) and, on stdio, revisions Porch does not serve.
 */
import {
  isSpecType,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Transport,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';

type RequestCheck = (message: unknown) => boolean;

/**
 * The SDK's check of each request Porch answers (the SDK's own `initialize`, `server/discover`
 * and `ping` too), to check a request's params before the SDK does.
 */
const REQUEST_CHECKS = new Map<string, RequestCheck>([
  ['initialize', isSpecType.InitializeRequest],
  ['server/discover', isSpecType.DiscoverRequest],
  ['ping', isSpecType.PingRequest],
  ['tools/list', isSpecType.ListToolsRequest],
  ['tools/call', isSpecType.CallToolRequest],
  ['prompts/list', isSpecType.ListPromptsRequest],
  ['prompts/get', isSpecType.GetPromptRequest],
  ['resources/list', isSpecType.ListResourcesRequest],
  ['resources/templates/list', isSpecType.ListResourceTemplatesRequest],
  ['resources/read', isSpecType.ReadResourceRequest],
  ['completion/complete', isSpecType.CompleteRequest],
]);

/** Requests revision 2026-07-28 removed (the handshake and liveness ping). */
const REMOVED_IN_2026 = new Set(['initialize', 'ping']);

/**
 * The SDK parses most requests' params inside the handler and reports a schema failure as -32603
 * Internal error, with the raw validation issues as the message (regressions: the fuzzer sent
 * `tools/call` with `"arguments": true`, and `initialize` without a protocol version, and got an
 * internal error). Malformed params are the client's fault: this is the -32602 Invalid params
 * answer for such a request, or null when the message is not a request Porch checks or is fine.
 */
export function malformedParamsError(message: unknown, era: 'legacy' | 'modern' = 'legacy'): JSONRPCErrorResponse | null {
  if (!isSpecType.JSONRPCRequest(message)) return null;
  // Revision 2026-07-28 removed these: the SDK answers them as unknown methods, whatever their params.
  if (era === 'modern' && REMOVED_IN_2026.has(message.method)) return null;
  const check = REQUEST_CHECKS.get(message.method);
  if (!check || check(message)) return null;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params for ${message.method}: see the method's schema in the MCP specification.` },
  };
}

/**
 * The revisions a request with a per-request envelope may name (those of the 2026 era); the 2025
 * revisions are negotiated once, by initialize, and never named per request.
 */
export const ENVELOPE_REVISIONS: readonly string[] = ['2026-07-28'];

/**
 * A request whose per-request envelope names a revision Porch does not serve: answered with
 * UnsupportedProtocolVersionError naming the ones it does (SEP-2575). Over HTTP the SDK checks
 * every request; its stdio entry checks only the connection's opening message, so a stdio
 * connection checks each later one here.
 */
export function unsupportedRevisionError(message: unknown): JSONRPCErrorResponse | null {
  if (!isSpecType.JSONRPCRequest(message)) return null;
  const requested = message.params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof requested !== 'string' || ENVELOPE_REVISIONS.includes(requested)) return null;
  const error = new UnsupportedProtocolVersionError({ supported: [...ENVELOPE_REVISIONS], requested });
  return { jsonrpc: '2.0', id: message.id, error: { code: error.code, message: error.message, data: error.data } };
}

/**
 * A transport that answers malformed requests (see malformedParamsError) and requests naming a
 * revision Porch does not serve (unsupportedRevisionError) itself, and passes every other message
 * to the transport it wraps; for connections whose transport the SDK's serving entry owns (stdio),
 * where nothing else sits between the wire and the protocol layer.
 */
export class ParamsCheckingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refusal = unsupportedRevisionError(message) ?? malformedParamsError(message);
      if (refusal) {
        inner.send(refusal).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
        return;
      }
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(...args: Parameters<Transport['send']>): Promise<void> {
    return this.inner.send(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }
}
