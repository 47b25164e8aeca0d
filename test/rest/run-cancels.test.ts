/**
 * Runs their caller stopped, over real HTTP: a cancel, or a client that went away. An answer the
 * provider had already sent when the cancel was handled is charged, and a stopped run carries no
 * error code that means an outage or a provider failure, nor a run.failed webhook.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { NodeResult } from '../../src/core/engine/run-workflow.js';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView, RunView } from '../../src/core/runs/runs.js';
import type { WebhookEventRecord } from '../../src/db/store.js';
import { postEventStream } from '../helpers/event-stream.js';
import { fakeProviderAiConfig } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

const ASYNC = { prefer: 'respond-async' };

/** The usage the held upstream reports: 10 prompt and 8 completion tokens. */
const ANSWER_USAGE = { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 };

/** An OpenAI-compatible upstream that holds each completion until the test says to answer it. */
async function startHeldUpstream() {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held.push(res);
      arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    arrival,
    /** Sends the whole completion now: its bytes are on Porch's socket when this returns. */
    answer(): void {
      const res = held.shift();
      if (res === undefined) throw new Error('no completion is waiting');
      const body = JSON.stringify({
        id: 'chatcmpl-held',
        object: 'chat.completion',
        created: 1_780_000_000,
        model: 'fast',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Notes.', refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: ANSWER_USAGE,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
    /** Completions asked for and not answered yet. */
    heldCount: () => held.length,
    async close(): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

describe('a cancel handled just after the provider answered', () => {
  let upstream: Awaited<ReturnType<typeof startHeldUpstream>>;
  let harness: Harness;
  let directory: string;

  beforeEach(async () => {
    upstream = await startHeldUpstream();
    directory = await mkdtemp(join(tmpdir(), 'porch-cancel-race-'));
    const configPath = join(directory, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(upstream) }));
    harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-held-test-key' } });
  });
  afterEach(async () => {
    await harness.close();
    await upstream.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('settles and charges the answer, and the run ends completed (regression: cancelled with 0 tokens charged)', async () => {
    const { key, accountId } = await harness.expertWithKey({ credits: 1_000 });
    const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: ASYNC,
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    const runId = accepted.body.data.run_id;
    await upstream.arrival;

    // The race made exact: the whole completion reaches Porch's socket while the cancel is being
    // handled, before Porch has read it; then the cancel is recorded and the run aborted.
    const cancel = harness.store.runs.cancel.bind(harness.store.runs);
    harness.store.runs.cancel = async (input) => {
      upstream.answer();
      return cancel(input);
    };
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${runId}/cancel`, { key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      status: 'completed',
      cancel_requested: true,
      token_usage: { input_tokens: 10, output_tokens: 8, total_tokens: 18 },
      credits_charged: 0.018,
      result: { content: 'Notes.', token_usage: { total_tokens: 18 } },
    });
    const usage = (await harness.store.usage.listByAccount(accountId)).filter((row) => row.runId === runId);
    expect(usage.map((row) => [row.status, row.chargedTokens])).toEqual([['succeeded', 18]]);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000 - 18, reservedTokens: 0 });
    const charges = (await harness.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage');
    expect(charges.reduce((sum, entry) => sum - entry.deltaTokens, 0)).toBe(18);
  });

  it("starts no node of a workflow after its cancel was accepted, though a node's answer arrives meanwhile (regression: the next nodes ran and were charged)", async () => {
    const { key, accountId } = await harness.expertWithKey({ credits: 1_000 });
    const nodes = [
      { id: 'a', kind: 'model', prompt: 'Draft a haiku.' },
      { id: 'b', kind: 'model', prompt: 'Polish: {{a}}', model: 'echo/echo' },
      { id: 'c', kind: 'model', prompt: 'Again: {{b}}' },
    ];
    const ids = (await harness.core.bundles.importBundle(accountId, { workflows: [{ key: 'three', name: 'Three', nodes }] })).ids;
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/workflows/${ids['workflow:three']}/execute`, { key, body: {}, headers: ASYNC });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    const runId = accepted.body.data.run_id;
    await upstream.arrival;
    const cancel = harness.store.runs.cancel.bind(harness.store.runs);
    harness.store.runs.cancel = async (input) => {
      upstream.answer();
      return cancel(input);
    };
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${runId}/cancel`, { key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    const run = await vi.waitFor(async () => {
      const read = await harness.api<RunDetailView>('GET', `/runs/${runId}`, { key });
      expect(read.body.data.status).toBe('cancelled');
      return read;
    });
    const trace = (run.body.data.result as { node_results: Array<{ node_id: string; status: string }> }).node_results;
    expect(trace.map((node) => [node.node_id, node.status])).toEqual([
      ['a', 'completed'],
      ['b', 'skipped'],
      ['c', 'skipped'],
    ]);
    // a's answer, read and charged; nothing after it reached the provider or the ledger.
    expect(upstream.heldCount()).toBe(0);
    const usage = (await harness.store.usage.listByAccount(accountId)).filter((row) => row.runId === runId && row.nodeId !== null);
    expect(usage.map((row) => [row.nodeId, row.status, row.chargedTokens])).toEqual([['a', 'succeeded', 18]]);
  });
});

describe('runs stopped by their caller', () => {
  let harness: ProviderHarness;
  let key: string;
  let accountId: string;
  let workflowId: string;
  let compositionId: string;
  /** Every webhook event written with a run's ending, by the run's status. */
  let events: Array<{ status: string; types: string[] }>;

  beforeEach(async () => {
    harness = await createProviderHarness();
    ({ key, accountId } = await harness.expertWithKey({ credits: 1_000 }));
    const ids = (
      await harness.core.bundles.importBundle(accountId, {
        ...DEMO_BUNDLE,
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
      })
    ).ids;
    workflowId = ids['workflow:two-steps'] ?? '';
    compositionId = ids['composition:release-notes'] ?? '';
    // Node a (the first call) answers at once; every later call would take minutes.
    harness.fake.setBehaviour((_request, index) =>
      index === 0 ? { content: 'Draft.', usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } } : { delayMs: 600_000 },
    );
    events = [];
    const types = (written: readonly WebhookEventRecord[] | undefined) => (written ?? []).map((event) => event.type);
    const insert = harness.store.runs.insert.bind(harness.store.runs);
    harness.store.runs.insert = async (run, written) => {
      events.push({ status: run.status, types: types(written) });
      return insert(run, written);
    };
    const complete = harness.store.runs.complete.bind(harness.store.runs);
    harness.store.runs.complete = async (completion, written) => {
      events.push({ status: completion.status, types: types(written) });
      return complete(completion, written);
    };
  });
  afterEach(() => harness.close());

  const nodeOf = (result: unknown, id: string) => (result as { node_results: NodeResult[] }).node_results.find((node) => node.node_id === id);

  it('a queued workflow cancelled while node b runs ends cancelled, b skipped with no error code, and sends no webhook (regression: SERVICE_UNAVAILABLE)', async () => {
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/workflows/${workflowId}/execute`, { key, body: {}, headers: ASYNC });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    await harness.fake.waitForRequests(2);
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${accepted.body.data.run_id}/cancel`, { key });
    expect(cancelled.status, describeResponse(cancelled)).toBe(200);
    const run = cancelled.body.data;
    expect(run).toMatchObject({ status: 'cancelled', token_usage: { total_tokens: 5 }, credits_charged: 0.005 });
    expect(nodeOf(run.result, 'a')).toMatchObject({ status: 'completed', output: 'Draft.' });
    expect(nodeOf(run.result, 'b')).toMatchObject({ status: 'skipped', error: null, output: null });
    expect(nodeOf(run.result, 'b')?.started_at).not.toBeNull();
    expect(JSON.stringify(run.result)).not.toMatch(/SERVICE_UNAVAILABLE|AI_SERVICE_ERROR/);
    expect(events).toEqual([{ status: 'cancelled', types: [] }]);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000 - 5, reservedTokens: 0 });
  });

  it('a queued composition cancelled mid-call keeps no error code: its result is null (regression: AI_SERVICE_ERROR)', async () => {
    harness.fake.setBehaviour({ delayMs: 600_000 });
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: ASYNC,
    });
    await harness.fake.waitForRequests(1);
    const cancelled = await harness.api<RunDetailView>('POST', `/runs/${accepted.body.data.run_id}/cancel`, { key });
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', result: null, token_usage: { total_tokens: 0 } });
    expect(events).toEqual([{ status: 'cancelled', types: [] }]);
  });

  it('a streamed workflow whose client goes away after the first node is recorded cancelled, b skipped, with no run.failed webhook (regression)', async () => {
    const response = await postEventStream(harness.url, `/workflows/${workflowId}/execute`, { key, body: { include_trace: true } });
    for await (const event of response.events) {
      expect(event).toMatchObject({ event: 'node', data: { node_id: 'a', status: 'completed' } });
      break;
    }
    response.disconnect();
    const listed = await vi.waitFor(async () => {
      const runs = await harness.api<{ items: RunView[] }>('GET', '/runs', { key });
      const [only] = runs.body.data.items;
      if (only === undefined) throw new Error('not recorded yet');
      return only;
    });
    expect(listed).toMatchObject({ status: 'cancelled', token_usage: { total_tokens: 5 } });
    const run = (await harness.api<RunDetailView>('GET', `/runs/${listed.id}`, { key })).body.data;
    expect(nodeOf(run.result, 'b')).toMatchObject({ status: 'skipped', error: null });
    expect(JSON.stringify(run.result)).not.toContain('SERVICE_UNAVAILABLE');
    expect(events).toEqual([{ status: 'cancelled', types: [] }]);
  });

  it('keeps no Idempotency-Key answer for a workflow whose client went away: a retry runs again (regression: the cut-off answer replayed)', async () => {
    const url = `${harness.url}/api/public/v1/workflows/${workflowId}/execute`;
    const init = (signal?: AbortSignal) => ({
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'gone-then-retried' },
      body: '{}',
      ...(signal ? { signal } : {}),
    });
    const leaving = new AbortController();
    const first = fetch(url, init(leaving.signal)).catch((err: unknown) => err);
    await harness.fake.waitForRequests(2);
    leaving.abort();
    await first;
    await vi.waitFor(async () => expect(events).toEqual([{ status: 'cancelled', types: [] }]));
    harness.fake.setBehaviour({ content: 'Again.' });
    const retried = await fetch(url, init());
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { data: { status: string } }).data.status).toBe('completed');
    expect(harness.fake.requests.length).toBe(4);
  });

  it('records a workflow whose client left after one node had failed as cancelled, as a queued run its owner cancelled is (regression: failed, with run.failed)', async () => {
    const ids = (
      await harness.core.bundles.importBundle(accountId, {
        workflows: [
          {
            key: 'side-by-side',
            name: 'Side by side',
            nodes: [
              { id: 'a', kind: 'model', prompt: 'Fail.' },
              { id: 'b', kind: 'model', prompt: 'Slow.' },
            ],
          },
        ],
      })
    ).ids;
    harness.fake.setBehaviour((request) => (JSON.stringify(request.body).includes('Fail.') ? { status: 400 } : { delayMs: 600_000 }));
    const leaving = new AbortController();
    const first = fetch(`${harness.url}/api/public/v1/workflows/${ids['workflow:side-by-side']}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
      signal: leaving.signal,
    }).catch((err: unknown) => err);
    await harness.fake.waitForRequests(2);
    await vi.waitFor(async () => expect((await harness.store.usage.listByAccount(accountId)).some((row) => row.status === 'failed')).toBe(true));
    leaving.abort();
    await first;
    await vi.waitFor(async () => expect(events).toEqual([{ status: 'cancelled', types: [] }]));
  });

  it('answers Prefer: respond-async with the 202 JSON answer even when the request also accepts an event stream', async () => {
    harness.fake.setBehaviour({ content: 'Notes.' });
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { ...ASYNC, accept: 'text/event-stream' },
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    expect(accepted.headers.get('content-type')).toContain('application/json');
    expect(accepted.body.data.status).toBe('queued');
    await harness.core.runQueue.idle();
  });
});
