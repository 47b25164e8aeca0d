/**
 * How a queued run is executed: by the very operation that would have answered it in its request,
 * so an asynchronous run checks, runs and answers exactly like a synchronous one. Its stored input
 * is parsed again at this boundary, against the operation's schemas of today, and the version it
 * was queued for replaces any label it named.
 *
 * It runs in a scope of its own, bound to its caller as a request's is, whose span continues the
 * trace of the request that queued it (kept with the run): otherwise the execution, its nodes and
 * its model calls would each start a trace of their own, and no provider would see the caller's.
 */
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';
import type { QueuedRunExecutor } from '../core/runs/run-queue.js';
import type { RunKind } from '../db/store.js';
import { parseOperationInput } from './invoke.js';
import type { AnyKeyedOperation, Operation } from './operation.js';

export function queuedRunExecutor(core: Core, operations: readonly Operation[]): QueuedRunExecutor {
  const byKind = new Map<RunKind, AnyKeyedOperation>();
  for (const operation of operations) if (operation.access === 'keyed' && operation.runKind) byKind.set(operation.runKind, operation);
  return async (run, caller, hooks) => {
    const operation = byKind.get(run.kind);
    if (!operation) throw new PorchError('INTERNAL_ERROR', `No operation executes runs of kind ${run.kind}.`);
    const stored = run.payload?.inputs;
    const body = { ...(typeof stored === 'object' && stored !== null ? stored : {}), version: run.version ?? undefined, label: undefined };
    const input = parseOperationInput(operation, { params: { id: run.resourceId }, body, pathStyle: 'plain' });
    const attributes = { 'porch.operation': operation.name, 'porch.run.id': run.id, 'porch.run.attempt': run.attempts };
    const signal = hooks.signal ?? new AbortController().signal;
    return core.telemetry.queuedRun(run.id, run.traceContext, `process ${operation.name}`, { attributes, signal }, (scope) => {
      core.telemetry.setCaller(scope, caller);
      return operation.run(input, {
        core,
        caller,
        requestId: run.id,
        idempotencyKey: undefined,
        signal,
        queuedRun: hooks.queuedRun,
      });
    });
  };
}
