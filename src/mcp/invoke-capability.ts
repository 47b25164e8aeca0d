/**
 * How the MCP prompts and resources capabilities call operations: through the shared invocation
 * path (authenticate → scope → rate limit → validate → run), exactly as a tool call does, with a
 * refusal thrown as the PorchError the capability turns into a JSON-RPC error.
 */
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';
import { formatZodError } from '../core/validation.js';
import { invokeOperation, isOperationAllowed, type InvocationRequest } from '../operations/invoke.js';
import type { Operation, OperationOutput } from '../operations/operation.js';
import { type McpIdentity, tokenScopeRefusal } from './identity.js';

export interface CapabilityRequest {
  core: Core;
  identity: McpIdentity;
  requestId: string;
  signal: AbortSignal;
}

/**
 * The refusal of path parameters the client sent under other names (a task's `taskId` is get_run's
 * `id`), naming them as it sent them (regression: a bad taskId was told "id: must be a uuid");
 * undefined when they are valid. Reported at the validation step, as a body's problems are.
 */
function paramsProblem(operation: Operation, params: unknown, sentAs: Readonly<Record<string, string>>): PorchError | undefined {
  const parsed = operation.params?.safeParse(params);
  if (parsed === undefined || parsed.success) return undefined;
  const renamed = parsed.error.issues.map((issue) => ({
    ...issue,
    path: issue.path.map((segment) => (typeof segment === 'string' && Object.hasOwn(sentAs, segment) ? (sentAs[segment] ?? segment) : segment)),
  }));
  return new PorchError('VALIDATION_ERROR', `Invalid request: ${formatZodError(new z.ZodError(renamed), { whole: 'params' })}.`);
}

export async function invokeCapability<Op extends Operation>(
  request: CapabilityRequest,
  operation: Op,
  parts: Pick<InvocationRequest, 'params' | 'body'>,
  /** The name the client sent each path parameter under, where it is not the operation's. */
  sentAs: Readonly<Record<string, string>> = {},
): Promise<OperationOutput<Op>> {
  const bodyError = Object.keys(sentAs).length === 0 ? undefined : paramsProblem(operation, parts.params, sentAs);
  const result = await invokeOperation(request.core, operation, {
    credentials: request.identity.credentials,
    authenticated: request.identity.requestCaller,
    ...parts,
    ...(bodyError === undefined ? {} : { bodyError }),
    requestId: request.requestId,
    signal: request.signal,
    door: 'mcp',
    pathStyle: 'plain',
  });
  if (!result.ok) {
    // The operation's own scope check words its refusal for a key; a token is told of its token.
    const caller = request.identity.requestCaller;
    const { error } = result;
    if (
      error.code === 'INSUFFICIENT_PERMISSIONS' &&
      operation.access === 'keyed' &&
      caller?.credential.connectedApp === true &&
      !isOperationAllowed(operation, caller.credential.scopes)
    ) {
      throw tokenScopeRefusal(operation.name, operation.scopes);
    }
    throw error;
  }
  // The invocation path serves every operation, so it types data `unknown`; `run` is typed by
  // the operation's output schema, so the data is that operation's output.
  return result.data as OperationOutput<Op>;
}
