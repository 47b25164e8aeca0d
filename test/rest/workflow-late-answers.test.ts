/**
 * A workflow node whose answer arrives just as the run stops (its node time limit, its owner's
 * cancel, its client going away) is paid for while the answer is recorded. The run must say what
 * the ledger charged: the node completed, with its output and usage, and the run's
 * `credits_charged` equal to its debit (regression: the node was `skipped` or failed with the
 * time limit, `token_usage: null`, the run charged 0, while the ledger was debited for it).
 *
 * The race is made exact over real HTTP: the fake upstream answers at once, and the store's
 * accrual of node a's charge (the step after its answer was read) is held until the stop has
 * fired; then it goes on.
 *
 * A node call that ignores its abort (stuck in a store call, which takes no signal, or in a
 * provider call that does not stop) is given up on after a bounded grace, and the run is still
 * recorded with what the ledger charged: the charge it made before the run was recorded, in its
 * trace; its hold, before the reservation is settled; and at a shutdown, before the database
 * closes (regression: a 10 s grace outlived the shutdown's 5 s, and the run was lost).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CompletionRequest } from '../../src/core/ai/ai-types.js';
import { SETTLE_AFTER_ABORT_MS, TIMEOUT_ERROR_CODE, type NodeResult } from '../../src/core/engine/run-workflow.js';
import type { WorkflowExecutionResult } from '../../src/core/execution/executions.js';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView, RunView } from '../../src/core/runs/runs.js';
import { postEventStream, type ReceivedEvent } from '../helpers/event-stream.js';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

/** The node time limit of the timeout case: short, so the test is quick, and far above a warm call to the fake upstream. */
const NODE_TIMEOUT_MS = 1_000;
const CREDITS = 1_000;
const STARTING_TOKENS = CREDITS * 1_000;
/** Node a's answer: 4 prompt and 1 completion tokens. */
const A_USAGE = { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 };
/** Node b's answer: 6 prompt and 2 completion tokens. */
const B_USAGE = { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 };

const TWO_STEPS = {
  workflows: [
    {
      key: 'two-steps',
      name: 'Two steps',
      nodes: [
        { id: 'a', kind: 'model', prompt: 'Draft a haiku.' },
        { id: 'b', kind: 'model', prompt: 'Polish: {{a}}' },
      ],
    },
  ],
};

interface WorkflowAnswer {
  run_id: string;
  status: string;
  node_results: NodeResult[];
  token_usage: { total_tokens: number };
}

const nodeOf = (result: unknown, id: string) => (result as { node_results: NodeResult[] }).node_results.find((node) => node.node_id === id);

/** Whether a provider call is node a's. */
const isNodeA = (request: CompletionRequest) => JSON.stringify(request.messages).includes('Draft a haiku.');

/** Resolves once `signal` has fired. */
function abortOf(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return Promise.reject(new Error('no signal to wait for'));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('a workflow node whose answer arrives as the run stops', () => {
  let harness: ProviderHarness;
  let key: string;
  let accountId: string;
  let workflowId: string;
  /** Runs before node a's charge is accrued; the accrual waits for it. */
  let beforeAccruingA: () => Promise<void>;
  /** Runs before node a's hold (the run's first, which opens its reservation); the hold waits for it. */
  let beforeHoldingA: () => Promise<void>;
  /** Node a's provider call, in place of the fake upstream's; undefined: the fake's. */
  let callOfA: ((request: CompletionRequest) => Promise<never>) | undefined;
  /** The signal of the last workflow execution started (the request's, or the queued run's). */
  let executionSignal: AbortSignal | undefined;
  /** The signal of node a's last provider call. */
  let signalOfA: AbortSignal | undefined;
  /** Whether the test closed the harness itself (a shutdown). */
  let closed: boolean;

  async function start(config: Record<string, unknown> = {}, serverTimeouts: { shutdownGraceMs: number } | undefined = undefined) {
    harness = await createProviderHarness({ config, ...(serverTimeouts === undefined ? {} : { serverTimeouts }) });
    ({ key, accountId } = await harness.expertWithKey({ credits: CREDITS }));
    workflowId = (await harness.core.bundles.importBundle(accountId, TWO_STEPS)).ids['workflow:two-steps'] ?? '';
    harness.fake.setBehaviour((request) =>
      JSON.stringify(request.body).includes('Draft a haiku.') ? { content: 'Draft.', usage: A_USAGE } : { content: 'Polished.', usage: B_USAGE },
    );
    const accrue = harness.store.credits.accrue.bind(harness.store.credits);
    harness.store.credits.accrue = async (request) => {
      if (request.usage.nodeId === 'a') await beforeAccruingA();
      return accrue(request);
    };
    const reserve = harness.store.credits.reserve.bind(harness.store.credits);
    harness.store.credits.reserve = async (request) => {
      await beforeHoldingA();
      return reserve(request);
    };
    const complete = harness.core.ai.complete.bind(harness.core.ai);
    harness.core.ai.complete = (request) => {
      if (!isNodeA(request)) return complete(request);
      signalOfA = request.signal;
      return callOfA === undefined ? complete(request) : callOfA(request);
    };
    const executeWorkflow = harness.core.executions.executeWorkflow.bind(harness.core.executions);
    harness.core.executions.executeWorkflow = (caller, id, input, hooks) => {
      executionSignal = hooks?.signal;
      return executeWorkflow(caller, id, input, hooks);
    };
  }

  /** Resolves once the execution's signal has fired (the stop reached the run). */
  function stopReached(): Promise<void> {
    const signal = executionSignal;
    if (signal === undefined) return Promise.reject(new Error('no workflow execution has started'));
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  /** The run's charge, as the run and as the ledger and usage records say it: all three must agree. */
  async function charges(runId: string) {
    const run = (await harness.api<RunDetailView>('GET', `/runs/${runId}`, { key })).body.data;
    const debits = (await harness.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage').reduce((sum, entry) => sum - entry.deltaTokens, 0);
    const nodeRows = (await harness.store.usage.listByAccount(accountId)).filter((row) => row.runId === runId && row.nodeId !== null);
    const { balanceTokens, reservedTokens } = await harness.store.credits.balance(accountId);
    return {
      run,
      runTokens: Math.round(run.credits_charged * 1_000),
      debits,
      nodeRows: nodeRows.map((row) => [row.nodeId, row.status, row.chargedTokens]),
      spent: STARTING_TOKENS - balanceTokens,
      reservedTokens,
    };
  }

  /** The run gives up on a node call 10 ms after its abort: the default, 2.5 s, is waited for in the shutdown test alone. */
  function shortenSettleGrace(): void {
    harness.core.settings.workflowLimits.settleGraceMs = 10;
  }

  /**
   * A first run warms the provider path up (its first call loads and connects), so only what a
   * test holds can make node a late. Returns the tokens it cost.
   */
  async function warmUp(): Promise<number> {
    const warm = await harness.api<WorkflowAnswer>('POST', `/workflows/${workflowId}/execute`, { key, body: {} });
    expect(warm.body.data?.status, describeResponse(warm)).toBe('completed');
    return STARTING_TOKENS - (await harness.store.credits.balance(accountId)).balanceTokens;
  }

  /**
   * Streams an execute and reads it to its end; `onNode` sees each node as it finishes (the
   * engine gave up on a node by the time its failure is sent).
   */
  async function streamed(onNode: (node: NodeResult) => void): Promise<WorkflowExecutionResult> {
    const stream = await postEventStream(harness.url, `/workflows/${workflowId}/execute`, { key, body: { include_trace: true } });
    const events: ReceivedEvent[] = [];
    for await (const event of stream.events) {
      events.push(event);
      if (event.event === 'node') onNode(event.data as NodeResult);
    }
    const done = events.at(-1);
    if (done?.event !== 'done') throw new Error(`the stream did not end with done: ${JSON.stringify(events)}`);
    return (done.data as { data: WorkflowExecutionResult }).data;
  }

  beforeEach(() => {
    executionSignal = undefined;
    signalOfA = undefined;
    callOfA = undefined;
    closed = false;
    beforeAccruingA = async () => undefined;
    beforeHoldingA = async () => undefined;
  });
  afterEach(async () => {
    if (!closed) await harness.close();
  });

  it('completes a node whose answer is being paid for when its time limit passes, and charges the run what the ledger does (regression: failed with the time limit, charged 0)', async () => {
    await start({ workflows: { node_timeout_ms: NODE_TIMEOUT_MS } });
    const warmTokens = await warmUp();
    // Node a's charge waits until its time limit has aborted its call (no timer of the test's own).
    beforeAccruingA = () => abortOf(signalOfA);
    const answered = await harness.api<WorkflowAnswer>('POST', `/workflows/${workflowId}/execute`, { key, body: { include_trace: true } });
    expect(answered.status, describeResponse(answered)).toBe(200);
    const answer = answered.body.data;
    expect(nodeOf(answer, 'a'), describeResponse(answered)).toMatchObject({ status: 'completed', output: 'Draft.', token_usage: { total_tokens: 5 } });
    expect(answer).toMatchObject({ status: 'completed', token_usage: { total_tokens: 13 } });

    const { run, runTokens, debits, nodeRows, spent, reservedTokens } = await charges(answer.run_id);
    expect(run).toMatchObject({ status: 'completed', token_usage: { total_tokens: 13 } });
    expect(nodeRows).toEqual([
      ['a', 'succeeded', 5],
      ['b', 'succeeded', 8],
    ]);
    expect({ runTokens, debits: debits - warmTokens, spent: spent - warmTokens, reservedTokens }).toEqual({
      runTokens: 13,
      debits: 13,
      spent: 13,
      reservedTokens: 0,
    });
  });

  it("keeps a node whose answer is being paid for when its owner cancels the queued run: the cancelled run's charge is the ledger's (regression: skipped, charged 0)", async () => {
    await start();
    let runId = '';
    let cancelling: Promise<unknown> = Promise.resolve();
    beforeAccruingA = async () => {
      cancelling = harness.api<RunDetailView>('POST', `/runs/${runId}/cancel`, { key });
      await stopReached();
    };
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/workflows/${workflowId}/execute`, {
      key,
      body: {},
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    runId = accepted.body.data.run_id;
    await harness.core.runQueue.idle();
    await cancelling;

    const { run, runTokens, debits, nodeRows, spent, reservedTokens } = await charges(runId);
    expect(run).toMatchObject({ status: 'cancelled', cancel_requested: true, token_usage: { total_tokens: 5 } });
    expect(nodeOf(run.result, 'a')).toMatchObject({ status: 'completed', output: 'Draft.', token_usage: { total_tokens: 5 } });
    expect(nodeOf(run.result, 'b')).toMatchObject({ status: 'skipped', started_at: null, error: null });
    expect(nodeRows).toEqual([['a', 'succeeded', 5]]);
    expect({ runTokens, debits, spent, reservedTokens }).toEqual({ runTokens: 5, debits: 5, spent: 5, reservedTokens: 0 });
    expect(harness.fake.requests.length, 'the cancel started no node').toBe(1);
  });

  it("keeps a node whose answer is being paid for when the client goes away: the run's charge is the ledger's (regression: skipped, charged 0)", async () => {
    await start();
    const leaving = new AbortController();
    beforeAccruingA = async () => {
      leaving.abort();
      await stopReached();
    };
    const request = fetch(`${harness.url}/api/public/v1/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
      signal: leaving.signal,
    }).catch((err: unknown) => err);
    await request;
    const listed = await vi.waitFor(async () => {
      const runs = await harness.api<{ items: RunView[] }>('GET', '/runs', { key });
      const [only] = runs.body.data.items;
      if (only === undefined) throw new Error('not recorded yet');
      return only;
    });
    // The run is recorded, then its reservation settled: compare once it is.
    await vi.waitFor(async () => expect((await charges(listed.id)).reservedTokens).toBe(0));

    const { run, runTokens, debits, nodeRows, spent, reservedTokens } = await charges(listed.id);
    expect(run).toMatchObject({ status: 'cancelled', token_usage: { total_tokens: 5 } });
    expect(nodeOf(run.result, 'a')).toMatchObject({ status: 'completed', output: 'Draft.', token_usage: { total_tokens: 5 } });
    expect(nodeOf(run.result, 'b')).toMatchObject({ status: 'skipped', error: null });
    expect(nodeRows).toEqual([['a', 'succeeded', 5]]);
    expect({ runTokens, debits, spent, reservedTokens }).toEqual({ runTokens: 5, debits: 5, spent: 5, reservedTokens: 0 });
  });
  it('counts in the trace the charge of a node call the run gave up on, which landed before the run was recorded (regression: in credits_charged alone)', async () => {
    await start({ workflows: { node_timeout_ms: NODE_TIMEOUT_MS } });
    shortenSettleGrace();
    const warmTokens = await warmUp();
    // Node a's call is stuck in its charge, a store call that takes no signal, until the run
    // has given up on it (its failure is streamed); the run ends meanwhile, its books waiting.
    const givenUp = deferred();
    beforeAccruingA = () => givenUp.promise;
    const answer = await streamed((node) => {
      if (node.node_id === 'a') givenUp.resolve();
    });

    expect(nodeOf(answer, 'a'), JSON.stringify(answer)).toMatchObject({
      status: 'failed',
      model: expect.stringContaining('fast'),
      token_usage: { total_tokens: 5 },
      error: { code: TIMEOUT_ERROR_CODE },
    });
    expect(nodeOf(answer, 'b')).toMatchObject({ status: 'skipped', started_at: null });
    expect(answer).toMatchObject({ status: 'failed', token_usage: { total_tokens: 5 } });
    const { run, runTokens, debits, nodeRows, spent, reservedTokens } = await charges(answer.run_id);
    expect(run).toMatchObject({ status: 'failed', token_usage: { total_tokens: 5 } });
    expect(nodeRows).toEqual([['a', 'succeeded', 5]]);
    expect({ runTokens, debits: debits - warmTokens, spent: spent - warmTokens, reservedTokens }).toEqual({
      runTokens: 5,
      debits: 5,
      spent: 5,
      reservedTokens: 0,
    });
  });

  it('settles the reservation after the hold of a node call the run gave up on (regression: the hold landed after the settlement, and left its reservation open)', async () => {
    await start({ workflows: { node_timeout_ms: NODE_TIMEOUT_MS } });
    shortenSettleGrace();
    const warmTokens = await warmUp();
    // Node a's hold, the run's first, is stuck in the store until the run has given up on it.
    const givenUp = deferred();
    beforeHoldingA = () => givenUp.promise;
    const answer = await streamed((node) => {
      if (node.node_id === 'a') givenUp.resolve();
    });
    beforeHoldingA = async () => undefined;

    expect(nodeOf(answer, 'a'), JSON.stringify(answer)).toMatchObject({ status: 'failed', token_usage: null, error: { code: TIMEOUT_ERROR_CODE } });
    // The given-up call goes on after its hold, aborted: it is recorded as failed, charged nothing.
    await vi.waitFor(async () => expect((await charges(answer.run_id)).nodeRows).toEqual([['a', 'failed', 0]]));
    const { run, runTokens, debits, spent, reservedTokens } = await charges(answer.run_id);
    expect(run).toMatchObject({ status: 'failed', token_usage: { total_tokens: 0 } });
    expect({ runTokens, debits: debits - warmTokens, spent: spent - warmTokens, reservedTokens }).toEqual({
      runTokens: 0,
      debits: 0,
      spent: 0,
      reservedTokens: 0,
    });
  });

  it('records a run whose node call ignores its abort before a shutdown closes the database (regression: the 10 s grace outlived the shutdown, and the run was lost)', async () => {
    await start({}, { shutdownGraceMs: 50 });
    // Node a's provider call never settles, whatever its signal says.
    const reachedA = deferred();
    callOfA = () => {
      reachedA.resolve();
      return new Promise<never>(() => undefined);
    };
    const closeStore = harness.store.close.bind(harness.store);
    let atClose: { runs: { kind: string; status: string }[]; reservedTokens: number } | undefined;
    harness.store.close = async () => {
      const runs = await harness.store.runs.list({ accountId, page: {} });
      atClose = {
        runs: runs.map((row) => ({ kind: row.kind, status: row.status })),
        reservedTokens: (await harness.store.credits.balance(accountId)).reservedTokens,
      };
      await closeStore();
    };
    const request = fetch(`${harness.url}/api/public/v1/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    }).catch((err: unknown) => err);
    await reachedA.promise;
    // The shutdown cuts the request after its 50 ms grace; the run stops and waits for node a.
    closed = true;
    await harness.close();
    await request;
    expect(atClose).toEqual({ runs: [{ kind: 'workflow', status: 'cancelled' }], reservedTokens: 0 });
  });
  it('bounds how long a stopping run queue waits for the runs it aborted (regression: it waited with no bound, past the shutdown budget)', async () => {
    await start();
    // The queued run's node a is stuck in its charge, a store call that takes no signal, until the end.
    const accruing = deferred();
    const stuck = deferred();
    beforeAccruingA = () => {
      accruing.resolve();
      return stuck.promise;
    };
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/workflows/${workflowId}/execute`, {
      key,
      body: {},
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    await accruing.promise;
    // Only the queue's and the engine's timers run from here, and the test moves them.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let stopped = false;
    try {
      const stopping = harness.core.runQueue.stop(0).then(() => {
        stopped = true;
      });
      await vi.advanceTimersByTimeAsync(SETTLE_AFTER_ABORT_MS - 1);
      expect(stopped, 'still waiting within the budget').toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.race([stopping, new Promise((resolve) => setImmediate(resolve))]);
    } finally {
      vi.useRealTimers();
      stuck.resolve();
    }
    expect(stopped, 'stopped once the budget ran out').toBe(true);
    await harness.core.runQueue.idle();
  });
});
