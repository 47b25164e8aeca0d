/**
 * A workflow's DAG is laid out on a worker thread: a large, dense workflow (which dagre takes
 * seconds to lay out) never holds the event loop, and one that takes too long gets no picture
 * rather than a stalled server.
 */
import { describe, expect, it } from 'vitest';
import { LAYOUT_TIMEOUT_MS, layoutOffThread } from '../../src/console/pages/catalog/layout-off-thread.js';
import { longestEventLoopDelay, STALL_BOUND_MS } from '../helpers/event-loop-delay.js';

/** `count` template nodes, each reading the one before it and one far above it (many long edges). */
function denseWorkflow(count: number) {
  const nodes = Array.from({ length: count }, (_, index) => ({
    id: `n${index}`,
    kind: 'template',
    template: index === 0 ? 'about {{topic}}' : `after {{n${Math.floor((index - 1) / 2)}}} and {{n${index - 1}}}`,
  }));
  return { variables: [{ name: 'topic', required: true }], nodes, outputs: { last: `n${count - 1}` } };
}

describe('workflow layout off the event loop', () => {
  it('lays out a small workflow: every node placed, every edge routed', async () => {
    const result = await layoutOffThread(denseWorkflow(4));
    if ('reason' in result) throw new Error(result.reason);
    expect(result.layout.nodes.map((node) => node.id)).toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(result.layout.edges.map((edge) => `${edge.from}->${edge.to}`).sort()).toEqual(['n0->n1', 'n0->n2', 'n1->n2', 'n1->n3', 'n2->n3']);
    expect(result.layout.edges.every((edge) => edge.points.length >= 2)).toBe(true);
  });

  it('never holds the event loop while it lays out the largest workflow allowed, and gives up after its time budget', async () => {
    const started = performance.now();
    const { longestMs, result } = await longestEventLoopDelay(() => layoutOffThread(denseWorkflow(200)));
    expect(longestMs, `the event loop was held for ${longestMs.toFixed(0)} ms`).toBeLessThan(STALL_BOUND_MS);
    expect(performance.now() - started).toBeLessThan(LAYOUT_TIMEOUT_MS + 1_000);
    if ('reason' in result) expect(result.reason).toMatch(/too large to lay out/);
    // The worker stopped for the timeout is replaced: the next layout works.
    expect('layout' in (await layoutOffThread(denseWorkflow(3)))).toBe(true);
  });

  it('says why there is no picture for a definition that is not a sound graph', async () => {
    const result = await layoutOffThread({ nodes: [{ id: 'a', kind: 'template', template: '{{missing}}' }] });
    expect(result).toEqual({ reason: expect.stringMatching(/once every reference names a variable or a node/) });
  });
});
