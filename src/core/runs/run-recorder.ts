/**
 * Records every execution of a workflow, composition, skill or persona as a run: what ran, for
 * whom, how it ended, what it cost, and its payload (the inputs and the result or trace) until
 * retention drops it. The execute methods call `record` once each, after the execution ended; the
 * run's webhook event (`run.completed` or `run.failed`) is written in the same transaction.
 *
 * An execution its caller stopped (the client went away, the MCP call or the queued run was
 * cancelled) did not fail: its run ends `cancelled`, which sends no webhook, and its result holds
 * no error code, as those codes mean a fault to retry (`AI_SERVICE_ERROR`) or an outage
 * (`SERVICE_UNAVAILABLE`). See `cancelledResult`.
 *
 * A run the store cannot take when it ends (it is out of reach) is recorded once it is back; its
 * request answers the store's error meanwhile (503). See `withheldResult`.
 */
import { type RunKind, type RunRecord, type RunRepository, StoreUnavailableError } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { TokenUsage } from '../ai/ai-types.js';
import type { Clock } from '../clock.js';
import { type DeferredWrites, isStoreUnavailable } from '../deferred-writes.js';
import { isCallStop, PorchError, toPorchError } from '../errors.js';
import { stoppedByCaller } from '../engine/run-workflow.js';
import { newId } from '../ids.js';
import { runFinishedEvents } from '../webhooks/events.js';

export interface RunOutcome {
  kind: RunKind;
  resourceId: string;
  /** The version of the resource that ran. */
  version: number;
  /** The id to store it under: a workflow's own run id; a new one otherwise. */
  runId?: string;
  status: 'completed' | 'failed';
  model: string | null;
  usage: TokenUsage;
  chargedTokens: number;
  durationMs: number;
  inputs: unknown;
  result: unknown;
}

const NO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/** The results `failedResult` made for an execution its caller stopped (see `endedByCaller`). */
const resultsOfStops = new WeakSet<object>();

/**
 * A failed execution's result as a run keeps it: the error's code and safe message, never a stack.
 * The store out of reach is SERVICE_UNAVAILABLE, as the request would have answered, not a fault.
 */
export function failedResult(err: unknown): { error: { code: string; message: string } } {
  const error =
    err instanceof PorchError || err instanceof StoreUnavailableError ? toPorchError(err) : new PorchError('INTERNAL_ERROR', 'The execution failed.');
  const result = { error: { code: error.code, message: error.message } };
  if (isCallStop(err)) resultsOfStops.add(result);
  return result;
}

/**
 * Whether a failed execution was stopped by its caller rather than failing: its call ended with
 * a CallStopped (the client went away, the MCP call was cancelled), or its workflow was stopped
 * with nothing failed (`stoppedByCaller`).
 */
export function endedByCaller(outcome: { status: string; result: unknown }): boolean {
  if (outcome.status !== 'failed') return false;
  const { result } = outcome;
  return (typeof result === 'object' && result !== null && resultsOfStops.has(result)) || stoppedByCaller(result);
}

/**
 * What a cancelled run keeps as its result: nothing for a single call (the call's error would be
 * a code that means a provider fault); a workflow's answer as it stood, its completed nodes with
 * their outputs and usage, the nodes the stop cut off or never started `skipped`, and no error.
 */
export function cancelledResult(result: unknown): unknown {
  return typeof result === 'object' && result !== null && 'error' in result ? null : result;
}

/**
 * The result of a run whose request answered the store's error `err` (503) because the run could
 * not be recorded: the error, as for any failed run; a workflow's answer keeps its trace besides,
 * so the nodes that completed, and were charged, before the outage show in it.
 */
function withheldResult(kind: RunKind, result: unknown, err: unknown): unknown {
  const failed = failedResult(err);
  return kind === 'workflow' && typeof result === 'object' && result !== null ? { ...result, status: 'failed', ...failed } : failed;
}

/** How a run ended, as the run's columns hold it: the same for a run recorded in its request and a queued run's final write. */
export function outcomeColumns<Status extends string>(outcome: {
  status: Status;
  model: string | null;
  usage: TokenUsage;
  chargedTokens: number;
  durationMs: number;
}) {
  return {
    status: outcome.status,
    model: outcome.model,
    inputTokens: outcome.usage.input_tokens,
    outputTokens: outcome.usage.output_tokens,
    totalTokens: outcome.usage.total_tokens,
    chargedTokens: outcome.chargedTokens,
    durationMs: outcome.durationMs,
  };
}

/** `deferredWrites`: where the record of a run the store could not take waits for it. */
export function createRunRecorder(runs: RunRepository, clock: Clock, deferredWrites: DeferredWrites) {
  return {
    NO_USAGE,
    /**
     * `signal`: the request's; a failed run whose caller stopped it is `cancelled`, as a queued run
     * its owner cancelled is, whatever its nodes did first. With the store out of reach, the run
     * is recorded once it is back, failed with the store's error (unless its caller stopped it),
     * and that error is thrown for the request to answer: what the execution was charged before
     * the outage stays charged, and the run says so (regression: no run was ever recorded, while
     * the usage records of its charged calls named it).
     */
    async record(caller: Caller, outcome: RunOutcome, signal?: AbortSignal): Promise<string> {
      const id = outcome.runId ?? newId();
      const finishedAt = clock.now();
      const cancelled = endedByCaller(outcome) || (outcome.status === 'failed' && signal?.aborted === true && isCallStop(signal.reason));
      // Executed in its request: it was created when the request's execution started, and was never queued.
      const startedAt = finishedAt - outcome.durationMs;
      const run: RunRecord = {
        id,
        accountId: caller.account.id,
        keyId: caller.credential.id,
        keyKind: caller.credential.kind,
        kind: outcome.kind,
        resourceId: outcome.resourceId,
        version: outcome.version,
        ...outcomeColumns(outcome),
        status: cancelled ? 'cancelled' : outcome.status,
        createdAt: startedAt,
        payload: { inputs: outcome.inputs, result: cancelled ? cancelledResult(outcome.result) : outcome.result },
        attempts: 0,
        claimedBy: null,
        startedAt,
        finishedAt,
        cancelRequestedAt: null,
        // Its spans are in its request's trace already.
        traceContext: null,
      };
      // run.completed / run.failed are written with the run, in its transaction (the outbox).
      try {
        await runs.insert(run, runFinishedEvents(run, finishedAt));
      } catch (err) {
        if (!isStoreUnavailable(err)) throw err;
        const withheld: RunRecord = cancelled
          ? run
          : { ...run, status: 'failed', payload: { inputs: outcome.inputs, result: withheldResult(outcome.kind, outcome.result, err) } };
        await deferredWrites.attempt(`the record of run ${id}`, () => runs.insert(withheld, runFinishedEvents(withheld, finishedAt)));
        throw err;
      }
      return id;
    },
  };
}

export type RunRecorder = ReturnType<typeof createRunRecorder>;
