/**
 * Reading runs back (the account's own only), and retention: payloads older than
 * `retention.run_days` are dropped by the housekeeping sweep while the run's summary stays.
 */
import type { PageRequest, RunKind, RunRecord, RunStatus, RunSummaryRecord, Store } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import { grantsAny, runScopes } from '../access/scopes.js';
import type { TokenUsage } from '../ai/ai-types.js';
import type { Clock } from '../clock.js';
import { TOKENS_PER_CREDIT } from '../credits/credits.js';
import { ERROR_CODES, type ErrorCode, type ErrorCodeSet, PorchError, publicErrorCode } from '../errors.js';
import { fetchPage, readPages, type Page } from '../pages.js';
import { toIsoTimestamp } from '../views.js';

const MS_PER_DAY = 86_400_000;

export interface RunView {
  id: string;
  kind: RunKind;
  operation: string;
  resource_id: string;
  version: number | null;
  status: RunStatus;
  model: string | null;
  key_id: string | null;
  token_usage: TokenUsage;
  credits_charged: number;
  duration_ms: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  cancel_requested: boolean;
  /** False once retention dropped the inputs and result. */
  payload_available: boolean;
}

export interface RunDetailView extends RunView {
  inputs: unknown;
  result: unknown;
}

export interface RunFilter {
  kind?: RunKind | undefined;
  resource_id?: string | undefined;
  status?: RunStatus | undefined;
}

/** A run as `get_run` shows it, without inputs and result (lists, and the data of `run.*` webhook events). */
export function runView(run: Omit<RunRecord, 'payload'>, payloadAvailable: boolean): RunView {
  return {
    id: run.id,
    kind: run.kind,
    operation: `execute_${run.kind}`,
    resource_id: run.resourceId,
    version: run.version,
    status: run.status,
    model: run.model,
    // A key's id (an API key, an OAuth connection's or a partner key), as usage grouped by key
    // names it. A console session is not a key: the run keeps the session (a queued run resumes
    // as it), but shows null, as its usage does (regression: a session id no /keys listed).
    key_id: run.keyKind === 'session' ? null : run.keyId,
    token_usage: { input_tokens: run.inputTokens, output_tokens: run.outputTokens, total_tokens: run.totalTokens },
    credits_charged: run.chargedTokens / TOKENS_PER_CREDIT,
    duration_ms: run.durationMs,
    created_at: toIsoTimestamp(run.createdAt),
    started_at: run.startedAt === null ? null : toIsoTimestamp(run.startedAt),
    finished_at: run.finishedAt === null ? null : toIsoTimestamp(run.finishedAt),
    attempts: run.attempts,
    cancel_requested: run.cancelRequestedAt !== null,
    payload_available: payloadAvailable,
  };
}

/** Refuses a caller whose key covers none of the run's kind (a key granted the run operations by another kind's execute scope). */
export function requireRunScope(caller: Caller, run: Pick<RunRecord, 'kind'>, access: 'read' | 'cancel'): void {
  const scopes = runScopes(run.kind, access);
  if (!grantsAny(caller.credential.scopes, scopes)) {
    throw new PorchError(
      'INSUFFICIENT_PERMISSIONS',
      `This key lacks the scope for ${access === 'read' ? 'reading' : 'cancelling'} a ${run.kind} run; it needs one of: ${scopes.join(', ')}.`,
    );
  }
}

/**
 * A failed run's result as it is shown: a run keeps its error's code as Porch names it
 * internally (failedResult), and shows it in the deployment's code set, as the request would
 * have answered it.
 */
function shownResult(result: unknown, codeSet: ErrorCodeSet): unknown {
  if (codeSet === 'a' || typeof result !== 'object' || result === null || !('error' in result)) return result;
  const { error } = result;
  if (typeof error !== 'object' || error === null || !('code' in error) || !(ERROR_CODES as readonly unknown[]).includes(error.code)) return result;
  return { ...result, error: { ...error, code: publicErrorCode(error.code as ErrorCode, codeSet) } };
}

/** A run as its owner reads it back, inputs and result included, error codes in the deployment's set. */
export function runDetailView(run: RunRecord, codeSet: ErrorCodeSet): RunDetailView {
  return { ...runView(run, run.payload !== null), inputs: run.payload?.inputs ?? null, result: shownResult(run.payload?.result ?? null, codeSet) };
}

const summaryView = (run: RunSummaryRecord): RunView => runView(run, run.hasPayload);

export function createRunService(store: Store, clock: Clock, retentionDays: number, codeSet: ErrorCodeSet) {
  return {
    async list(accountId: string, request: PageRequest & RunFilter): Promise<Page<RunView>> {
      const filter = { kind: request.kind, resourceId: request.resource_id, status: request.status };
      return fetchPage({ limit: request.limit, cursor: request.cursor }, (page) => store.runs.list({ accountId, page, ...filter }), summaryView);
    },

    /** Every run the filter keeps (after the cursor `after`, if given), a page at a time, for a door that writes them as they are read. */
    pages(accountId: string, filter: RunFilter, after?: string): AsyncGenerator<RunView[]> {
      const where = { kind: filter.kind, resourceId: filter.resource_id, status: filter.status };
      return readPages((page) => store.runs.list({ accountId, page, ...where }), summaryView, after);
    },

    /** One of the caller's account's runs, if the caller's scopes cover its kind (see `runScopes`). */
    async get(caller: Caller, id: string): Promise<RunDetailView> {
      const run = await store.runs.findOwned({ accountId: caller.account.id, id });
      if (!run) throw new PorchError('RESOURCE_NOT_FOUND', `No run with id ${id}.`);
      requireRunScope(caller, run, 'read');
      return runDetailView(run, codeSet);
    },

    /** Drops the payloads of runs older than the retention period; returns how many. */
    async prunePayloads(): Promise<number> {
      return store.runs.prunePayloads({ before: clock.now() - retentionDays * MS_PER_DAY });
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
