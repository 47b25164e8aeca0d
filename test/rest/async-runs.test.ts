/**
 * Asynchronous runs over real HTTP: `Prefer: respond-async` queues any of the four executions (202
 * with the run's id and Location), the queue executes it through the same operation as a request
 * would (same answer, same charge), the run can be polled and cancelled, and the checks that need
 * no model call are made before anything is queued.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView } from '../../src/core/runs/runs.js';
import { describeResponse } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const ASYNC = { prefer: 'respond-async' };

let harness: ProviderHarness;
let key: string;
let accountId: string;
let ids: Record<string, string>;

beforeEach(async () => {
  harness = await createProviderHarness({
    models: [{ name: 'fast', max_output_tokens: 200 }],
    config: { limits: { max_running_runs_per_account: 1 } },
  });
  ({ key, accountId } = await harness.expertWithKey({ credits: 1_000 }));
  ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
});
afterEach(() => harness.close());

const compositionPath = () => `/compositions/${ids['composition:release-notes']}/execute`;

async function queue(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await harness.api<QueuedRunAcceptance>('POST', path, { key, body, headers: { ...ASYNC, ...headers } });
  expect(response.status, describeResponse(response)).toBe(202);
  return response;
}

async function run(id: string) {
  const response = await harness.api<RunDetailView>('GET', `/runs/${id}`, { key });
  expect(response.status, describeResponse(response)).toBe(200);
  return response;
}

describe('Prefer: respond-async', () => {
  it('answers 202 with the run id and Location at once, then the run completes with the answer a request gets, charged once', async () => {
    harness.fake.setBehaviour({ content: 'Notes.', usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } });
    const accepted = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    const runId = accepted.body.data.run_id;
    expect(accepted.body.data).toEqual({ run_id: runId, status: 'queued' });
    expect(accepted.headers.get('location')).toBe(`${harness.config.publicUrl}/api/public/v1/runs/${runId}`);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');

    await harness.core.runQueue.idle();
    const polled = await run(runId);
    expect(polled.headers.get('retry-after'), 'an ended run needs no more polling').toBeNull();
    expect(polled.body.data).toMatchObject({
      id: runId,
      kind: 'composition',
      status: 'completed',
      version: 1,
      attempts: 1,
      cancel_requested: false,
      token_usage: { input_tokens: 30, output_tokens: 5, total_tokens: 35 },
      credits_charged: 0.035,
      inputs: { variables: RELEASE_VARIABLES },
      result: { content: 'Notes.', model_used: 'fake/fast', version: 1, token_usage: { total_tokens: 35 } },
    });
    expect(polled.body.data.started_at).not.toBeNull();
    expect(polled.body.data.finished_at).not.toBeNull();

    const synchronous = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES } });
    expect(Object.keys(polled.body.data.result as object).sort(), 'the run keeps exactly the answer a request gets').toEqual(
      Object.keys(synchronous.body.data as object).sort(),
    );
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000 - 70, reservedTokens: 0 });
    const usage = (await harness.store.usage.listByAccount(accountId)).filter((row) => row.runId === runId);
    expect(usage.map((row) => [row.status, row.chargedTokens])).toEqual([['succeeded', 35]]);
  });

  it('queues skills, personas and workflows too, each run ending with its own answer', async () => {
    const skill = await queue(`/skills/${ids['skill:summarise']}/execute`, { input: 'Porch runs workflows.', variables: { bullets: 2 } });
    const persona = await queue(`/personas/${ids['persona:plain-editor']}/execute`, { input: 'Utilise synergies.' });
    const workflow = await queue(`/workflows/${ids['workflow:release-announcement']}/execute`, { variables: RELEASE_VARIABLES, include_trace: true });
    await harness.core.runQueue.idle();
    expect((await run(skill.body.data.run_id)).body.data).toMatchObject({ status: 'completed', result: { skill_name: 'Summarise' } });
    expect((await run(persona.body.data.run_id)).body.data).toMatchObject({ status: 'completed', result: { persona_name: 'Plain-English editor' } });
    const workflowRun = (await run(workflow.body.data.run_id)).body.data;
    expect(workflowRun).toMatchObject({ kind: 'workflow', status: 'completed', result: { run_id: workflow.body.data.run_id, status: 'completed' } });
    expect((workflowRun.result as { node_results: unknown[] }).node_results).toHaveLength(4);
    const nodeUsage = (await harness.store.usage.listByAccount(accountId)).filter((row) => row.runId === workflow.body.data.run_id && row.nodeId !== null);
    expect(nodeUsage, "the workflow's node calls name the queued run").toHaveLength(3);
  });

  it('refuses an unknown resource, version, label or model at once, queueing nothing', async () => {
    const missing = await harness.api('POST', '/compositions/0190a4b0-0000-7000-8000-000000000000/execute', { key, body: {}, headers: ASYNC });
    expect(missing.status, describeResponse(missing)).toBe(404);
    const badLabel = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES, label: 'canary' }, headers: ASYNC });
    expect(badLabel.status, describeResponse(badLabel)).toBe(400);
    expect(badLabel.body.error.message).toContain('canary');
    const invalid = await harness.api('POST', compositionPath(), { key, body: { variables: 'nope' }, headers: ASYNC });
    expect(invalid.status, describeResponse(invalid)).toBe(400);
    // A model the server does not offer, as a request is refused (regression: 202, then a failed run).
    const unknownModel = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES, model: 'nope/nope' }, headers: ASYNC });
    expect(unknownModel.status, describeResponse(unknownModel)).toBe(400);
    expect(unknownModel.body.error.message).toContain('Unknown model "nope/nope"');
    expect((await harness.api<{ count: number }>('GET', '/runs', { key })).body.data.count).toBe(0);
  });

  it('fails the run with the error a request would get, checked when the run starts', async () => {
    const accepted = await queue(compositionPath(), { variables: { product: 'Porch' } });
    await harness.core.runQueue.idle();
    const failed = (await run(accepted.body.data.run_id)).body.data;
    expect(failed).toMatchObject({ status: 'failed', result: { error: { code: 'VALIDATION_ERROR' } } });
    expect((failed.result as { error: { message: string } }).error.message).toContain('version');

    harness.fake.setBehaviour({ status: 500 });
    const upstream = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.core.runQueue.idle();
    expect((await run(upstream.body.data.run_id)).body.data).toMatchObject({ status: 'failed', result: { error: { code: 'AI_SERVICE_ERROR' } } });
    expect(await harness.store.credits.balance(accountId), 'a failed run holds nothing back').toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
  });

  it("names a failed run's error in the deployment's code set, as the request would have (regression: Set A under PORCH_ERROR_CODES=b)", async () => {
    const setB = await createProviderHarness({ env: { PORCH_ERROR_CODES: 'b' } });
    try {
      const { key: setBKey, accountId: setBAccount } = await setB.expertWithKey({ credits: 1_000 });
      const path = `/compositions/${(await setB.core.bundles.importBundle(setBAccount, DEMO_BUNDLE)).ids['composition:release-notes']}/execute`;
      const answered = await setB.api('POST', path, { key: setBKey, body: { variables: { product: 'Porch' } } });
      expect(answered.body.error.code).toBe('INVALID_REQUEST');
      const accepted = await setB.api<QueuedRunAcceptance>('POST', path, { key: setBKey, body: { variables: { product: 'Porch' } }, headers: ASYNC });
      await setB.core.runQueue.idle();
      const failed = await setB.api<RunDetailView>('GET', `/runs/${accepted.body.data.run_id}`, { key: setBKey });
      expect(failed.body.data).toMatchObject({ status: 'failed', result: { error: { code: 'INVALID_REQUEST' } } });
    } finally {
      await setB.close();
    }
  });

  it('acts as the key that queued it when it starts: a key revoked meanwhile fails the run', async () => {
    const { id: keyId, key: doomed } = await harness.createKey(accountId);
    harness.fake.setBehaviour({ delayMs: 200 });
    await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.fake.waitForRequests(1);
    // The account's only running slot is taken, so this run waits in the queue while its key is revoked.
    const waiting = await harness.api<QueuedRunAcceptance>('POST', compositionPath(), { key: doomed, body: { variables: RELEASE_VARIABLES }, headers: ASYNC });
    expect((await run(waiting.body.data.run_id)).body.data.status).toBe('queued');
    await harness.core.accounts.revokeKey(keyId);
    await harness.core.runQueue.idle();
    expect((await run(waiting.body.data.run_id)).body.data).toMatchObject({ status: 'failed', result: { error: { code: 'INVALID_API_KEY' } } });
    expect(harness.fake.requests).toHaveLength(1);
  });

  it("runs an account's runs one at a time under a bound of one, each on the version it was queued for", async () => {
    const compositionId = ids['composition:release-notes'] ?? '';
    harness.fake.setBehaviour({ delayMs: 200 });
    const first = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.fake.waitForRequests(1);
    const second = await queue(compositionPath(), { variables: RELEASE_VARIABLES, label: 'latest' });
    const polled = await run(second.body.data.run_id);
    expect(polled.body.data.status, 'the bound keeps it queued').toBe('queued');
    expect(polled.headers.get('retry-after')).toBe('1');
    expect((await run(first.body.data.run_id)).body.data.status).toBe('running');

    // A new version after it was queued does not change what it runs.
    const updated = await harness.api('PATCH', `/compositions/${compositionId}`, { key, body: { template: 'Version two of {{product}}.' } });
    expect(updated.status, describeResponse(updated)).toBe(200);
    await harness.core.runQueue.idle();
    expect((await run(second.body.data.run_id)).body.data).toMatchObject({ status: 'completed', version: 1, result: { version: 1 } });
    expect(harness.fake.requests[1]?.body).toMatchObject({ messages: [{ content: expect.stringContaining('Write release notes for Porch') }] });
  });
});

/** Queues a run of the demo composition straight into the store, as another process's request would. */
async function enqueueComposition(id: string, inputs: Record<string, unknown>): Promise<void> {
  const { id: keyId } = await harness.createKey(accountId);
  await harness.store.runs.enqueue({
    id,
    accountId,
    keyId,
    keyKind: 'api_key',
    kind: 'composition',
    resourceId: ids['composition:release-notes'] ?? '',
    version: 1,
    createdAt: harness.clock.now(),
    inputs,
  });
}

describe('runs cut off by a stopped process', () => {
  it('goes back to the queue once, and is failed when cut off a second time', async () => {
    // This server's own queue stays out of it: the test plays the processes that claim the run.
    await harness.core.runQueue.stop(0);
    const id = '0190a4b0-0000-7000-8000-0000000000aa';
    await enqueueComposition(id, {});
    // Claimed by processes that then vanished (they never held a lease), twice.
    for (const [attempt, expected] of [
      [1, { requeued: 1, failed: 0, cancelled: 0 }],
      [2, { requeued: 0, failed: 1, cancelled: 0 }],
    ] as const) {
      const claimed = await harness.store.runs.claim({ instanceId: `gone-${attempt}`, now: harness.clock.now(), maxRunningPerAccount: 10 });
      expect(claimed).toMatchObject({ id, attempts: attempt });
      expect(await harness.core.runQueue.recover()).toEqual(expected);
    }
    const failed = (await run(id)).body.data;
    expect(failed).toMatchObject({ status: 'failed', attempts: 2, result: { error: { code: 'INTERNAL_ERROR' } } });
    expect((failed.result as { error: { message: string } }).error.message).toContain('cut off 2 times');
  });

  it('ends a run cancelled while its process was gone as cancelled: never run again nor charged again (regression)', async () => {
    await harness.core.runQueue.stop(0);
    const id = '0190a4b0-0000-7000-8000-0000000000ac';
    await enqueueComposition(id, { variables: RELEASE_VARIABLES });
    expect(await harness.store.runs.claim({ instanceId: 'gone', now: harness.clock.now(), maxRunningPerAccount: 10 })).toMatchObject({ id });
    // Charged 70 tokens by an earlier attempt that a shutdown cut off.
    await harness.store.runs.noteAttemptCost({ id, instanceId: 'gone', inputTokens: 50, outputTokens: 20, totalTokens: 70, chargedTokens: 70 });
    const cancelling = await harness.api<RunDetailView>('POST', `/runs/${id}/cancel`, { key });
    expect(cancelling.body.data).toMatchObject({ status: 'running', cancel_requested: true });

    expect(await harness.core.runQueue.recover()).toEqual({ requeued: 0, failed: 0, cancelled: 1 });
    const ended = (await run(id)).body.data;
    expect(ended).toMatchObject({ status: 'cancelled', attempts: 1, token_usage: { total_tokens: 70 } });
    expect(ended.credits_charged).toBeCloseTo(0.07, 6);
    expect(harness.fake.requests).toHaveLength(0);
  });
});

describe('the cost of attempts cut off by a shutdown', () => {
  /** The account's usage charges in the ledger, in tokens. */
  const ledgerCharges = async () =>
    (await harness.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage').reduce((sum, entry) => sum - entry.deltaTokens, 0);

  it('stays on the run when this process stops mid-run, matching the ledger (regression: the run showed 0)', async () => {
    const workflowId = (
      await harness.core.bundles.importBundle(accountId, {
        workflows: [
          {
            key: 'two-steps',
            name: 'Two steps',
            nodes: [
              { id: 'draft', kind: 'model', prompt: 'Draft a haiku.' },
              { id: 'polish', kind: 'model', prompt: 'Polish: {{draft}}' },
            ],
          },
        ],
      })
    ).ids['workflow:two-steps'];
    // The first node answers at once; the second is still waiting when the process stops.
    harness.fake.setBehaviour((_request, index) => (index === 0 ? {} : { delayMs: 60_000 }));
    const queued = await queue(`/workflows/${workflowId}/execute`, {});
    await harness.fake.waitForRequests(2);
    await harness.core.runQueue.stop(0);
    const charged = await ledgerCharges();
    expect(charged, 'the first node was charged').toBeGreaterThan(0);
    const kept = await harness.store.runs.findOwned({ accountId, id: queued.body.data.run_id });
    expect(kept).toMatchObject({ status: 'running', chargedTokens: charged });
    expect(kept?.totalTokens).toBeGreaterThan(0);
  });

  it('adds up over the attempts: the attempt that completes the run adds its own to what the earlier ones cost', async () => {
    const id = '0190a4b0-0000-7000-8000-0000000000bb';
    await enqueueComposition(id, { variables: RELEASE_VARIABLES });
    // A process that claimed it, was charged 70 tokens, was stopped, and is gone.
    expect(await harness.store.runs.claim({ instanceId: 'gone', now: harness.clock.now(), maxRunningPerAccount: 10 })).toMatchObject({ id });
    expect(await harness.store.runs.noteAttemptCost({ id, instanceId: 'gone', inputTokens: 50, outputTokens: 20, totalTokens: 70, chargedTokens: 70 })).toBe(
      true,
    );
    expect(await harness.core.runQueue.recover()).toEqual({ requeued: 1, failed: 0, cancelled: 0 });
    await harness.core.runQueue.idle();
    const completed = (await run(id)).body.data;
    const [usage] = await harness.store.usage.listByAccount(accountId);
    expect(completed).toMatchObject({ status: 'completed', attempts: 2 });
    expect(completed.token_usage.total_tokens).toBe(70 + (usage?.totalTokens ?? 0));
    expect(completed.credits_charged).toBeCloseTo((70 + (usage?.chargedTokens ?? 0)) / 1_000, 6);
  });
});

describe('cancelling a run', () => {
  it('cancels a queued run before it starts, so it never calls a model', async () => {
    harness.fake.setBehaviour({ delayMs: 200 });
    await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.fake.waitForRequests(1);
    const waiting = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${waiting.body.data.run_id}/cancel`, { key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', cancel_requested: true, started_at: null });
    await harness.core.runQueue.idle();
    expect(harness.fake.requests).toHaveLength(1);
    const again = await harness.api('POST', `/runs/${waiting.body.data.run_id}/cancel`, { key });
    expect(again.status, describeResponse(again)).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('aborts a running run, releasing its reservation and charging what it used', async () => {
    harness.fake.setBehaviour({ delayMs: 10_000 });
    const running = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.fake.waitForRequests(1);
    expect((await harness.store.credits.balance(accountId)).reservedTokens).toBeGreaterThan(0);
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${running.body.data.run_id}/cancel`, { key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', cancel_requested: true, token_usage: { total_tokens: 0 } });
    expect(cancelled.body.data.finished_at).not.toBeNull();
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
    // No error code that reads as a provider failure (regression: AI_SERVICE_ERROR, "was stopped: its run was cancelled").
    expect(cancelled.body.data.result).toBeNull();
  });

  it("refuses a key whose execute scope is another kind's, and a run that already ended", async () => {
    const accepted = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.core.runQueue.idle();
    const { key: workflowsOnly } = await harness.createKey(accountId, { scopes: ['execute:workflow'] });
    const read = await harness.api('GET', `/runs/${accepted.body.data.run_id}`, { key: workflowsOnly });
    expect(read.status, describeResponse(read)).toBe(403);
    expect(read.body.error.message).toContain('execute:composition');
    const { key: compositionsOnly } = await harness.createKey(accountId, { scopes: ['execute:composition'] });
    expect((await harness.api('GET', `/runs/${accepted.body.data.run_id}`, { key: compositionsOnly })).status, 'a key follows the runs it may start').toBe(200);
    const ended = await harness.api('POST', `/runs/${accepted.body.data.run_id}/cancel`, { key: compositionsOnly });
    expect(ended.status, describeResponse(ended)).toBe(409);
  });
});

describe('Idempotency-Key with respond-async', () => {
  it('replays the same queued run for the same key and body, and refuses the key for a synchronous call', async () => {
    const headers = { 'idempotency-key': 'async-once' };
    const first = await queue(compositionPath(), { variables: RELEASE_VARIABLES }, headers);
    const replay = await queue(compositionPath(), { variables: RELEASE_VARIABLES }, headers);
    expect(replay.body.data.run_id).toBe(first.body.data.run_id);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    const synchronous = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES }, headers });
    expect(synchronous.status, describeResponse(synchronous)).toBe(409);
    // The body is the same: the message names the header, not a difference there is not (regression: "with a different request").
    expect(synchronous.body.error).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
      message:
        'This Idempotency-Key was already used for this same request queued as a run (Prefer: respond-async); send that header again to get its run_id, or use a new key.',
    });
    const otherBody = await harness.api('POST', compositionPath(), { key, body: { variables: { ...RELEASE_VARIABLES, extra: 'x' } }, headers });
    expect(otherBody.body.error.message).toBe('This Idempotency-Key was already used with a different request; use a new key for a new request.');
    await harness.core.runQueue.idle();
    expect((await harness.api<{ count: number }>('GET', '/runs', { key })).body.data.count).toBe(1);
  });

  it('tells an asynchronous request whose key answered the same request at once to drop the header', async () => {
    const headers = { 'idempotency-key': 'answered-once' };
    const answered = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES }, headers });
    expect(answered.status, describeResponse(answered)).toBe(200);
    const queued = await harness.api('POST', compositionPath(), { key, body: { variables: RELEASE_VARIABLES }, headers: { ...headers, ...ASYNC } });
    expect(queued.status, describeResponse(queued)).toBe(409);
    expect(queued.body.error.message).toBe(
      'This Idempotency-Key was already used for this same request answered at once (without Prefer: respond-async); send it without that header to get the stored answer, or use a new key.',
    );
  });
});

describe('a queued run whose outcome is too large or cannot be written', () => {
  it('ends failed instead of staying running and holding the account’s slot (regression: a workflow doubling its output)', async () => {
    const nodes = [
      { id: 'n0', kind: 'template', template: 'xxxxxxxxxx' },
      ...Array.from({ length: 39 }, (_, index) => ({ id: `n${index + 1}`, kind: 'template', template: `{{n${index}}}{{n${index}}}` })),
    ];
    const workflowId = (await harness.core.bundles.importBundle(accountId, { workflows: [{ key: 'double', name: 'Doubling', nodes }] })).ids['workflow:double'];
    const accepted = await queue(`/workflows/${workflowId}/execute`, {});
    await harness.core.runQueue.idle();
    const ended = (await run(accepted.body.data.run_id)).body.data;
    expect(ended.status).toBe('failed');
    const results = (ended.result as { node_results: Array<{ node_id: string; status: string; error: { code: string } | null }> }).node_results;
    expect(results.find((node) => node.node_id === 'n18')).toMatchObject({ status: 'failed', error: { code: 'VALIDATION_ERROR' } });
    // The account's only running slot is free again: the next run completes.
    harness.fake.setBehaviour({ content: 'Notes.' });
    const next = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.core.runQueue.idle();
    expect((await run(next.body.data.run_id)).body.data).toMatchObject({ status: 'completed' });
  });

  it('records the run failed, with what it cost, when the store refuses its outcome', async () => {
    harness.fake.setBehaviour({ content: 'Notes.', usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } });
    const complete = harness.store.runs.complete.bind(harness.store.runs);
    let refused = 0;
    harness.store.runs.complete = async (completion, events) => {
      if (completion.status === 'completed') {
        refused += 1;
        throw new RangeError('Invalid string length');
      }
      return complete(completion, events);
    };
    const accepted = await queue(compositionPath(), { variables: RELEASE_VARIABLES });
    await harness.core.runQueue.idle();
    expect(refused).toBe(1);
    expect((await run(accepted.body.data.run_id)).body.data).toMatchObject({
      status: 'failed',
      result: { error: { code: 'INTERNAL_ERROR', message: 'The run finished, but its result could not be stored.' } },
      token_usage: { total_tokens: 35 },
    });
  });
});
