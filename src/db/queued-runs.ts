/** The row of a run as it enters the queue, shared by both engines: nothing has run, nothing is charged yet. */
import type { QueuedRunRecord, RecordedRun, RunTraceContext } from './store.js';

export function queuedRunRow({
  inputs,
  traceContext,
  models,
  model,
  ...run
}: QueuedRunRecord): RecordedRun & { attempts: number; traceContext: RunTraceContext | null } {
  return {
    ...run,
    traceContext: traceContext ?? null,
    status: 'queued',
    model: model ?? null,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    chargedTokens: 0,
    durationMs: 0,
    attempts: 0,
    payload: models === undefined || models === null ? { inputs, result: null } : { inputs, result: null, models },
  };
}
