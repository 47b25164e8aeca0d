/**
 * A node whose call still answers after its signal fired (its answer had arrived, and was being
 * checked and paid for, when its time limit passed or the run was stopped) is completed with its
 * output and usage, and the run answers only once that call has settled (regression: the node
 * was failed or skipped with no usage at once, and the run recorded before the late charge).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallStopped, PorchError } from '../../../src/core/errors.js';
import {
  DEFAULT_SETTLE_GRACE_MS,
  runWorkflow,
  SETTLE_AFTER_ABORT_MS,
  TIMEOUT_ERROR_CODE,
  usedBeforeFailing,
  type ExecuteNode,
  type NodeExecutionResult,
  type NodeResult,
} from '../../../src/core/engine/run-workflow.js';
import { validateWorkflowDefinition } from '../../../src/core/engine/workflow-definition.js';

const definition = validateWorkflowDefinition({
  nodes: [
    { id: 'a', kind: 'model', prompt: 'x' },
    { id: 'b', kind: 'model', prompt: '{{a}}' },
  ],
});

const USAGE = { input_tokens: 3, output_tokens: 2, total_tokens: 5 };

/**
 * Node a's call: once its signal fires, it settles as `settleAfterAbort` says, a turn later (the
 * answer's recording finishing). Node b answers at once.
 */
function executorSettlingAfterAbort(settleAfterAbort: () => Promise<NodeExecutionResult>, onA: () => void = () => undefined): ExecuteNode {
  return async (node, _resolved, ctx) => {
    if (node.id !== 'a') return { output: 'from b', model: 'fake/fast', token_usage: USAGE };
    onA();
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await new Promise((resolve) => setImmediate(resolve));
    return settleAfterAbort();
  };
}

const byId = (nodes: NodeResult[], id: string) => nodes.find((node) => node.node_id === id);

describe('runWorkflow: an answer that arrives as the node stops', () => {
  it('completes a node whose call answers after its time limit fired, and goes on (regression: failed with the limit, its usage lost)', async () => {
    const run = await runWorkflow(
      definition,
      {},
      executorSettlingAfterAbort(async () => ({ output: 'from a', model: 'fake/fast', token_usage: USAGE })),
      { nodeTimeoutMs: 5 },
    );
    expect(byId(run.node_results, 'a')).toMatchObject({ status: 'completed', output: 'from a', token_usage: USAGE, error: null });
    expect(run.status).toBe('completed');
    expect(run.token_usage.total_tokens).toBe(10);
  });

  it("completes a node whose call answers after the caller's stop, and starts nothing after it (regression: skipped with no usage)", async () => {
    const controller = new AbortController();
    const run = await runWorkflow(
      definition,
      {},
      executorSettlingAfterAbort(
        async () => ({ output: 'from a', model: 'fake/fast', token_usage: USAGE }),
        () => controller.abort(new CallStopped('its run was cancelled')),
      ),
      { signal: controller.signal },
    );
    expect(byId(run.node_results, 'a')).toMatchObject({ status: 'completed', output: 'from a', token_usage: USAGE });
    expect(byId(run.node_results, 'b')).toMatchObject({ status: 'skipped', started_at: null });
    expect(run.status).toBe('failed');
    expect(run.token_usage.total_tokens).toBe(5);
  });

  it('fails a node whose call fails without a cost after its time limit with the limit, and one that failed after it was charged with its own error and usage', async () => {
    const free = await runWorkflow(
      definition,
      {},
      executorSettlingAfterAbort(async () => {
        throw new Error('AbortError: request aborted');
      }),
      { nodeTimeoutMs: 5 },
    );
    expect(byId(free.node_results, 'a')).toMatchObject({
      status: 'failed',
      token_usage: null,
      error: { code: TIMEOUT_ERROR_CODE, message: 'Node "a" did not finish within its time limit of 5 ms.' },
    });

    const charged = await runWorkflow(
      definition,
      {},
      executorSettlingAfterAbort(async () => {
        throw usedBeforeFailing(new PorchError('CONTENT_BLOCKED', 'The answer was blocked.'), { model: 'fake/fast', usage: USAGE });
      }),
      { nodeTimeoutMs: 5 },
    );
    expect(byId(charged.node_results, 'a')).toMatchObject({ status: 'failed', token_usage: USAGE, error: { code: 'CONTENT_BLOCKED' } });
    expect(charged.token_usage.total_tokens).toBe(5);
  });
});

describe('runWorkflow: the wait for a call after its abort is bounded', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs `definition` with a node call that never settles, whatever its signal says; reports when it answers. */
  function runIgnoringSignals(options: { nodeTimeoutMs: number; runTimeoutMs: number; settleGraceMs?: number }) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const state = { answered: false };
    const ignoring: ExecuteNode = () => new Promise<NodeExecutionResult>(() => undefined);
    const running = runWorkflow(definition, {}, ignoring, options).then((run) => {
      state.answered = true;
      return run;
    });
    return { state, running };
  }

  it("answers at most the settle grace after a node's limit that passed just before the run's, within half the shutdown's budget (regression: 10 s, past the shutdown's 5 s)", async () => {
    const { state, running } = runIgnoringSignals({ nodeTimeoutMs: 999, runTimeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(999 + DEFAULT_SETTLE_GRACE_MS - 1);
    expect(state.answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.answered).toBe(true);
    expect(byId((await running).node_results, 'a')).toMatchObject({ status: 'failed', error: { code: TIMEOUT_ERROR_CODE } });
    expect(999 + DEFAULT_SETTLE_GRACE_MS).toBeLessThanOrEqual(1_000 + SETTLE_AFTER_ABORT_MS / 2);
  });

  it('never waits longer than the default grace, whatever it is asked (a longer wait would outlast a shutdown)', async () => {
    const { state } = runIgnoringSignals({ nodeTimeoutMs: 10, runTimeoutMs: 60_000, settleGraceMs: 60_000 });
    await vi.advanceTimersByTimeAsync(10 + DEFAULT_SETTLE_GRACE_MS);
    expect(state.answered).toBe(true);
  });
});
