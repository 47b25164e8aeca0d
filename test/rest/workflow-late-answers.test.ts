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
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NodeResult } from '../../src/core/engine/run-workflow.js';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView, RunView } from '../../src/core/runs/runs.js';
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

describe('a workflow node whose answer arrives as the run stops', () => {
  let harness: ProviderHarness;
  let key: string;
  let accountId: string;
  let workflowId: string;
  /** Runs before node a's charge is accrued; the accrual waits for it. */
  let beforeAccruingA: () => Promise<void>;
  /** The signal of the last workflow execution started (the request's, or the queued run's). */
  let executionSignal: AbortSignal | undefined;

  async function start(config: Record<string, unknown> = {}) {
    harness = await createProviderHarness({ config });
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

  beforeEach(() => {
    executionSignal = undefined;
    beforeAccruingA = async () => undefined;
  });
  afterEach(() => harness.close());

  it('completes a node whose answer is being paid for when its time limit passes, and charges the run what the ledger does (regression: failed with the time limit, charged 0)', async () => {
    await start({ workflows: { node_timeout_ms: NODE_TIMEOUT_MS } });
    // A first run warms the provider path up (its first call loads and connects), so only the
    // held accrual can make node a late.
    const warm = await harness.api<WorkflowAnswer>('POST', `/workflows/${workflowId}/execute`, { key, body: {} });
    expect(warm.body.data?.status, describeResponse(warm)).toBe('completed');
    const warmTokens = STARTING_TOKENS - (await harness.store.credits.balance(accountId)).balanceTokens;
    // Node a's limit was set when it started; a timer of the same length set now fires after it.
    beforeAccruingA = () => new Promise((resolve) => setTimeout(resolve, NODE_TIMEOUT_MS));
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
});
