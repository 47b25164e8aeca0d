/**
 * Every run leaves a usage record for the run, a queued run that fails before it calls anything
 * too: its start's refusal (missing variables, here) counts in `GET /usage` as a request and an
 * error, as the run and its `run.failed` webhook do.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView } from '../../src/core/runs/runs.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const ASYNC = { prefer: 'respond-async' };

interface UsageRow {
  group: string | null;
  requests: number;
  errors: number;
  model_calls: number;
  credits_charged: number;
}

let harness: Harness;
let key: string;
let accountId: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey({ credits: 1_000 }));
});
afterEach(() => harness.close());

async function create(path: string, body: unknown): Promise<string> {
  const created = await harness.api<{ id: string }>('POST', path, { key, body });
  expect(created.status, describeResponse(created)).toBe(201);
  return created.body.data.id;
}

async function queueFailingRun(path: string): Promise<RunDetailView> {
  const accepted = await harness.api<QueuedRunAcceptance>('POST', path, { key, body: {}, headers: ASYNC });
  expect(accepted.status, describeResponse(accepted)).toBe(202);
  await harness.core.runQueue.idle();
  const polled = await harness.api<RunDetailView>('GET', `/runs/${accepted.body.data.run_id}`, { key });
  expect(polled.status, describeResponse(polled)).toBe(200);
  return polled.body.data;
}

async function usageOf(resourceId: string): Promise<UsageRow | undefined> {
  const usage = await harness.api<{ rows: UsageRow[] }>('GET', '/usage?group_by=resource', { key });
  expect(usage.status, describeResponse(usage)).toBe(200);
  return usage.body.data.rows.find((row) => row.group === resourceId);
}

describe('the usage record of a queued run that fails as it starts', () => {
  it('a queued workflow missing a required variable counts in usage as a request and an error (regression: it was not counted)', async () => {
    const workflowId = await create('/workflows', {
      name: 'Triage',
      variables: [{ name: 'ticket', required: true }],
      nodes: [{ id: 'triage', kind: 'model', prompt: 'Triage: {{ticket}}' }],
    });
    const run = await queueFailingRun(`/workflows/${workflowId}/execute`);
    expect(run).toMatchObject({ status: 'failed', result: { error: { code: 'VALIDATION_ERROR', message: 'Missing required variable: ticket' } } });

    expect(await usageOf(workflowId)).toMatchObject({ requests: 1, errors: 1, model_calls: 0, credits_charged: 0 });
    const records = (await harness.store.usage.listByAccount(accountId)).filter((record) => record.runId === run.id);
    expect(records).toMatchObject([
      { operation: 'execute_workflow', resourceId: workflowId, resourceVersion: 1, nodeId: null, model: null, status: 'failed', chargedTokens: 0 },
    ]);
  });

  it('a queued composition missing a required variable leaves its usage record too', async () => {
    const compositionId = await create('/compositions', { name: 'Greeting', template: 'Say hello to {{who}}.' });
    const run = await queueFailingRun(`/compositions/${compositionId}/execute`);
    expect(run).toMatchObject({ status: 'failed', result: { error: { code: 'VALIDATION_ERROR' } } });
    expect(await usageOf(compositionId)).toMatchObject({ requests: 1, errors: 1, credits_charged: 0 });
  });
});
