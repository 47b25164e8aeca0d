/**
 * A workflow run stopped from outside (its client went away, its owner cancelled it) is not a
 * failure: the nodes it cut off are skipped with the time they ran, never failed with an error
 * code that means an outage (regression: node b carried SERVICE_UNAVAILABLE, "The workflow run
 * was cancelled before it finished.").
 */
import { describe, expect, it } from 'vitest';
import { CallStopped, PorchError } from '../../../src/core/errors.js';
import { runWorkflow, stoppedByCaller, type ExecuteNode, type NodeExecutionContext, type NodeResult } from '../../../src/core/engine/run-workflow.js';
import { validateWorkflowDefinition } from '../../../src/core/engine/workflow-definition.js';
import { stoppedFromOutside } from '../../../src/core/telemetry/stopped-calls.js';

const definition = validateWorkflowDefinition({
  nodes: [
    { id: 'a', kind: 'model', prompt: 'x' },
    { id: 'b', kind: 'model', prompt: '{{a}}' },
    { id: 'c', kind: 'model', prompt: '{{b}}' },
  ],
});

/** Node a answers at once; node b waits until its signal fires, and reports that it started. */
function executorStoppingAtB(onB: (ctx: NodeExecutionContext) => void): ExecuteNode {
  return async (node, _resolved, ctx) => {
    if (node.id === 'a') return { output: 'from a', model: 'fake/fast', token_usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } };
    onB(ctx);
    // As a provider call does, whether the signal fired before the call or during it.
    if (ctx.signal.aborted) throw new Error('aborted');
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  };
}

const byId = (nodes: NodeResult[], id: string) => nodes.find((node) => node.node_id === id);

describe('runWorkflow stopped from outside', () => {
  it('skips the node a cancel cut off, with the time it ran and no error code (regression: SERVICE_UNAVAILABLE in its trace)', async () => {
    const controller = new AbortController();
    let nodeSignal: AbortSignal | undefined;
    const run = await runWorkflow(
      definition,
      {},
      executorStoppingAtB((ctx) => {
        nodeSignal = ctx.signal;
        controller.abort(new CallStopped('its run was cancelled'));
      }),
      { signal: controller.signal },
    );
    expect(run.status).toBe('failed');
    expect(byId(run.node_results, 'a')).toMatchObject({ status: 'completed', output: 'from a', token_usage: { total_tokens: 5 } });
    const cutOff = byId(run.node_results, 'b');
    expect(cutOff).toMatchObject({ status: 'skipped', output: null, error: null, token_usage: null });
    expect(cutOff?.started_at, 'it ran, and the trace says when').not.toBeNull();
    expect(cutOff?.finished_at).not.toBeNull();
    expect(byId(run.node_results, 'c')).toMatchObject({ status: 'skipped', started_at: null, error: null });
    expect(run.token_usage.total_tokens).toBe(5);
    expect(JSON.stringify(run)).not.toContain('SERVICE_UNAVAILABLE');
    expect(stoppedByCaller(run), 'the answer says it was stopped, not failed').toBe(true);
    // Telemetry still reads the stop from the node's signal (its CANCELLED outcome).
    expect(stoppedFromOutside(nodeSignal)).toBe(true);
  });

  it('still fails the running nodes with the reason when the caller stops the run with a PorchError', async () => {
    const controller = new AbortController();
    const run = await runWorkflow(
      definition,
      {},
      executorStoppingAtB(() => controller.abort(new PorchError('AI_SERVICE_ERROR', 'The caller gave up.'))),
      { signal: controller.signal },
    );
    expect(byId(run.node_results, 'b')).toMatchObject({ status: 'failed', error: { code: 'AI_SERVICE_ERROR', message: 'The caller gave up.' } });
    expect(stoppedByCaller(run)).toBe(false);
  });

  it('tells a failed run from a stopped one by its trace', async () => {
    const failing: ExecuteNode = async () => {
      throw new PorchError('AI_SERVICE_ERROR', 'The provider failed.');
    };
    const failed = await runWorkflow(definition, {}, failing);
    expect(failed.status).toBe('failed');
    expect(stoppedByCaller(failed)).toBe(false);
    const completed = await runWorkflow(definition, {}, async () => ({ output: 'ok' }));
    expect(stoppedByCaller(completed)).toBe(false);
    expect(stoppedByCaller(null)).toBe(false);
    expect(stoppedByCaller({ error: { code: 'AI_SERVICE_ERROR', message: 'x' } })).toBe(false);
  });
});
