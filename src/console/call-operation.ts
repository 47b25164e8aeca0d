/**
 * How the console does anything: it calls an operation, by name, as the signed-in account,
 * through the same invocation path as REST and MCP (scope, rate limit, validation, run). The
 * console therefore holds no business rule, and its errors are the API's messages.
 */
import type { Request, Response } from 'express';
import type { Core } from '../core/core.js';
import { CallStopped, PorchError } from '../core/errors.js';
import { type InvocationMeta, invokeOperation } from '../operations/invoke.js';
import { exposedOn, type Operation, type OutputOf } from '../operations/operation.js';
import type { SignedIn } from './session.js';

export type CallResult<Data = unknown> = { ok: true; data: Data; meta: InvocationMeta } | { ok: false; error: PorchError };

export interface OperationCaller {
  /**
   * Calls an operation with `input` (its params, query and body fields together), typed by the
   * operation's output schema. Only operations the console door exposes can be called.
   */
  call<Op extends Operation>(operation: Op, input?: Record<string, unknown>): Promise<CallResult<OutputOf<Op['output']>>>;
}

/**
 * One flat input split into the operation's parts as REST would send them: path and query fields
 * by their schemas' keys, everything else the body (whose schema may be strict about extra keys).
 */
function splitInput(operation: Operation, input: Record<string, unknown>): { params?: unknown; query?: unknown; body?: unknown } {
  const paramKeys = new Set(Object.keys(operation.params?.shape ?? {}));
  const queryKeys = new Set(Object.keys(operation.query?.shape ?? {}));
  const pick = (keep: (key: string) => boolean) => Object.fromEntries(Object.entries(input).filter(([key]) => keep(key)));
  return {
    params: pick((key) => paramKeys.has(key)),
    query: pick((key) => queryKeys.has(key)),
    body: operation.body ? pick((key) => !paramKeys.has(key) && !queryKeys.has(key)) : undefined,
  };
}

export function operationCaller(core: Core, operations: readonly Operation[], signedIn: SignedIn | null, req: Request, res: Response): OperationCaller {
  // By name: the list the door was given may wrap the definitions (the tests' output checks).
  const exposed = new Map<string, Operation>(exposedOn(operations, 'console').map((operation) => [operation.name, operation]));
  return {
    async call<Op extends Operation>(operation: Op, input: Record<string, unknown> = {}): Promise<CallResult<OutputOf<Op['output']>>> {
      const target = exposed.get(operation.name);
      if (!target) return { ok: false, error: new PorchError('NOT_FOUND', `The console does not expose ${operation.name}.`) };
      if (target.access === 'keyed' && signedIn === null) return { ok: false, error: new PorchError('MISSING_API_KEY', 'Sign in first.') };
      const controller = new AbortController();
      const abort = () => controller.abort(new CallStopped('the page was closed'));
      req.once('close', abort);
      try {
        const result = await invokeOperation(core, target, {
          credentials: { apiKey: undefined },
          authenticated: signedIn?.caller,
          ...splitInput(target, input),
          requestId: String(res.locals.requestId ?? ''),
          signal: controller.signal,
          door: 'console',
          scope: res.locals.scope,
          pathStyle: 'plain',
        });
        // The invocation path checked `run`'s answer against the operation's output type.
        return result.ok ? { ok: true, data: result.data as OutputOf<Op['output']>, meta: result.meta } : { ok: false, error: result.error };
      } finally {
        req.off('close', abort);
      }
    },
  };
}
