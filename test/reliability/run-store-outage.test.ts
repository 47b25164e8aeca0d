/**
 * Runs that PostgreSQL's outage cut off after they had cost something: a workflow of three model
 * nodes whose first node was charged (accrued under the run's reservation) when the database went
 * away while the second waited on its model, answered in its request or queued; and a single call
 * whose model answered while the database was away. As soon as the database is back, the run,
 * its usage records, the ledger and the reservation agree: the workflow run is recorded with what
 * its first node cost, the ledger charges that once, by the run's settlement, and nothing stays
 * reserved; the single call is recorded failed, charged nothing, with its `billing_failed` usage
 * record, so usage counts it as a request and an error.
 *
 * Regression: the workflow answered in its request was never recorded (its first node's usage
 * row named a run that did not exist); a queued one reported a charge the ledger did not hold;
 * both reservations stayed held until they expired 15 minutes later, when the ledger charged them
 * naming no run; and neither the workflow nor the single call left a usage record for the run.
 *
 * The server reaches PostgreSQL through a relay the test cuts while the model call is on its
 * way, and restores once the run has ended.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from '../../src/core/ai/ai-types.js';
import type { NodeResult } from '../../src/core/engine/run-workflow.js';
import type { RunDetailView, RunView } from '../../src/core/runs/runs.js';
import type { UsageView } from '../../src/core/usage/usage.js';
import { describeResponse } from '../helpers/harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { PostgresRelay } from '../helpers/postgres-relay.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';
import { TEST_SECRET_KEY } from './porch-process.js';

const CREDITS = 1_000;
/** What each model call reports, by a word of its prompt: the first node's, the second's, the third's, the single call's. */
const USAGE_OF = {
  Draft: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
  Polish: { prompt_tokens: 60, completion_tokens: 20, total_tokens: 80 },
  Shorten: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 },
  Summarise: { prompt_tokens: 70, completion_tokens: 20, total_tokens: 90 },
} as const;
/** What the workflow's first node was charged before the outage. */
const FIRST_NODE_TOKENS = USAGE_OF.Draft.total_tokens;

const BUNDLE = {
  workflows: [
    {
      key: 'three-steps',
      name: 'Three steps',
      nodes: [
        { id: 'n1', kind: 'model', prompt: 'Draft a haiku.' },
        { id: 'n2', kind: 'model', prompt: 'Polish: {{n1}}' },
        { id: 'n3', kind: 'model', prompt: 'Shorten: {{n2}}' },
      ],
      outputs: { out: 'n3' },
    },
  ],
  compositions: [{ key: 'summary', name: 'Summary', template: 'Summarise the week.' }],
};

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const wordOf = (request: CompletionRequest): keyof typeof USAGE_OF | undefined =>
  (Object.keys(USAGE_OF) as Array<keyof typeof USAGE_OF>).find((word) => JSON.stringify(request.messages).includes(word));

let database: TestDatabase;
let relay: PostgresRelay;
let harness: ProviderHarness;
/** The model call held until the database is cut off: the prompt's word, and what it waits on. */
let held: { word: string; reached: () => void; released: Promise<void> } | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  const relayed = await PostgresRelay.to(database.url);
  relay = relayed.relay;
  harness = await createProviderHarness({ env: { DATABASE_URL: relayed.relayedUrl, PORCH_SECRET_KEY: TEST_SECRET_KEY } });
  harness.fake.setBehaviour((request) => {
    const word = (Object.keys(USAGE_OF) as Array<keyof typeof USAGE_OF>).find((each) => JSON.stringify(request.body).includes(each));
    // The answer names no word of a prompt, so the next node's prompt holds its own word alone.
    return { content: 'Done.', usage: word === undefined ? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } : USAGE_OF[word] };
  });
  const complete = harness.core.ai.complete.bind(harness.core.ai);
  harness.core.ai.complete = async (request) => {
    const hold = held;
    if (hold !== undefined && wordOf(request) === hold.word) {
      held = undefined;
      hold.reached();
      await hold.released;
    }
    return complete(request);
  };
});

// Closing waits a bounded time for connections cut mid-statement.
afterAll(async () => {
  await harness?.close();
  await relay?.cut();
  await database?.drop();
}, 60_000);

let key: string;
let accountId: string;
let workflowId: string;
let workflowPath: string;
let compositionPath: string;
beforeEach(async () => {
  ({ key, accountId } = await harness.expertWithKey({ credits: CREDITS }));
  const { ids } = await harness.core.bundles.importBundle(accountId, BUNDLE);
  workflowId = ids['workflow:three-steps'] ?? '';
  workflowPath = `/workflows/${workflowId}/execute`;
  compositionPath = `/compositions/${ids['composition:summary']}/execute`;
});

/**
 * Starts `act`; once the model call whose prompt holds `word` is on its way, cuts the database
 * off and lets the model answer; restores the database once `act` has answered and `ended`
 * resolved (the run has ended, as far as it could with the database away), then waits for every
 * write the outage delayed. Answers what `act` answered.
 */
async function outageDuringCall<Answer>(word: keyof typeof USAGE_OF, act: () => Promise<Answer>, ended?: () => Promise<void>): Promise<Answer> {
  const reached = deferred();
  const released = deferred();
  held = { word, reached: reached.resolve, released: released.promise };
  const answering = act();
  await reached.promise;
  await relay.cut();
  released.resolve();
  const answer = await answering;
  await ended?.();
  await relay.open();
  await expect.poll(() => harness.core.deferredWrites.pending, { timeout: 40_000, interval: 100 }).toBe(0);
  return answer;
}

/** The account's runs, usage records, ledger, reservation and usage totals, once the database is back. */
async function books() {
  const runs = (await harness.api<{ items: RunView[] }>('GET', '/runs', { key })).body.data.items;
  const details = await Promise.all(runs.map(async (run) => (await harness.api<RunDetailView>('GET', `/runs/${run.id}`, { key })).body.data));
  const usageRows = await harness.store.usage.listByAccount(accountId);
  const ledger = await harness.store.credits.ledger(accountId);
  const { reservedTokens } = await harness.store.credits.balance(accountId);
  const totals = (await harness.api<UsageView>('GET', '/usage', { key })).body.data.totals;
  return {
    runs: details,
    usageRows: usageRows.map((row) => ({ runId: row.runId, nodeId: row.nodeId, status: row.status, chargedTokens: row.chargedTokens })),
    debits: ledger.filter((entry) => entry.kind === 'usage').map((entry) => ({ tokens: -entry.deltaTokens, reference: entry.reference })),
    reservedTokens,
    totals: { requests: totals.requests, errors: totals.errors, model_calls: totals.model_calls, credits_charged: totals.credits_charged },
  };
}

const errorCodeOf = (run: RunDetailView) => (run.result as { error?: { code: string } } | null)?.error?.code;

const tracesOf = (result: unknown) =>
  (result as { node_results: NodeResult[] }).node_results.map((node) => `${node.node_id}:${node.status}${node.error ? `:${node.error.code}` : ''}`);

/** The account's one run, failing the test when there is not exactly one. */
function onlyRun(state: Awaited<ReturnType<typeof books>>): RunDetailView {
  const [run] = state.runs;
  if (run === undefined || state.runs.length > 1) throw new Error(`expected one run: ${JSON.stringify(state)}`);
  return run;
}

/** What a workflow run cut off at its second node holds once the database is back: its first node's charge, once, everywhere. */
function expectChargedForFirstNodeOnly(state: Awaited<ReturnType<typeof books>>): void {
  const run = onlyRun(state);
  expect(run.credits_charged, JSON.stringify(run)).toBe(FIRST_NODE_TOKENS / 1_000);
  expect(state.debits, 'the ledger charges the first node once, by the run’s settlement').toEqual([
    { tokens: FIRST_NODE_TOKENS, reference: `usage:execute_workflow:${workflowId}` },
  ]);
  expect(state.reservedTokens, 'nothing stays reserved').toBe(0);
  expect(
    state.usageRows.filter((row) => row.runId !== run.id),
    'every usage record names the run',
  ).toEqual([]);
  expect(state.usageRows.map(({ nodeId, status, chargedTokens }) => ({ nodeId, status, chargedTokens }))).toEqual(
    expect.arrayContaining([
      { nodeId: 'n1', status: 'succeeded', chargedTokens: FIRST_NODE_TOKENS },
      // The second node's answer came while the database was away: it was not charged.
      { nodeId: 'n2', status: 'billing_failed', chargedTokens: 0 },
      { nodeId: null, status: 'failed', chargedTokens: FIRST_NODE_TOKENS },
    ]),
  );
  expect(state.usageRows).toHaveLength(3);
  expect(state.totals).toEqual({ requests: 1, errors: 1, model_calls: 2, credits_charged: FIRST_NODE_TOKENS / 1_000 });
}

describe('a workflow run the database’s outage cut off after its first node was charged', () => {
  it('answered in its request: answers 503, and is recorded failed with that charge, settled, as soon as the database is back', async () => {
    const response = await outageDuringCall('Polish', () => harness.api('POST', workflowPath, { key, body: {} }));
    expect(response.status, describeResponse(response)).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');

    const state = await books();
    const run = onlyRun(state);
    expect(run.status).toBe('failed');
    // What the request answered, with the trace that shows what was charged.
    expect(errorCodeOf(run), JSON.stringify(run)).toBe('SERVICE_UNAVAILABLE');
    expect(tracesOf(run.result)).toEqual(['n1:completed', 'n2:failed:SERVICE_UNAVAILABLE', 'n3:skipped']);
    expectChargedForFirstNodeOnly(state);
  }, 60_000);

  it('queued: ends failed with that charge, and the ledger and reservation agree with it as soon as the database is back', async () => {
    const queued = await outageDuringCall(
      'Polish',
      () => harness.api<{ run_id: string }>('POST', workflowPath, { key, body: {}, headers: { prefer: 'respond-async' } }),
      async () => {
        await expect.poll(() => harness.core.runQueue.activeCount, { timeout: 20_000, interval: 50 }).toBe(0);
      },
    );
    expect(queued.status, describeResponse(queued)).toBe(202);

    const state = await books();
    const run = onlyRun(state);
    expect([run.id, run.status]).toEqual([queued.body.data.run_id, 'failed']);
    expect(tracesOf(run.result)).toEqual(['n1:completed', 'n2:failed:SERVICE_UNAVAILABLE', 'n3:skipped']);
    expectChargedForFirstNodeOnly(state);
  }, 60_000);
});

describe('a single call whose model answered while the database was away', () => {
  it('answers 503, charges nothing, and is recorded failed with its billing_failed usage record once the database is back', async () => {
    const answer = await outageDuringCall('Summarise', () => harness.api('POST', compositionPath, { key, body: {} }));
    expect(answer.status, describeResponse(answer)).toBe(503);

    const state = await books();
    const run = onlyRun(state);
    expect([run.status, run.credits_charged, errorCodeOf(run)]).toEqual(['failed', 0, 'SERVICE_UNAVAILABLE']);
    expect(state.usageRows.map(({ status, chargedTokens }) => ({ status, chargedTokens }))).toEqual([{ status: 'billing_failed', chargedTokens: 0 }]);
    expect(state.debits).toEqual([]);
    expect(state.totals).toEqual({ requests: 1, errors: 1, model_calls: 1, credits_charged: 0 });
  }, 60_000);
});
