/**
 * `times_used` counts a composition's successful executions: a workflow node's run of it counts
 * once, as a direct execute does, and a node that fails does not (regression: seven completed
 * workflow runs of a composition node left it at 0).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
let key: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key } = await harness.expertWithKey());
});
afterEach(() => harness.close());

async function timesUsed(id: string): Promise<number> {
  const detail = await harness.api<{ times_used: number }>('GET', `/compositions/${id}`, { key });
  expect(detail.status, describeResponse(detail)).toBe(200);
  return detail.body.data.times_used;
}

describe('times_used of a composition run by workflow nodes', () => {
  it('counts each successful node run, alongside direct executes, and not a failed node', async () => {
    const notes = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Release notes', template: 'Notes for {{x}}.' } });
    const strict = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Needs y', template: 'Needs {{y}}.' } });
    const workflow = await harness.api<{ id: string }>('POST', '/workflows', {
      key,
      body: {
        name: 'Notes twice',
        nodes: [
          { id: 'first', kind: 'composition', composition: notes.body.data.id, variables: { x: 'a' } },
          { id: 'second', kind: 'composition', composition: notes.body.data.id, variables: { x: '{{first}}' } },
          { id: 'failing', kind: 'composition', composition: strict.body.data.id, variables: { x: '{{second}}' } },
        ],
      },
    });
    expect(workflow.status, describeResponse(workflow)).toBe(201);

    for (let run = 0; run < 2; run++) {
      const executed = await harness.api<{ status: string }>('POST', `/workflows/${workflow.body.data.id}/execute`, { key, body: {} });
      expect(executed.status, describeResponse(executed)).toBe(200);
      expect(executed.body.data.status).toBe('failed');
    }
    expect(await timesUsed(notes.body.data.id)).toBe(4);
    expect(await timesUsed(strict.body.data.id)).toBe(0);

    const direct = await harness.api('POST', `/compositions/${notes.body.data.id}/execute`, { key, body: { variables: { x: 'c' } } });
    expect(direct.status, describeResponse(direct)).toBe(200);
    expect(await timesUsed(notes.body.data.id)).toBe(5);
  });

  it('does not count a node run whose workflow could not be paid for (402 BILLING_FAILED, the answer withheld)', async () => {
    const notes = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Release notes', template: 'Notes for {{x}}.' } });
    const workflow = await harness.api<{ id: string }>('POST', '/workflows', {
      key,
      body: { name: 'Notes once', nodes: [{ id: 'only', kind: 'composition', composition: notes.body.data.id, variables: { x: 'a' } }] },
    });
    // The balance spent by other calls while the run went on: its settlement is refused.
    const settle = harness.store.credits.settle;
    harness.store.credits.settle = async () => ({ ok: false, reason: 'insufficient_balance', balance: { balanceTokens: 0, reservedTokens: 0 } });
    const executed = await harness.api('POST', `/workflows/${workflow.body.data.id}/execute`, { key, body: {} });
    harness.store.credits.settle = settle;
    expect(executed.status, describeResponse(executed)).toBe(402);
    expect(await timesUsed(notes.body.data.id)).toBe(0);
  });
});
