/** Answers malformed request params with -32602 before the SDK reports them as internal errors. */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's schema of each request Porch answers (the SDK's own `initialize` and `ping` too), to
 * check a request's params before the SDK does.
 */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/templates/list', ListResourceTemplatesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
]);

/**
 * The SDK parses a request's params inside the handler and reports a schema failure as -32603
 * Internal error, with the raw validation issues as the message (regressions: the fuzzer sent
 * `tools/call` with `"arguments": true`, and `initialize` without a protocol version, and got an
 * internal error). Malformed params are the
 * client's fault: this answers them -32602 Invalid params before the SDK sees them. Call it after
 * `server.connect(transport)`, which is when the transport's message handler is set.
 */
export function refuseMalformedParams(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const schema = REQUEST_SCHEMAS.get(message.method);
      if (schema && !schema.safeParse(message).success) {
        void transport.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: see the method's schema in the MCP specification.` },
        });
        return;
      }
    }
    deliver(message, extra);
  };
}
