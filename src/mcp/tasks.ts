/**
 * MCP tasks (the `io.modelcontextprotocol/tasks` extension of revision 2026-07-28): an execute
 * tool called by a client that declares the extension answers with a task instead of holding the
 * call open, and the task is the durable run that `Prefer: respond-async` queues over REST. Its
 * id is the run id; `tasks/get` reads the run (get_run), `tasks/cancel` cancels it (cancel_run),
 * both through the shared invocation path, so a task is only ever visible to the account (and the
 * scopes) that may read the run. A finished run's task carries the tool result the synchronous
 * call would have returned, less the rate-limit and credits `_meta`, which describe the request
 * that carries them (the run executed in the queue, in no request); a run that failed with a
 * Porch error is a completed task whose result is that `isError` tool result, as the extension
 * asks (its `failed` status is for JSON-RPC errors only).
 */
import { z } from 'zod';
import { CLIENT_CAPABILITIES_META_KEY, type CallToolResult } from '@modelcontextprotocol/server';
import { errorCodeNamed, PorchError, type ErrorCodeSet } from '../core/errors.js';
import { isRecord } from '../core/validation.js';
import { cancelRun } from '../operations/cancel-run.js';
import { getRun } from '../operations/get-run.js';
import type { OperationOutput } from '../operations/operation.js';
import { invokeCapability, type CapabilityRequest } from './invoke-capability.js';
import { toolDataResult, toolErrorResult } from './to-tool-result.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client should poll a task: the Retry-After a run's own answer asks for. */
export const TASK_POLL_INTERVAL_MS = 1_000;

/** A task's id is its run's: the client sends get_run's and cancel_run's `id` as `taskId`. */
const TASK_ID_PARAMETER = { id: 'taskId' };

const DAY_MS = 86_400_000;

export const taskParamsSchema = z.object({ taskId: z.string().min(1).max(64) });
/** tasks/update carries input responses; Porch's tasks never ask for input, so they are only acknowledged. */
export const taskUpdateParamsSchema = taskParamsSchema.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() });
export const taskResultSchema = z.looseObject({});

type Run = OperationOutput<typeof getRun>;

export type TaskStatus = 'working' | 'completed' | 'cancelled' | 'failed';

const envelopeSchema = z.object({
  [CLIENT_CAPABILITIES_META_KEY]: z.object({ extensions: z.record(z.string(), z.unknown()).optional() }).optional(),
});

/**
 * Whether the request's per-request capabilities (the revision 2026-07-28 `_meta` envelope, which
 * the SDK lifts into `ctx.mcpReq.envelope`) declare the tasks extension. Capabilities declared on
 * an earlier request do not count: the extension asks for them on the request itself.
 */
export function declaresTasks(envelope: unknown): boolean {
  const parsed = envelopeSchema.safeParse(envelope ?? {});
  const extensions = parsed.success ? parsed.data[CLIENT_CAPABILITIES_META_KEY]?.extensions : undefined;
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION);
}

const storedErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * A finished run's result as the tool result the synchronous call would have returned. A run that
 * failed with a Porch error stored that error; a workflow whose node failed stored its answer
 * (status `failed`), which the synchronous call returns as data. A run stores a workflow's trace
 * whether or not it was asked for (get_run shows it); the task, like the call, has it only when
 * the request set include_trace.
 */
function toolResultOfRun(run: Run, errorCodes: ErrorCodeSet): CallToolResult {
  const stored = storedErrorSchema.safeParse(run.result);
  if (run.status === 'failed' && stored.success) {
    // get_run answered the code under the deployment's set: read it back, so the result names it as a synchronous call would.
    const { code, message } = stored.data.error;
    const known = errorCodeNamed(code, errorCodes);
    return toolErrorResult(known ? new PorchError(known, message) : new PorchError('INTERNAL_ERROR', 'An internal error occurred.'), errorCodes);
  }
  if (!isRecord(run.result)) return toolErrorResult(new PorchError('INTERNAL_ERROR', 'An internal error occurred.'), errorCodes);
  const askedForTrace = isRecord(run.inputs) && run.inputs.include_trace === true;
  return toolDataResult(run.kind === 'workflow' && !askedForTrace ? { ...run.result, node_results: [] } : run.result);
}

/**
 * A tool result as a task carries it: in the wire shape of revision 2026-07-28, which the SDK
 * gives a direct answer when it encodes it but cannot give a result nested in a task.
 */
function wireToolResult(result: CallToolResult): Record<string, unknown> {
  return { resultType: 'complete', ...result };
}

/** The task of a run as `tasks/get` answers it, with the result inlined once the run ended. */
export function taskOfRun(run: Run, retentionDays: number, errorCodes: ErrorCodeSet): Record<string, unknown> {
  const base = {
    taskId: run.id,
    createdAt: run.created_at,
    lastUpdatedAt: run.finished_at ?? run.started_at ?? run.created_at,
    ttlMs: retentionDays * DAY_MS,
  };
  switch (run.status) {
    case 'queued':
    case 'running':
      return {
        ...base,
        status: 'working',
        statusMessage: run.status === 'queued' ? 'Queued: waiting for a Porch process to start it.' : 'Running.',
        pollIntervalMs: TASK_POLL_INTERVAL_MS,
      };
    case 'cancelled':
      return { ...base, status: 'cancelled', statusMessage: 'Cancelled by its owner.' };
    case 'completed':
    case 'failed': {
      if (!run.payload_available) {
        const pruned = toolErrorResult(new PorchError('RESOURCE_NOT_FOUND', 'The run ended and its result was pruned by retention.'), errorCodes);
        return { ...base, status: 'completed', result: wireToolResult(pruned) };
      }
      const result = toolResultOfRun(run, errorCodes);
      return { ...base, status: 'completed', statusMessage: run.status === 'completed' ? 'Completed.' : 'Failed.', result: wireToolResult(result) };
    }
  }
}

/**
 * The task a just-queued run starts as (`CreateTaskResult`): durable already, so tasks/get finds
 * it. It is the answer of a tools/call, which the SDK types as a CallToolResult only: the
 * extension's result is not in its types, though its revision 2026-07-28 encoder forwards a
 * tools/call answer's `resultType` unchanged (the extension's polymorphic result).
 */
export async function createdTask(request: CapabilityRequest, runId: string, errorCodes: ErrorCodeSet): Promise<CallToolResult> {
  const run = await invokeCapability(request, getRun, { params: { id: runId } });
  const task: Record<string, unknown> = { resultType: 'task', ...taskOfRun(run, request.core.settings.runRetentionDays, errorCodes) };
  return task as unknown as CallToolResult;
}

export async function getTask(request: CapabilityRequest, taskId: string, errorCodes: ErrorCodeSet): Promise<Record<string, unknown>> {
  const run = await invokeCapability(request, getRun, { params: { id: taskId } }, TASK_ID_PARAMETER);
  return taskOfRun(run, request.core.settings.runRetentionDays, errorCodes);
}

/**
 * Cancelling is acknowledged with an empty result whatever the run's state: the extension makes
 * cancellation cooperative, and a run that already ended simply stays as it ended (cancel_run's
 * 409 for it is not the client's error here). An unknown task is an error.
 */
export async function cancelTask(request: CapabilityRequest, taskId: string): Promise<Record<string, never>> {
  try {
    await invokeCapability(request, cancelRun, { params: { id: taskId } }, TASK_ID_PARAMETER);
  } catch (err) {
    if (!(err instanceof PorchError && err.code === 'CONFLICT')) throw err;
  }
  return {};
}

/** tasks/update: nothing is ever outstanding, so input responses are ignored once the task is known to exist. */
export async function updateTask(request: CapabilityRequest, taskId: string): Promise<Record<string, never>> {
  await invokeCapability(request, getRun, { params: { id: taskId } }, TASK_ID_PARAMETER);
  return {};
}
