/** Answers malformed request params with -32602 before the SDK reports them as internal errors. */
import {
  isSpecType,
  type JSONRPCMessage,
  type JSONRPCErrorResponse,
  type MessageExtraInfo,
  ProtocolErrorCode,
  type Transport,
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
 * A transport that answers malformed requests itself (see malformedParamsError) and passes every
 * other message to the transport it wraps; for connections whose transport the SDK's serving
 * entry owns (stdio), where nothing else sits between the wire and the protocol layer.
 */
export class ParamsCheckingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refusal = malformedParamsError(message);
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
