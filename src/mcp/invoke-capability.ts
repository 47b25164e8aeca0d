/**
 * How the MCP prompts and resources capabilities call operations: through the shared invocation
 * path (authenticate → scope → rate limit → validate → run), exactly as a tool call does, with a
 * refusal thrown as the PorchError the capability turns into a JSON-RPC error.
 */
import type { Core } from '../core/core.js';
import { invokeOperation, type InvocationRequest } from '../operations/invoke.js';
import type { Operation, OperationOutput } from '../operations/operation.js';
import type { McpIdentity } from './identity.js';

export interface CapabilityRequest {
  core: Core;
  identity: McpIdentity;
  requestId: string;
  signal: AbortSignal;
}

export async function invokeCapability<Op extends Operation>(
  request: CapabilityRequest,
  operation: Op,
  parts: Pick<InvocationRequest, 'params' | 'body'>,
): Promise<OperationOutput<Op>> {
  const result = await invokeOperation(request.core, operation, {
    credentials: request.identity.credentials,
    authenticated: request.identity.requestCaller,
    ...parts,
    requestId: request.requestId,
    signal: request.signal,
    door: 'mcp',
    pathStyle: 'plain',
  });
  if (!result.ok) throw result.error;
  // The invocation path serves every operation, so it types data `unknown`; `run` is typed by
  // the operation's output schema, so the data is that operation's output.
  return result.data as OperationOutput<Op>;
}
