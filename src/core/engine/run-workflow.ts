/**
 * The workflow DAG runner.
 *
 * Scheduling: each node keeps a counter of dependencies not yet completed and a list of its
 * dependants, so finishing a node costs O(its dependants), never a scan of the graph. Ready nodes
 * start in definition order, at most `maxConcurrency` at a time; nodes of a kind the engine
 * renders itself (`template`) complete on the spot (no call, no tokens) and take no slot.
 *
 * Failure policy: the first failure stops the run from starting anything new. Nodes already
 * running are left to finish (their tokens are being spent anyway, and their results appear in
 * the trace and outputs); every node that never started is `skipped`, whether or not it depends
 * on the failed node. A node that fails never has its dependants called.
 *
 * Time limits: each node gets an AbortSignal that fires at its own limit or at the run's limit,
 * whichever comes first. The run waits for the call to settle after its signal fired, because
 * its answer may have arrived just before and be being paid for: a call that still answers is
 * `completed`, with its output and usage, as the ledger charged it (and its dependants start, as
 * for any completed node); one that fails without a cost fails with the limit's error. The wait
 * is bounded: a call that ignores its signal for `settleGraceMs` (at most DEFAULT_SETTLE_GRACE_MS)
 * is given up on, failed with the limit's error, its late answer discarded. The run's own limit
 * aborts every call still running and starts nothing more, so a run answers at most
 * `settleGraceMs` after its time limit, however late its nodes' limits fell. A charge the given-up
 * call still makes before the run is recorded is its caller's to account for (executions.ts).
 *
 * Stops from outside: the caller's signal (its client went away, its owner cancelled the run)
 * stops the run like a failure, but no node failed: the nodes it cut off are `skipped`, with the
 * time they ran, and the run's answer is `failed` with no failed node (`stoppedByCaller`). A
 * node whose answer arrived as the stop came is waited for as above, and `completed`.
 *
 * Errors recorded in the trace are safe to show: a PorchError's code and message as they are,
 * anything else as INTERNAL_ERROR with the generic message (never a stack or an upstream body).
 * The raw error goes to `onNodeError` so the caller can log it.
 */
import { systemClock, toIsoTimestamp, type Clock } from '../clock.js';
import { isPorchError, PorchError, toPorchError, type ErrorCode } from '../errors.js';
import type { TokenUsage } from '../ai/ai-types.js';
import type { GuardrailFinding } from '../sanitiser/guardrails.js';
import { compileWorkflow, renderNode, type CompiledWorkflow } from './compile-workflow.js';
import { isExecutableNode, type ExecutableNode, type ExecuteNode, type WorkflowNode } from './node-kinds/index.js';
import type { NodeExecutionResult, NodeOutput, ResourceRan } from './node-kinds/node-kind.js';
import { MissingVariableError } from './template.js';
import type { WorkflowDefinition } from './workflow-schema.js';

// The types a caller of runWorkflow needs, from where they are declared.
export type { TokenUsage, ExecutableNode, ExecuteNode };
export type { NodeExecutionContext, NodeExecutionResult, NodeOutput } from './node-kinds/node-kind.js';

/** Enough to overlap a few model calls without one run hogging the provider's rate limit. */
export const DEFAULT_MAX_CONCURRENCY = 4;
/** A long answer from a slow model takes one to two minutes; longer than that is a hung call. */
export const DEFAULT_NODE_TIMEOUT_MS = 120_000;
/** HTTP clients and proxies commonly give up on a request after about five minutes. */
export const DEFAULT_RUN_TIMEOUT_MS = 300_000;
/**
 * How long a call may take to settle once it was aborted (its node's time limit or the run's
 * passed, its run was stopped, the process is shutting down): at once, or, when its answer had
 * already arrived, once that is checked and paid for, and then its run recorded and settled (a
 * few writes, any of which may wait for a database lock). A shutdown gives the calls it cut this
 * long before it closes the database (src/main.ts, RunQueue.stop), so every wait after an abort
 * is derived from it.
 */
export const SETTLE_AFTER_ABORT_MS = 5_000;
/**
 * How long a run waits for a node's call to settle once its signal fired, before it gives up on
 * the call: half of SETTLE_AFTER_ABORT_MS, so that the run is still recorded and settled, in the
 * other half, when a call ignores its signal (a store call that takes none, a scan that gets
 * none) and a shutdown cut it (regression: a 10 s grace outlived the shutdown's 5 s, the
 * database closed first, and the run was lost).
 */
export const DEFAULT_SETTLE_GRACE_MS = SETTLE_AFTER_ABORT_MS / 2;
/**
 * The code a timed-out node is recorded with. The error table has no timeout code; every node
 * that can take long waits on a model, and the spec's advice for AI_SERVICE_ERROR (retry with
 * backoff) is the right advice for a timeout too.
 */
export const TIMEOUT_ERROR_CODE: ErrorCode = 'AI_SERVICE_ERROR';
/**
 * The most characters a run's node outputs may hold in all. Each output is at most a rendered
 * template's MAX_RENDERED_CHARACTERS (or a model's answer), but two hundred nodes of that would
 * be more than a run's record, or its answer, can hold.
 */
export const MAX_RUN_OUTPUT_CHARACTERS = 10_000_000;

/** What a node's model answered before the node failed. */
export interface UsageBeforeFailing {
  model: string;
  usage: TokenUsage;
}

/** What nodes used before they failed, by their error (usedBeforeFailing). */
const usageOfFailures = new WeakMap<object, UsageBeforeFailing>();

/**
 * Marks `err`, the error a node fails with, as having used a model first (a call charged before
 * the output guardrail refused its answer): the node's trace entry names the model, and it and
 * the run's totals count the tokens, as the ledger does. Returns `err`, for
 * `throw usedBeforeFailing(err, used)`.
 */
export function usedBeforeFailing<T>(err: T, used: UsageBeforeFailing): T {
  if (typeof err === 'object' && err !== null) usageOfFailures.set(err, { model: used.model, usage: used.usage });
  return err;
}

export interface RunWorkflowOptions {
  /** Nodes running at once (engine-rendered nodes aside). Default DEFAULT_MAX_CONCURRENCY. */
  maxConcurrency?: number;
  /** Time limit of one node in milliseconds. Default DEFAULT_NODE_TIMEOUT_MS. */
  nodeTimeoutMs?: number;
  /** Time limit of the whole run in milliseconds. Default DEFAULT_RUN_TIMEOUT_MS. */
  runTimeoutMs?: number;
  /**
   * How long a node's call may take to settle once its signal fired (a limit or a stop) before
   * the run gives up on it, in milliseconds. Default, and at most, DEFAULT_SETTLE_GRACE_MS: a
   * longer wait would outlast a shutdown's (SETTLE_AFTER_ABORT_MS); tests shorten it.
   */
  settleGraceMs?: number;
  /** Source of timestamps and durations. Default the system clock. */
  clock?: Clock;
  /**
   * Cancels the run (e.g. the client went away, or its owner cancelled it). Running nodes fail
   * with the signal's reason when it is a PorchError (a deadline the caller set); any other reason
   * is a stop from outside: running nodes are cut off, and are `skipped` in the trace with the
   * time they ran, never failed with an error code (see `stoppedByCaller`).
   */
  signal?: AbortSignal;
  /**
   * Aborted when a stop is coming but the nodes running may still finish what already arrived
   * (the run queue's cancel, `signal` following): no node starts after it, so nothing is run or
   * charged after the cancel was accepted; one that completes meanwhile keeps its output.
   */
  holdBack?: AbortSignal;
  /** Receives every node failure with the raw error, for logging. Must not throw. */
  onNodeError?: (nodeId: string, error: unknown) => void;
  /**
   * Receives each node's trace entry as soon as it completes or fails (a streaming caller shows
   * progress with it); skipped nodes are reported only in the result. Must not throw.
   */
  onNodeFinished?: (node: NodeResult, progress: NodeProgress) => void;
}

/** How far a run is when a node finishes: nodes finished so far (this one included), of all its nodes. */
export interface NodeProgress {
  finished: number;
  total: number;
}

export type NodeStatus = 'completed' | 'failed' | 'skipped';

export interface NodeResult {
  node_id: string;
  kind: WorkflowNode['kind'];
  status: NodeStatus;
  output: NodeOutput | null;
  model: string | null;
  token_usage: TokenUsage | null;
  duration_ms: number;
  error: { code: ErrorCode; message: string } | null;
  /** ISO 8601; null for a skipped node. */
  started_at: string | null;
  finished_at: string | null;
  /**
   * What the organisation's guardrails found on the node's model calls under `report` or
   * `redact` (rule ids and positions, never the text); absent when they found nothing. A node
   * the guardrail blocked has failed with CONTENT_BLOCKED instead.
   */
  guardrail_findings?: GuardrailFinding[];
  /** The version of the skill, composition or persona the node ran; absent for other kinds. */
  resource?: ResourceRan;
}

export interface WorkflowRunResult {
  /** `failed` when a node did not complete: it failed, or the run was stopped from outside (`stoppedByCaller`). */
  status: 'completed' | 'failed';
  /** Output name -> node output, for the nodes that completed. */
  outputs: Record<string, NodeOutput>;
  /** One entry per node, in definition order. */
  node_results: NodeResult[];
  /** Sum over the nodes that reported usage, failed nodes whose call was charged included. */
  token_usage: TokenUsage;
  duration_ms: number;
}

/**
 * Whether a workflow's answer (its status and full trace) is that of a run stopped from outside
 * (its caller went away, or its owner cancelled it) rather than one that failed. Every other way
 * a run can fail (a node's error, a time limit, a refusal) fails a node; a stopped run only
 * skips nodes: those it cut off and those it never started.
 */
export function stoppedByCaller(result: unknown): boolean {
  if (typeof result !== 'object' || result === null || !('status' in result) || !('node_results' in result)) return false;
  const { status, node_results: nodeResults } = result;
  if (status !== 'failed' || !Array.isArray(nodeResults) || nodeResults.length === 0) return false;
  return nodeResults.every((node: unknown) => typeof node === 'object' && node !== null && 'status' in node && node.status !== 'failed');
}

/**
 * The reason running nodes are aborted with when the caller's signal stops the run: they are cut
 * off, not failed. Its cause is the signal's reason (a CallStopped from a door or the run queue),
 * which telemetry reads from the nodes' signals.
 */
class RunStopped extends Error {
  override readonly name = 'RunStopped';
}

/**
 * Runs a workflow. Throws VALIDATION_ERROR before anything runs when `variables` is not an
 * object or required variables are missing (naming them all); every other problem is a failed
 * node in the returned result.
 */
export function runWorkflow(
  definition: WorkflowDefinition,
  variables: unknown,
  executeNode: ExecuteNode,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  try {
    const compiled = compileWorkflow(definition);
    const scope = resolveVariables(compiled, variables);
    const run = new WorkflowRun(compiled, scope, executeNode, resolveOptions(options));
    return run.start();
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Caller values plus declared defaults. Null counts as not sent. A declared optional variable
 * without a default renders as the empty string, so a template may mention it unconditionally.
 */
export function resolveVariables(compiled: Pick<CompiledWorkflow, 'variables'>, variables: unknown): Map<string, unknown> {
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
    throw new PorchError('VALIDATION_ERROR', 'variables: must be an object of name -> value');
  }
  const values: Record<string, unknown> = variables ?? {};
  const scope = new Map<string, unknown>();
  const missing: string[] = [];
  for (const declaration of compiled.variables) {
    const sent = Object.hasOwn(values, declaration.name) ? values[declaration.name] : undefined;
    if (sent !== undefined && sent !== null) {
      scope.set(declaration.name, sent);
    } else if (declaration.default !== undefined) {
      scope.set(declaration.name, declaration.default);
    } else if (declaration.required) {
      missing.push(declaration.name);
    } else {
      scope.set(declaration.name, '');
    }
  }
  if (missing.length > 0) throw new MissingVariableError(missing);
  return scope;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

interface ResolvedOptions {
  maxConcurrency: number;
  nodeTimeoutMs: number;
  runTimeoutMs: number;
  settleGraceMs: number;
  clock: Clock;
  signal: AbortSignal | undefined;
  holdBack: AbortSignal | undefined;
  onNodeError: ((nodeId: string, error: unknown) => void) | undefined;
  onNodeFinished: ((node: NodeResult, progress: NodeProgress) => void) | undefined;
}

function resolveOptions(options: RunWorkflowOptions): ResolvedOptions {
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }
  const nodeTimeoutMs = options.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
  const runTimeoutMs = options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  const settleGraceMs = Math.min(options.settleGraceMs ?? DEFAULT_SETTLE_GRACE_MS, DEFAULT_SETTLE_GRACE_MS);
  for (const [name, value] of [
    ['nodeTimeoutMs', nodeTimeoutMs],
    ['runTimeoutMs', runTimeoutMs],
    ['settleGraceMs', settleGraceMs],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
    }
  }
  return {
    maxConcurrency,
    nodeTimeoutMs,
    runTimeoutMs,
    settleGraceMs,
    clock: options.clock ?? systemClock,
    signal: options.signal,
    holdBack: options.holdBack,
    onNodeError: options.onNodeError,
    onNodeFinished: options.onNodeFinished,
  };
}

type NodeState =
  | { status: 'pending' }
  | { status: 'running'; startedAt: number }
  | {
      status: 'completed';
      startedAt: number;
      finishedAt: number;
      output: NodeOutput;
      model: string | null;
      tokenUsage: TokenUsage | null;
      guardrailFindings: GuardrailFinding[];
    }
  | { status: 'failed'; startedAt: number; finishedAt: number; error: PorchError; model: string | null; tokenUsage: TokenUsage | null }
  /** Running when the caller's signal stopped the run: no output, no error. */
  | { status: 'cut_off'; startedAt: number; finishedAt: number };

/** One run: its bookkeeping lives here so runWorkflow stays a straight line. */
class WorkflowRun {
  private readonly states: NodeState[];
  /** The resource version each skill, composition or persona node resolved, by node index. */
  private readonly resources: (ResourceRan | undefined)[] = [];
  private readonly remainingDependencies: number[];
  /** FIFO of ready node indices; `readyHead` is the next one to start. */
  private readonly ready: number[];
  private readyHead = 0;
  private running = 0;
  /** Set by the first failure, the run time limit or cancellation: start nothing more. */
  private stopped = false;
  private finished = false;
  private readonly runController = new AbortController();
  private runTimer: ReturnType<typeof setTimeout> | undefined;
  private startedAt = 0;
  private resolveRun: (result: WorkflowRunResult) => void = () => undefined;
  private rejectRun: (error: unknown) => void = () => undefined;
  private readonly lookup: (name: string) => unknown;
  /** Characters of the outputs completed so far (MAX_RUN_OUTPUT_CHARACTERS). */
  private outputCharacters = 0;
  private readonly onCancel = (): void => {
    const reason: unknown = this.options.signal?.reason;
    // A stop is not an outage: the nodes it cuts off are skipped, not failed with SERVICE_UNAVAILABLE
    // (regression: a cancelled run's trace and its run.failed webhook read as the database being down).
    this.stop(isPorchError(reason) ? reason : new RunStopped('The workflow run was stopped before it finished.', { cause: reason }));
  };

  constructor(
    private readonly compiled: CompiledWorkflow,
    /** Variables first; completed node outputs are added as they arrive (names never collide). */
    private readonly scope: Map<string, unknown>,
    private readonly executeNode: ExecuteNode,
    private readonly options: ResolvedOptions,
  ) {
    this.states = compiled.nodes.map((): NodeState => ({ status: 'pending' }));
    this.remainingDependencies = compiled.nodes.map((node) => node.dependencyCount);
    this.ready = [...compiled.roots];
    this.lookup = (name) => this.scope.get(name);
  }

  start(): Promise<WorkflowRunResult> {
    return new Promise<WorkflowRunResult>((resolve, reject) => {
      this.resolveRun = resolve;
      this.rejectRun = reject;
      this.startedAt = this.options.clock.now();
      const timeLimitError = new PorchError(TIMEOUT_ERROR_CODE, `The workflow run exceeded its time limit of ${this.options.runTimeoutMs} ms.`);
      this.runTimer = setTimeout(() => this.stop(timeLimitError), this.options.runTimeoutMs);
      if (this.options.signal?.aborted === true) {
        this.onCancel();
      } else {
        this.options.signal?.addEventListener('abort', this.onCancel, { once: true });
      }
      this.guard(() => this.pump());
    });
  }

  /** Runs bookkeeping so that a bug in it rejects the run instead of leaving it hanging. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.cleanUp();
      this.finished = true;
      this.rejectRun(err);
    }
  }

  private stop(reason: PorchError | RunStopped): void {
    if (this.finished) return;
    this.stopped = true;
    this.runController.abort(reason);
  }

  /** Starts every ready node the concurrency bound allows; finishes the run when nothing is left. */
  private pump(): void {
    while (!this.stopped && this.options.holdBack?.aborted !== true && this.readyHead < this.ready.length) {
      const index = this.ready[this.readyHead];
      const compiledNode = index === undefined ? undefined : this.compiled.nodes[index];
      if (index === undefined || compiledNode === undefined) {
        throw new Error(`ready queue holds an unknown node index ${String(index)}`);
      }
      const { render } = compiledNode.kind;
      if (render !== undefined) {
        this.readyHead += 1;
        this.renderInEngine(index, render);
        continue;
      }
      if (this.running >= this.options.maxConcurrency) break;
      this.readyHead += 1;
      this.startNode(index);
    }
    if (this.running === 0) this.finish();
  }

  private renderInEngine(index: number, render: (resolved: WorkflowNode) => NodeOutput): void {
    const compiledNode = this.compiled.nodes[index];
    if (compiledNode === undefined) return;
    const startedAt = this.options.clock.now();
    try {
      this.complete(index, startedAt, { output: render(renderNode(compiledNode, this.lookup)) });
    } catch (err) {
      this.fail(index, startedAt, err);
    }
  }

  private startNode(index: number): void {
    const compiledNode = this.compiled.nodes[index];
    if (compiledNode === undefined) return;
    const startedAt = this.options.clock.now();
    const { node } = compiledNode;
    let resolved: WorkflowNode;
    try {
      resolved = renderNode(compiledNode, this.lookup);
    } catch (err) {
      this.fail(index, startedAt, err);
      return;
    }
    if (!isExecutableNode(node) || !isExecutableNode(resolved)) {
      this.fail(index, startedAt, new Error(`node "${node.id}" of kind "${node.kind}" cannot be executed`));
      return;
    }
    this.states[index] = { status: 'running', startedAt };
    this.running += 1;
    this.callWithLimits(index, node, resolved).then(
      (result) =>
        this.guard(() => {
          this.running -= 1;
          if (isNodeExecutionResult(result)) {
            this.complete(index, startedAt, result);
          } else {
            this.fail(index, startedAt, new TypeError(`executeNode returned no usable output for node "${node.id}"`));
          }
          this.pump();
        }),
      (err: unknown) =>
        this.guard(() => {
          this.running -= 1;
          this.fail(index, startedAt, err);
          this.pump();
        }),
    );
  }

  /**
   * Calls executeNode under the node's own time limit and the run's signal. When either fires,
   * the call's signal is aborted and the call is waited for (see the top of this file): an answer
   * it still gives is the node's, as is a failure that cost something (it failed on its own after
   * it was charged); any other failure is the limit's (or the stop's). A call that has not settled
   * `settleGraceMs` after its abort is given up on, with the limit's error. The run's limit needs
   * no cap of its own here: a call aborted by its node's limit was aborted before the run's limit,
   * so it is given up on by `settleGraceMs` after that limit too.
   */
  private callWithLimits(index: number, node: ExecutableNode, resolved: ExecutableNode): Promise<NodeExecutionResult> {
    const runSignal = this.runController.signal;
    const controller = new AbortController();
    return new Promise<NodeExecutionResult>((resolve, reject) => {
      /** Why the call was aborted, once it was. */
      let abortedWith: { reason: unknown } | undefined;
      let givingUp: ReturnType<typeof setTimeout> | undefined;
      const abortWith = (reason: unknown): void => {
        clearTimeout(timer);
        runSignal.removeEventListener('abort', onRunAbort);
        abortedWith = { reason };
        controller.abort(reason);
        givingUp = setTimeout(() => reject(reason), this.options.settleGraceMs);
      };
      const onRunAbort = (): void => abortWith(runSignal.reason);
      const timer = setTimeout(
        () => abortWith(new PorchError(TIMEOUT_ERROR_CODE, `Node "${node.id}" did not finish within its time limit of ${this.options.nodeTimeoutMs} ms.`)),
        this.options.nodeTimeoutMs,
      );
      runSignal.addEventListener('abort', onRunAbort, { once: true });
      const settle = (): void => {
        clearTimeout(timer);
        clearTimeout(givingUp);
        runSignal.removeEventListener('abort', onRunAbort);
      };
      let call: Promise<NodeExecutionResult>;
      try {
        const ran = (resource: ResourceRan): void => {
          // A node past its limit may still resolve its resource: its trace entry is written.
          if (this.states[index]?.status === 'running') this.resources[index] = { id: resource.id, version: resource.version };
        };
        call = Promise.resolve(this.executeNode(node, resolved, { signal: controller.signal, nodeId: node.id, ran }));
      } catch (err) {
        settle();
        reject(err);
        return;
      }
      call.then(
        (result) => {
          settle();
          resolve(result);
        },
        (err: unknown) => {
          settle();
          const costly = typeof err === 'object' && err !== null && usageOfFailures.has(err);
          reject(abortedWith === undefined || costly ? err : abortedWith.reason);
        },
      );
    });
  }

  private complete(index: number, startedAt: number, result: NodeExecutionResult): void {
    const node = this.compiled.nodes[index];
    if (node === undefined) return;
    this.outputCharacters += typeof result.output === 'string' ? result.output.length : (JSON.stringify(result.output)?.length ?? 0);
    if (this.outputCharacters > MAX_RUN_OUTPUT_CHARACTERS) {
      const message = `The workflow's node outputs come to more than ${MAX_RUN_OUTPUT_CHARACTERS.toLocaleString('en')} characters in all; shorten what its templates repeat.`;
      this.fail(index, startedAt, new PorchError('VALIDATION_ERROR', message));
      return;
    }
    this.states[index] = {
      status: 'completed',
      startedAt,
      finishedAt: this.options.clock.now(),
      output: result.output,
      model: result.model ?? null,
      tokenUsage: result.token_usage ?? null,
      guardrailFindings: result.guardrail_findings ?? [],
    };
    this.scope.set(node.node.id, result.output);
    this.reportFinished(index);
    for (const dependant of node.dependants) {
      const remaining = (this.remainingDependencies[dependant] ?? 0) - 1;
      this.remainingDependencies[dependant] = remaining;
      if (remaining === 0) this.ready.push(dependant);
    }
  }

  private fail(index: number, startedAt: number, err: unknown): void {
    if (err instanceof RunStopped) {
      // Cut off by the stop, which is reported with the run, not as this node's failure.
      this.states[index] = { status: 'cut_off', startedAt, finishedAt: this.options.clock.now() };
      this.stopped = true;
      return;
    }
    const node = this.compiled.nodes[index];
    const used = typeof err === 'object' && err !== null ? usageOfFailures.get(err) : undefined;
    this.states[index] = {
      status: 'failed',
      startedAt,
      finishedAt: this.options.clock.now(),
      error: toPorchError(err),
      model: used?.model ?? null,
      tokenUsage: used?.usage ?? null,
    };
    this.stopped = true;
    this.options.onNodeError?.(node?.node.id ?? String(index), err);
    this.reportFinished(index);
  }

  private finishedCount = 0;

  private reportFinished(index: number): void {
    this.finishedCount += 1;
    const report = this.options.onNodeFinished;
    if (report === undefined) return;
    const result = this.nodeResult(index);
    if (result !== undefined) report(result, { finished: this.finishedCount, total: this.compiled.nodes.length });
  }

  private resourceOf(index: number): { resource?: ResourceRan } {
    const resource = this.resources[index];
    return resource === undefined ? {} : { resource };
  }

  /** The trace entry of a node, as it stands now (pending and running nodes are `skipped`). */
  private nodeResult(index: number): NodeResult | undefined {
    const compiledNode = this.compiled.nodes[index];
    if (compiledNode === undefined) return undefined;
    const state = this.states[index] ?? { status: 'pending' };
    const { id, kind } = compiledNode.node;
    switch (state.status) {
      case 'completed':
        return {
          node_id: id,
          kind,
          status: 'completed',
          output: state.output,
          model: state.model,
          token_usage: state.tokenUsage,
          duration_ms: state.finishedAt - state.startedAt,
          error: null,
          started_at: toIsoTimestamp(state.startedAt),
          finished_at: toIsoTimestamp(state.finishedAt),
          ...(state.guardrailFindings.length > 0 ? { guardrail_findings: state.guardrailFindings } : {}),
          ...this.resourceOf(index),
        };
      case 'failed':
        return {
          node_id: id,
          kind,
          status: 'failed',
          output: null,
          model: state.model,
          token_usage: state.tokenUsage,
          duration_ms: state.finishedAt - state.startedAt,
          error: { code: state.error.code, message: state.error.message },
          started_at: toIsoTimestamp(state.startedAt),
          finished_at: toIsoTimestamp(state.finishedAt),
          ...this.resourceOf(index),
        };
      case 'cut_off':
        // Started, then cut off by a stop from outside: skipped, with the time it ran.
        return {
          node_id: id,
          kind,
          status: 'skipped',
          output: null,
          model: null,
          token_usage: null,
          duration_ms: state.finishedAt - state.startedAt,
          error: null,
          started_at: toIsoTimestamp(state.startedAt),
          finished_at: toIsoTimestamp(state.finishedAt),
          ...this.resourceOf(index),
        };
      case 'pending':
      case 'running':
        // Never started (after a failure or cancellation), or unreachable: skipped.
        return {
          node_id: id,
          kind,
          status: 'skipped',
          output: null,
          model: null,
          token_usage: null,
          duration_ms: 0,
          error: null,
          started_at: null,
          finished_at: null,
        };
    }
  }

  private cleanUp(): void {
    clearTimeout(this.runTimer);
    this.options.signal?.removeEventListener('abort', this.onCancel);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.cleanUp();
    const finishedAt = this.options.clock.now();
    const nodeResults: NodeResult[] = [];
    const tokenUsage: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    let failed = false;
    this.compiled.nodes.forEach((_, index) => {
      const entry = this.nodeResult(index);
      if (entry === undefined) return;
      const state = this.states[index];
      if (entry.status !== 'completed') failed = true;
      if ((state?.status === 'completed' || state?.status === 'failed') && state.tokenUsage !== null) {
        tokenUsage.input_tokens += state.tokenUsage.input_tokens;
        tokenUsage.output_tokens += state.tokenUsage.output_tokens;
        tokenUsage.total_tokens += state.tokenUsage.total_tokens;
      }
      nodeResults.push(entry);
    });
    const outputs: Record<string, NodeOutput> = {};
    for (const [name, index] of this.compiled.outputs) {
      const state = this.states[index];
      if (state?.status === 'completed') outputs[name] = state.output;
    }
    this.resolveRun({
      status: failed ? 'failed' : 'completed',
      outputs,
      node_results: nodeResults,
      token_usage: tokenUsage,
      duration_ms: finishedAt - this.startedAt,
    });
  }
}

function isNodeExecutionResult(value: unknown): value is NodeExecutionResult {
  if (typeof value !== 'object' || value === null) return false;
  const output: unknown = (value as { output?: unknown }).output;
  return typeof output === 'string' || (typeof output === 'object' && output !== null && !Array.isArray(output));
}
