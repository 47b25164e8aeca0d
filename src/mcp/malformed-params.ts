/**
 * Requests answered before the SDK sees them: malformed params (-32602, which the SDK would report
 * as internal errors, or as a message that is not JSON-RPC) and revisions Porch does not serve
 * (on stdio, and over HTTP those only named in the Mcp-Protocol-Version header).
 */
import {
  type InboundClassificationOutcome,
  isSpecType,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import { formatIssue, isRecord, PROTO_KEY_MESSAGE } from '../core/validation.js';

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

/** The tasks extension's methods, whose params the server's own schemas check (create-mcp-server.ts). */
const TASK_METHODS = ['tasks/get', 'tasks/cancel', 'tasks/update'];

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
  if (!check) return null;
  if (!check(message)) return invalidParams(message.id, `Invalid params for ${message.method}: see the method's schema in the MCP specification.`);
  const args: unknown = message.params?.arguments;
  if (isRecord(args) && Object.hasOwn(args, FORBIDDEN_NAME)) {
    return invalidParams(
      message.id,
      `Invalid params for ${message.method}: ${formatIssue({ path: ['arguments', FORBIDDEN_NAME], message: PROTO_KEY_MESSAGE })}.`,
    );
  }
  return null;
}

/**
 * What MCP asks of every request's params beyond JSON-RPC, which also allows them as an array (by
 * position): an object, whose `_meta` is an object, whose `progressToken` is a string or an
 * integer. The first problem, in Porch's words for validation problems; undefined when there is none.
 */
function requestParamsProblem(params: unknown): string | undefined {
  if (!isRecord(params)) return formatIssue({ path: [], message: 'must be an object' }, { whole: 'params' });
  const meta = params._meta;
  if (meta === undefined) return undefined;
  if (!isRecord(meta)) return formatIssue({ path: ['_meta'], message: 'must be an object' });
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) {
    return formatIssue({ path: ['_meta', 'progressToken'], message: 'must be a string or an integer' });
  }
  return undefined;
}

/**
 * The -32602 Invalid params answer to a request that JSON-RPC reads as one but whose params MCP
 * refuses (an array, a progress token that is an object), for a method Porch serves; null for
 * anything else. The SDK's check of a message takes such a request for no JSON-RPC message at
 * all, and answered it 400 with -32600 (regression: `"_meta": {"progressToken": {"a": 1}}` and
 * `"params": ["analyze_prompt"]` were told the body was not JSON-RPC).
 */
export function malformedRequestParamsError(message: unknown): JSONRPCErrorResponse | null {
  if (!isRecord(message) || message.params === null || typeof message.params !== 'object' || isSpecType.JSONRPCRequest(message)) return null;
  const { params, ...rest } = message;
  // Only the params are at fault when the message is a request without them.
  if (!isSpecType.JSONRPCRequest(rest) || !(REQUEST_CHECKS.has(rest.method) || TASK_METHODS.includes(rest.method))) return null;
  const problem = requestParamsProblem(params) ?? "see the method's schema in the MCP specification";
  return invalidParams(rest.id, `Invalid params for ${rest.method}: ${problem}.`);
}

/**
 * The member name no input may use (core/validation.ts). The SDK copies a call's arguments by
 * assignment before a tool or prompt sees them, which drops an argument of this name (or makes
 * its value the copy's prototype), so nothing after the SDK could refuse it as REST refuses it in
 * a body (regression: create_context_card with it succeeded, the argument silently gone). It is
 * refused here, from the request as it arrived; one deeper in the arguments reaches the tool,
 * which refuses it as REST does.
 */
const FORBIDDEN_NAME = '__proto__';

function invalidParams(id: RequestId, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidParams, message } };
}

/**
 * The revisions a request with a per-request envelope may name (those of the 2026 era); the 2025
 * revisions are negotiated once, by initialize, and never named per request.
 */
export const ENVELOPE_REVISIONS: readonly string[] = ['2026-07-28'];

/**
 * The revisions an unsupported-version refusal lists: those served per request, the ones
 * `server/discover` announces. The 2026-07-28 versioning page shows a server of both eras listing
 * a 2025 revision too, but the official conformance suite holds the list to what `server/discover`
 * announces (the SDK's own, the 2026 revisions), so the two stay the same.
 */
function unsupportedRevision(id: RequestId | undefined, requested: string): JSONRPCErrorResponse {
  const error = new UnsupportedProtocolVersionError({ supported: [...ENVELOPE_REVISIONS], requested });
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code: error.code, message: error.message, data: error.data } };
}

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
  return unsupportedRevision(message.id, requested);
}

/**
 * Over HTTP, the refusal of a request without an envelope whose Mcp-Protocol-Version header names
 * a revision Porch serves in neither era (`2099-01-01`, `zzz`): UnsupportedProtocolVersionError,
 * as for an envelope naming it. Null for any other request. The SDK takes such a header for a
 * 2026-era request and refuses it for its missing `_meta`, which sends a client to fix its envelope
 * rather than to choose a revision Porch serves (regression). A header naming a 2025-era date
 * Porch does not serve (`2024-01-01`) is a legacy request, refused in the legacy wording.
 */
export function unservedRevisionError(route: InboundClassificationOutcome, headerRevision: string | undefined, body: unknown): JSONRPCErrorResponse | null {
  if (route.kind !== 'reject' || route.cell !== 'modern-header-without-claim') return null;
  if (headerRevision === undefined || ENVELOPE_REVISIONS.includes(headerRevision) || SUPPORTED_PROTOCOL_VERSIONS.includes(headerRevision)) return null;
  return unsupportedRevision(isSpecType.JSONRPCRequest(body) ? body.id : undefined, headerRevision);
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
