/**
 * How a queued run is executed: by the very operation that would have answered it in its request,
 * so an asynchronous run checks, runs and answers exactly like a synchronous one. Its stored input
 * is parsed again at this boundary, against the operation's schemas of today, and the version it
 * was queued for replaces any label it named.
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
    return operation.run(input, {
      core,
      caller,
      requestId: run.id,
      idempotencyKey: undefined,
      signal: hooks.signal ?? new AbortController().signal,
      queuedRun: hooks.queuedRun,
    });
  };
}
