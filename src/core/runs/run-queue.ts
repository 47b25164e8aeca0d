/**
 * Asynchronous runs (DECISIONS, "Runs: asynchronous, streaming, webhooks"): an execution asked
 * for with `Prefer: respond-async` is queued in the store and answered at once; whichever Porch
 * process claims it (among those serving the models it was accepted for) executes it later, as
 * the key that asked, through the same operation a request would call, and records the outcome
 * into the queued run.
 *
 * Durability: the queue is the `runs` table. A process claims a run under its lease; if the
 * process stops before the run ends (a crash, `kill -9`, a lost host), its lease runs out, what it
 * held (credit reservations, slots) is released, and the run goes back to the queue once. A run
 * cut off twice is failed rather than retried for ever. A run that started model calls before it
 * was cut off has paid for them; the retry pays for its own.
 */
import { type DeferredWrites, isStoreUnavailable } from '../deferred-writes.js';
import type { Logger } from 'pino';
import type { FinishedRunStatus, QueuedRunModels, RunKind, RunRecord, ServedModels, Store, UsageRecord } from '../../db/store.js';
import type { Authenticator } from '../access/authenticator.js';
import type { Caller } from '../access/caller.js';
import { executeScopes, grantsAny } from '../access/scopes.js';
import type { LifecycleService, RecordOf } from '../catalog/lifecycle.js';
import type { VersionSelector } from '../catalog/versions.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import { NO_TOKENS } from '../ai/token-usage.js';
import type { Clock } from '../clock.js';
import { meteredModelChoices } from '../engine/node-kinds/index.js';
import type { ModelChoice } from '../engine/node-kinds/node-kind.js';
import { SETTLE_AFTER_ABORT_MS } from '../engine/run-workflow.js';
import { validateWorkflowDefinition } from '../engine/workflow-definition.js';
import { CallStopped, PorchError } from '../errors.js';
import type { ExecutionHooks } from '../execution/executions.js';
import { newId } from '../ids.js';
import type { Instance } from '../instance.js';
import { type Telemetry, traceHeadersOf } from '../telemetry/telemetry.js';
import { runFinishedEvents } from '../webhooks/events.js';
import { cancelledResult, failedResult, outcomeColumns, type RunOutcome } from './run-recorder.js';
import { requireRunScope } from './runs.js';
import { createBackgroundFailureLog } from '../store-outage-log.js';

/** A run cut off by a stopped process is tried this many times in all, then failed. */
export const MAX_RUN_ATTEMPTS = 2;

/** Published defaults: an account's runs beyond this wait in the queue; a process runs this many at once. */
export const DEFAULT_MAX_RUNNING_RUNS_PER_ACCOUNT = 4;
export const DEFAULT_RUN_CONCURRENCY = 8;
/** Runs queued by the process itself start at once; this only bounds how late other processes' runs and cancellations are seen. */
export const DEFAULT_RUN_POLL_INTERVAL_MS = 1_000;

export interface RunQueueSettings {
  /** Runs this process executes at once. */
  concurrency: number;
  /** Runs one account may have running at once, across every process. */
  maxRunningPerAccount: number;
  /** How often a process looks for runs other processes queued, and for cancellations asked of another process. */
  pollIntervalMs: number;
}

/** Executes a claimed run as `caller` through its operation; the composition root provides it. */
export type QueuedRunExecutor = (run: RunRecord, caller: Caller, hooks: ExecutionHooks) => Promise<unknown>;

export interface QueuedRunAcceptance {
  run_id: string;
  status: 'queued';
}

/** How a run ended, as the queue writes it into the queued run. */
type RunEnding = Omit<RunOutcome, 'kind' | 'resourceId' | 'version' | 'inputs' | 'status'> & { status: FinishedRunStatus };

/**
 * A run's tokens and credits over its attempts: what earlier attempts, cut off by a shutdown,
 * were charged (kept on the run) and this one's. Each attempt pays for its own calls.
 */
function totalsOverAttempts(run: RunRecord, outcome: RunEnding) {
  return {
    inputTokens: run.inputTokens + outcome.usage.input_tokens,
    outputTokens: run.outputTokens + outcome.usage.output_tokens,
    totalTokens: run.totalTokens + outcome.usage.total_tokens,
    chargedTokens: run.chargedTokens + outcome.chargedTokens,
  };
}

interface ActiveRun {
  controller: AbortController;
  /** Aborted the moment a cancel is accepted, before `controller` (see `abort`): no new node starts. */
  cancelAccepted: AbortController;
  /** Its owner cancelled it: a failure caused by the abort ends it as cancelled. */
  cancelled: boolean;
  /** This process is stopping: the run is left to go back to the queue, not ended here. */
  stopping: boolean;
  done: Promise<void>;
}

export interface RunQueueDependencies {
  store: Store;
  authenticator: Authenticator;
  lifecycle: LifecycleService;
  /**
   * Checks a model the call names as the execution would, so a queued run never fails for it, and
   * resolves the models the run will call, so only a process that serves them claims it.
   */
  ai: Pick<AiGateway, 'resolveModel' | 'listModels' | 'defaultModel'>;
  instance: Instance;
  clock: Clock;
  logger: Logger;
  /** Where an ending the store could not take (it was out of reach) waits until it lands. */
  deferredWrites: DeferredWrites;
  /** Finds the queuing request's trace, which the run keeps so its execution continues it. */
  telemetry: Telemetry;
  settings: RunQueueSettings;
}

/** The version selector an execution's input carries (validated by its operation before it is queued). */
function selectorOf(inputs: Record<string, unknown>): VersionSelector {
  return {
    version: typeof inputs.version === 'number' ? inputs.version : undefined,
    label: typeof inputs.label === 'string' ? inputs.label : undefined,
  };
}

/** The model a composition or skill was saved with (null when none, and for other kinds). */
function savedModelOf(record: RecordOf<RunKind>): string | null {
  if ('defaultModel' in record) return record.defaultModel;
  if ('model' in record) return record.model;
  return null;
}

const interruptedTwice = () =>
  new PorchError(
    'INTERNAL_ERROR',
    `The run was cut off ${MAX_RUN_ATTEMPTS} times before it finished (the Porch process running it stopped, or the database was out of reach); it is not tried again.`,
  );

export function createRunQueue({ store, authenticator, lifecycle, ai, instance, clock, logger, deferredWrites, telemetry, settings }: RunQueueDependencies) {
  const logClaimFailure = createBackgroundFailureLog(logger, 'could not claim queued runs; retrying at the next poll');
  const active = new Map<string, ActiveRun>();
  let executor: QueuedRunExecutor | null = null;
  let poller: NodeJS.Timeout | null = null;
  /** The start-up recovery, while it waits for this process to settle. */
  let recovery: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  /** False once a shutdown has begun: the runs in flight go on, no new one is claimed. */
  let claiming = true;
  /** What this process can run: a claim takes only the runs whose models these cover. */
  const serves: ServedModels = { ids: ai.listModels().map((model) => model.id), defaultModel: ai.defaultModel };

  /**
   * The models the run will call, resolved here as its execution resolves them (QueuedRunModels),
   * so only a process that serves them claims it: it runs on the models this server chose, never
   * on another process's default, nor fails there for a model this server offers (regression: a
   * `porch mcp` without the server's provider keys ran the server's queued runs on echo/echo, and
   * failed those that named the server's model). A single call's model is checked as its
   * execution would check it, so a queued run never fails for it (regression: an unknown model
   * was accepted with 202, and the run failed when it started): the body's, else the resource's
   * saved one, which this server may not offer. A workflow node whose model does not resolve
   * fails when it runs, naming it, as in a request.
   */
  async function modelsOf(caller: Caller, record: RecordOf<RunKind>, inputs: Record<string, unknown>): Promise<QueuedRunModels> {
    const organisation = await store.organisations.findById(caller.account.organisationId);
    const euOnly = organisation?.euOnlyModels ?? false;
    const isWorkflow = 'definition' in record;
    const choices: ModelChoice[] = isWorkflow
      ? await workflowModelChoices(caller.account.id, record.definition)
      : [{ requested: typeof inputs.model === 'string' ? inputs.model : undefined, resourceDefault: savedModelOf(record) }];
    const ids = new Set<string>();
    let defaultModel: string | null = null;
    for (const choice of choices) {
      if (choice.requested === undefined && (choice.resourceDefault ?? null) === null) {
        defaultModel = ai.defaultModel;
        ids.add(ai.defaultModel);
        continue;
      }
      try {
        ids.add(ai.resolveModel({ ...choice, plan: caller.account.plan, euOnly }).id);
      } catch (err) {
        if (!isWorkflow) throw err;
      }
    }
    return { ids: [...ids], defaultModel };
  }

  /** The models a workflow's metered nodes ask for, with the skills and compositions they call as the run will find them. */
  async function workflowModelChoices(accountId: string, definition: unknown): Promise<ModelChoice[]> {
    let nodes: ReturnType<typeof validateWorkflowDefinition>['nodes'];
    try {
      ({ nodes } = validateWorkflowDefinition(definition));
    } catch {
      // Saved under older rules: its start refuses it, on whichever process.
      return [];
    }
    return meteredModelChoices(nodes, {
      getSkill: async (ref) => (await lifecycle.resolve('skill', accountId, ref)).record,
      getComposition: async (ref) => (await lifecycle.resolve('composition', accountId, ref)).record,
    });
  }

  /** Ends the run this process holds; a run another process took over meanwhile is left to it (false). */
  async function complete(run: RunRecord, instanceId: string, outcome: RunEnding): Promise<boolean> {
    const fields = { ...outcomeColumns(outcome), ...totalsOverAttempts(run, outcome), finishedAt: clock.now() };
    const completion = { id: run.id, instanceId, ...fields, result: outcome.result };
    // run.completed / run.failed are written with the run's final state, in its transaction (the outbox).
    const ended: RunRecord = { ...run, ...fields, claimedBy: null, payload: { inputs: run.payload?.inputs ?? null, result: outcome.result } };
    const kept = await store.runs.complete(completion, runFinishedEvents(ended, completion.finishedAt));
    if (!kept) logger.warn({ runId: run.id }, 'a run ended here after another process took it over; its outcome here is dropped');
    return kept;
  }

  /**
   * The usage record of a run that failed before its execution recorded anything (its key, its
   * resource, missing variables): every run leaves one for the run, as an execution that starts
   * does, so usage counts the request and its error (regression: such runs were missing from
   * `GET /usage`). It cost nothing.
   */
  function usageOfStartFailure(run: RunRecord, durationMs: number): UsageRecord {
    return {
      id: newId(),
      accountId: run.accountId,
      apiKeyId: run.keyKind === 'api_key' ? run.keyId : null,
      partnerKeyId: run.keyKind === 'partner_key' ? run.keyId : null,
      operation: `execute_${run.kind}`,
      resourceId: run.resourceId,
      resourceVersion: run.version,
      runId: run.id,
      nodeId: null,
      model: null,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      chargedTokens: 0,
      byok: false,
      durationMs,
      status: 'failed',
      retry: false,
      createdAt: clock.now(),
    };
  }

  /** Writes a usage record once the run's ending landed; an outage delays it, never drops it. */
  async function writeUsage(record: UsageRecord): Promise<void> {
    await deferredWrites
      .attempt(`the usage record of run ${record.runId ?? ''}`, () => store.usage.insert(record))
      .catch((err: unknown) => logger.error({ err, runId: record.runId }, "a run's usage record could not be stored"));
  }

  async function runClaimed(run: RunRecord, job: ActiveRun, instanceId: string, executeOperation: QueuedRunExecutor): Promise<void> {
    const startedAt = clock.now();
    let recorded = false;
    /** `usage`: the run's own usage record, for an ending its execution did not record (a start failure). */
    const record = async (outcome: RunEnding, usage?: UsageRecord) => {
      recorded = true;
      if (job.stopping) {
        // Cut off by this process's shutdown after it was charged: the run goes back to the
        // queue, and keeps what this attempt cost, so its totals match the ledger in the end.
        await store.runs.noteAttemptCost({ id: run.id, instanceId, ...totalsOverAttempts(run, outcome) });
        return;
      }
      // A run its owner cancelled ends cancelled, with no error code in its result (run-recorder.ts).
      const cancelled = outcome.status === 'failed' && job.cancelled;
      const status = cancelled ? 'cancelled' : outcome.status;
      const result = cancelled ? cancelledResult(outcome.result) : outcome.result;
      // With the store out of reach, the ending waits until it lands (deferred-writes.ts), and so
      // does its fallback, wherever the refusal comes: now or in a later attempt (regression: a
      // retried ending the store refused was dropped, and the run stayed `running`).
      await deferredWrites.attempt(`the ending of run ${run.id}`, async () => {
        try {
          const kept = await complete(run, instanceId, { ...outcome, status, result });
          if (kept && usage !== undefined) await writeUsage(usage);
        } catch (err) {
          if (isStoreUnavailable(err)) throw err;
          // The outcome could not be written (a result the store refuses): the run still ends,
          // failed, with what it cost, rather than stay `running` and hold the account's slot.
          logger.error({ err, runId: run.id }, "a run's outcome could not be stored; it is recorded as failed");
          const unstored = new PorchError('INTERNAL_ERROR', 'The run finished, but its result could not be stored.');
          await complete(run, instanceId, { ...outcome, status: 'failed', result: failedResult(unstored) });
        }
      });
    };
    try {
      if (run.keyId === null || run.keyKind === null) throw new PorchError('INVALID_API_KEY', 'The key that queued this run is no longer known.');
      const caller = await authenticator.resume({ keyId: run.keyId, keyKind: run.keyKind, accountId: run.accountId });
      if (!grantsAny(caller.credential.scopes, executeScopes(run.kind))) {
        throw new PorchError('INSUFFICIENT_PERMISSIONS', `The key that queued this run no longer holds ${executeScopes(run.kind).join(' or ')}.`);
      }
      await executeOperation(run, caller, { signal: job.controller.signal, queuedRun: { id: run.id, record, cancelAccepted: job.cancelAccepted.signal } });
    } catch (err) {
      if (recorded) return;
      // Refused before the execution recorded anything (the key, the resource, the input): the run fails with that error.
      const fail = () => {
        const durationMs = clock.now() - startedAt;
        return record(
          { status: 'failed', model: run.model, usage: NO_TOKENS, chargedTokens: 0, durationMs, result: failedResult(err) },
          usageOfStartFailure(run, durationMs),
        );
      };
      // Unless the store was out of reach: nothing was charged, so the run waits in the queue for
      // the store to be back rather than fail for a few seconds of outage (one more attempt).
      // Claimed again by this job's ending's pump (or any process's poll), not by a pump from here
      // while this job is still the run's in `active` (review: the new job's entry was deleted).
      if (isStoreUnavailable(err) && !job.cancelled && !job.stopping && run.attempts < MAX_RUN_ATTEMPTS) {
        await deferredWrites.attempt(`the return of run ${run.id} to the queue`, async () => {
          if (await store.runs.requeue({ id: run.id, instanceId })) return;
          // Taken over by another process (then this ends nothing), or its owner asked to cancel
          // it while it waited to go back: it ends cancelled (review: it ended failed).
          const now = await store.runs.findOwned({ accountId: run.accountId, id: run.id });
          if (now?.cancelRequestedAt !== null && now?.cancelRequestedAt !== undefined) job.cancelled = true;
          await fail();
        });
        return;
      }
      await fail();
    }
  }

  function start(run: RunRecord, instanceId: string, executeOperation: QueuedRunExecutor): void {
    const job: ActiveRun = {
      controller: new AbortController(),
      cancelAccepted: new AbortController(),
      cancelled: false,
      stopping: false,
      done: Promise.resolve(),
    };
    active.set(run.id, job);
    job.done = runClaimed(run, job, instanceId, executeOperation)
      .catch((err: unknown) => logger.error({ err, runId: run.id }, 'a queued run could not be recorded; it goes back to the queue when this process stops'))
      .finally(() => {
        // Only this job's entry: the run may be another job's by now (claimed again after an outage).
        if (active.get(run.id) === job) active.delete(run.id);
        pump();
      });
  }

  /** Claims runs while this process has room; one pump at a time, and one more if asked meanwhile. */
  function pump(): void {
    if (executor === null || !claiming) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    const executeOperation = executor;
    pumping = (async () => {
      const instanceId = await instance.ready();
      do {
        pumpAgain = false;
        while (executor !== null && claiming && active.size < settings.concurrency) {
          const claimed = await store.runs.claim({ instanceId, now: clock.now(), maxRunningPerAccount: settings.maxRunningPerAccount, serves });
          if (!claimed) break;
          start(claimed, instanceId, executeOperation);
        }
      } while (pumpAgain && executor !== null);
    })()
      .catch(logClaimFailure)
      .finally(() => {
        pumping = null;
      });
  }

  /** Aborts this process's runs whose owners cancelled them through another process. */
  async function abortCancelled(): Promise<void> {
    if (active.size === 0) return;
    for (const id of await store.runs.cancelRequested([...active.keys()])) abort(id);
  }

  /**
   * Cancels the run this process executes. Its calls are aborted only after the event loop has
   * read what already arrived: a provider's answer that reached this process just before the
   * cancel did (its bytes waiting on the socket while the cancel was handled) is read, settled
   * and charged, and the run ends `completed`, rather than the answer being dropped unread and
   * unpaid (regression: 14 of 26 runs cancelled within a few ms of their answer charged 0 tokens).
   * One immediate runs after the I/O callbacks of this turn; the second after the next turn's
   * poll, which does not wait while immediates are due, so it reads every socket already readable.
   * An answer read before the abort but still being checked and paid for when it comes is not
   * lost either: a workflow waits for every node's call to settle before it answers and records
   * (run-workflow.ts), and a single call is recorded after its call returns.
   */
  function abort(id: string): ActiveRun | undefined {
    const job = active.get(id);
    if (job && !job.cancelled) {
      job.cancelled = true;
      const reason = new CallStopped('its run was cancelled');
      // Nothing new starts from now on (a workflow's next node would run and be charged after
      // the cancel was accepted); what is in flight reads what already arrived first.
      job.cancelAccepted.abort(reason);
      setImmediate(() => setImmediate(() => job.controller.abort(reason)));
    }
    return job;
  }

  /**
   * Puts the runs of processes that stopped back in the queue; ends those cancelled meanwhile
   * (never run again, nor charged again) and fails those cut off too often. The run keeps what
   * its earlier attempts were charged; the cut-off attempt adds nothing it knows of.
   */
  async function recover(): Promise<{ requeued: number; failed: number; cancelled: number }> {
    const { requeued, stranded } = await store.runs.recoverOrphans({ now: clock.now(), maxAttempts: MAX_RUN_ATTEMPTS });
    let cancelled = 0;
    for (const run of stranded) {
      const wasCancelled = run.cancelRequestedAt !== null;
      if (wasCancelled) cancelled += 1;
      await complete(run, run.claimedBy ?? '', {
        status: wasCancelled ? 'cancelled' : 'failed',
        model: run.model,
        usage: NO_TOKENS,
        chargedTokens: 0,
        durationMs: clock.now() - (run.startedAt ?? run.createdAt),
        // A workflow's too: its trace was in the stopped process's memory, and a trace made up
        // here (every node skipped) would deny the calls it may have been charged for (docs/runs.md).
        result: wasCancelled ? null : failedResult(interruptedTwice()),
      });
    }
    if (requeued > 0) pump();
    return { requeued, failed: stranded.length - cancelled, cancelled };
  }

  return {
    /**
     * Queues an execution of `resourceId` with `inputs` (its operation's validated input) as
     * `caller`. The resource and the version it names are resolved now, so an unknown one is
     * refused at once, and the run executes that version even if a label moves meanwhile.
     */
    async enqueue(caller: Caller, kind: RunKind, resourceId: string, inputs: Record<string, unknown>): Promise<QueuedRunAcceptance> {
      const { record, version } = await lifecycle.resolve(kind, caller.account.id, resourceId, selectorOf(inputs));
      // Its start checks the key, plan and model again.
      const models = await modelsOf(caller, record, inputs);
      const id = newId();
      await store.runs.enqueue({
        id,
        accountId: caller.account.id,
        keyId: caller.credential.id,
        keyKind: caller.credential.kind,
        kind,
        resourceId,
        version,
        createdAt: clock.now(),
        inputs,
        // The span queuing it (the request's operation span, or the caller's context when
        // tracing records nothing): the run's spans and provider calls continue its trace.
        traceContext: traceHeadersOf(telemetry.scopeOf(caller)?.span) ?? null,
        models,
        // A single call's one model is known now: the run shows it while it waits and runs
        // (regression: null until it completed). A workflow's nodes name their own.
        model: kind === 'workflow' ? null : (models.ids[0] ?? null),
      });
      pump();
      return { run_id: id, status: 'queued' };
    },

    /**
     * Cancels one of the account's runs: a queued run at once; a running one is aborted (here,
     * or by the process running it within a poll interval), keeping the usage it already had. A
     * run whose last answer had already arrived ends completed instead (see `abort`).
     */
    async cancel(caller: Caller, id: string): Promise<RunRecord> {
      const accountId = caller.account.id;
      const run = await store.runs.findOwned({ accountId, id });
      if (!run) throw new PorchError('RESOURCE_NOT_FOUND', `No run with id ${id}.`);
      requireRunScope(caller, run, 'cancel');
      const cancellation = await store.runs.cancel({ accountId, id, now: clock.now() });
      switch (cancellation.outcome) {
        case 'missing':
          throw new PorchError('RESOURCE_NOT_FOUND', `No run with id ${id}.`);
        case 'finished':
          throw new PorchError('CONFLICT', `The run has already ended (${cancellation.run.status}); only a queued or running run can be cancelled.`);
        case 'cancelled':
          return cancellation.run;
        case 'requested': {
          const job = abort(id);
          if (!job) return cancellation.run;
          await job.done;
          return (await store.runs.findOwned({ accountId, id })) ?? cancellation.run;
        }
      }
    },

    recover,

    /** Starts executing queued runs in this process, with `execute` calling their operations. */
    start(execute: QueuedRunExecutor): void {
      executor = execute;
      // Runs a stopped process left behind are recovered as soon as this process may take an
      // expired lease for a dead process's (instance.ts, settlesIn), rather than at the first sweep.
      const recoverWhenSettled = () => {
        instance
          .ready()
          .then(() => {
            // Stopped while this process registered: nothing more to recover here.
            if (executor === null) return;
            const waitMs = instance.settlesIn();
            if (waitMs === 0) return recover();
            recovery = setTimeout(recoverWhenSettled, waitMs);
            recovery.unref();
          })
          .catch((err: unknown) => logger.warn({ err }, 'could not recover the runs of stopped processes; the next sweep retries'));
      };
      recoverWhenSettled();
      poller = setInterval(() => {
        pump();
        abortCancelled().catch((err: unknown) => logger.warn({ err }, 'could not read cancellations of running runs'));
      }, settings.pollIntervalMs);
      poller.unref();
      pump();
    },

    /**
     * Claims no more runs: a shutdown has begun (during its drain the process still answers
     * requests, and other processes, or this one's successor, take the runs queued meanwhile).
     * The runs in flight go on, and cancellations still reach them, until `stop`.
     */
    stopClaiming(): void {
      claiming = false;
    },

    /**
     * Stops claiming, lets the runs in flight finish for up to `graceMs`, then aborts the rest and
     * gives them SETTLE_AFTER_ABORT_MS to note what they cost, as a shutdown gives the calls it
     * cut (regression: this wait had no bound, and a run whose call ignored its abort held the
     * shutdown past its budget). Once this process's lease is released they go back to the queue.
     */
    async stop(graceMs: number): Promise<void> {
      executor = null;
      clearTimeout(recovery);
      if (poller) clearInterval(poller);
      poller = null;
      await pumping;
      const allDoneWithin = async (ms: number): Promise<boolean> => {
        let timer: NodeJS.Timeout | undefined;
        const done = Promise.all([...active.values()].map((job) => job.done)).then(() => true);
        const outOfTime = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
        const finished = await Promise.race([done, outOfTime]);
        clearTimeout(timer);
        return finished;
      };
      if (await allDoneWithin(graceMs)) return;
      for (const job of active.values()) {
        job.stopping = true;
        job.controller.abort(new CallStopped('the process running it is shutting down'));
      }
      if (!(await allDoneWithin(SETTLE_AFTER_ABORT_MS))) {
        logger.warn(
          { runs: active.size },
          'runs still going after the shutdown aborted them; they go back to the queue, what this attempt cost possibly not noted on them',
        );
      }
    },

    /** Waits until this process runs nothing and has nothing left to claim (tests and the CLI). */
    async idle(): Promise<void> {
      while (pumping || active.size > 0) {
        await pumping;
        await Promise.all([...active.values()].map((job) => job.done));
      }
    },

    /** Runs this process is executing now. */
    get activeCount(): number {
      return active.size;
    },
  };
}

export type RunQueue = ReturnType<typeof createRunQueue>;
