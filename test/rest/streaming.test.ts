/**
 * `Accept: text/event-stream` on the executes, over real HTTP: deltas and nodes as they happen,
 * `done` with exactly the JSON result, JSON errors before the first event and `error` events
 * after it, and credits settled on what a stream cost, also when the caller goes away.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { executeComposition } from '../../src/operations/execute-composition.js';
import type { executePersona } from '../../src/operations/execute-persona.js';
import type { executeWorkflow } from '../../src/operations/execute-workflow.js';
import type { RunView } from '../../src/core/runs/runs.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import { collectEvents, postEventStream, type ReceivedEvent } from '../helpers/event-stream.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

/** A GitHub token in the vendor's format (made up for this test). */
const TOKEN = 'ghp_Q8vT3kLm9xR2pN7wZ4bY6cJ1hF5dS0aGe2Uu';

const deltasOf = (events: ReceivedEvent[]) => events.filter((event) => event.event === 'delta').map((event) => (event.data as { text: string }).text);
const names = (events: ReceivedEvent[]) => [...new Set(events.map((event) => event.event))];

function doneOf<Data>(events: ReceivedEvent[]): { data: Data; credits_remaining: number } {
  const last = events.at(-1);
  expect(last?.event, JSON.stringify(events)).toBe('done');
  return last?.data as { data: Data; credits_remaining: number };
}

/** The result without its wall time, which differs between two runs. */
function comparable(data: object): Record<string, unknown> {
  const { duration_ms: _duration, ...rest } = data as Record<string, unknown>;
  return rest;
}

describe('streaming with the echo model (offline)', () => {
  let harness: Harness;
  let key: string;
  let accountId: string;
  let ids: Record<string, string>;

  beforeEach(async () => {
    harness = await createHarness();
    ({ key, accountId } = await harness.expertWithKey());
    ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
  });
  afterEach(() => harness.close());

  it('streams a persona answer as several delta events, then done with exactly the non-streamed result', async () => {
    const path = `/personas/${ids['persona:plain-editor']}/execute`;
    const body = { input: 'Please make this sentence a great deal shorter.' };
    const response = await postEventStream(harness.url, path, { key, body });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(response.headers.get('x-credits-remaining')).not.toBeNull();
    expect(response.headers.get('x-request-id')).not.toBeNull();
    const events = await collectEvents(response);
    const deltas = deltasOf(events);
    expect(deltas.length).toBeGreaterThan(3);
    expect(names(events)).toEqual(['delta', 'done']);
    const done = doneOf<OperationOutput<typeof executePersona>>(events);
    expect(deltas.join('')).toBe(done.data.content);

    const plain = await harness.api<OperationOutput<typeof executePersona>>('POST', path, { key, body });
    expect(plain.status, describeResponse(plain)).toBe(200);
    expect(comparable(done.data)).toEqual(comparable(plain.body.data));
    expect(done.credits_remaining).toBe(Number(plain.headers.get('x-credits-remaining')) + Math.floor(plain.body.data.token_usage.total_tokens / 1000));
  });

  it('streams for an Accept naming the charset too, and answers JSON to an Accept that prefers it (regression: the charset meant JSON)', async () => {
    const path = `/personas/${ids['persona:plain-editor']}/execute`;
    for (const accept of ['text/event-stream; charset=utf-8', 'text/event-stream;charset=UTF-8', 'TEXT/EVENT-STREAM']) {
      const response = await postEventStream(harness.url, path, { key, body: { input: 'Shorter, please.' }, headers: { accept } });
      expect(response.headers.get('content-type'), accept).toBe('text/event-stream; charset=utf-8');
      expect(names(await collectEvents(response))).toEqual(expect.arrayContaining(['delta', 'done']));
    }
    const json = await postEventStream(harness.url, path, {
      key,
      body: { input: 'Shorter.' },
      headers: { accept: 'application/json, text/event-stream;q=0.5' },
    });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('streams compositions and skills the same way', async () => {
    const composition = await collectEvents(
      await postEventStream(harness.url, `/compositions/${ids['composition:release-notes']}/execute`, { key, body: { variables: RELEASE_VARIABLES } }),
    );
    const done = doneOf<OperationOutput<typeof executeComposition>>(composition);
    expect(deltasOf(composition).length).toBeGreaterThan(3);
    expect(deltasOf(composition).join('')).toBe(done.data.content);
    expect(done.data).toMatchObject({ model_used: 'echo/echo', version: 1 });

    const skill = await collectEvents(
      await postEventStream(harness.url, `/skills/${ids['skill:summarise']}/execute`, {
        key,
        body: { input: 'one two three four five', variables: { bullets: '2' } },
      }),
    );
    expect(deltasOf(skill)).toEqual(['one ', 'two ', 'three ', 'four ', 'five']);
    expect(doneOf<{ skill_name: string }>(skill).data.skill_name).toBe('Summarise');
  });

  it('streams a workflow as node events in the order the nodes finish, then done', async () => {
    const path = `/workflows/${ids['workflow:release-announcement']}/execute`;
    const events = await collectEvents(await postEventStream(harness.url, path, { key, body: { variables: RELEASE_VARIABLES, include_trace: true } }));
    expect(names(events)).toEqual(['node', 'done']);
    const nodes = events.filter((event) => event.event === 'node').map((event) => event.data as { node_id: string; status: string });
    expect(nodes.map((node) => node.node_id)).toEqual(['draft', 'summary', 'plain', 'scan']);
    const done = doneOf<OperationOutput<typeof executeWorkflow>>(events);
    expect(done.data.status).toBe('completed');
    expect(done.data.node_results).toEqual(nodes);
  });

  it('answers refusals before the first event as JSON errors with their status', async () => {
    const path = `/personas/${ids['persona:plain-editor']}/execute`;
    const noKey = await postEventStream(harness.url, path, { key: 'mdi_not-a-key', body: { input: 'hi' } });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY' } });

    const invalid = await postEventStream(harness.url, path, { key, body: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });

    const missingVariables = await postEventStream(harness.url, `/compositions/${ids['composition:release-notes']}/execute`, { key, body: {} });
    expect(missingVariables.status).toBe(400);

    const broke = await harness.expertWithKey({ credits: 0 });
    const brokeIds = (await harness.core.bundles.importBundle(broke.accountId, DEMO_BUNDLE)).ids;
    const poor = await postEventStream(harness.url, `/personas/${brokeIds['persona:plain-editor']}/execute`, { key: broke.key, body: { input: 'hi' } });
    expect(poor.status).toBe(402);
    expect(poor.json).toMatchObject({ error: { code: 'INSUFFICIENT_CREDITS' } });
    expect(poor.headers.get('x-credits-remaining')).toBe('0');
  });

  it('replays a stored result for a repeated Idempotency-Key as one done event, charging once', async () => {
    const path = `/personas/${ids['persona:plain-editor']}/execute`;
    const headers = { 'idempotency-key': 'stream-once-0001' };
    const first = await collectEvents(await postEventStream(harness.url, path, { key, body: { input: 'say it once' }, headers }));
    const balanceAfterFirst = await harness.store.credits.balance(accountId);
    const replay = await collectEvents(await postEventStream(harness.url, path, { key, body: { input: 'say it once' }, headers }));
    expect(names(replay)).toEqual(['done']);
    expect(doneOf(replay).data).toEqual(doneOf(first).data);
    expect(await harness.store.credits.balance(accountId)).toEqual(balanceAfterFirst);
  });
});

describe('a stream whose first event is slow', () => {
  it('opens with a keep-alive comment once the interval passes, so proxies do not cut a silent connection (regression: nothing was sent until the first node finished)', async () => {
    const harness = await createProviderHarness({ serverTimeouts: { streamKeepAliveMs: 200 } });
    try {
      const { key, accountId } = await harness.expertWithKey();
      const summary = await harness.core.bundles.importBundle(accountId, {
        workflows: [{ key: 'slow', name: 'Slow first node', nodes: [{ id: 'first', kind: 'model', prompt: 'Take your time.' }] }],
      });
      harness.fake.setBehaviour({ delayMs: 700 });
      const response = await fetch(`${harness.url}/api/public/v1/workflows/${summary.ids['workflow:slow']}/execute`, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-api-key': key },
        body: '{}',
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const text = await response.text();
      expect(text.startsWith(': keep-alive\n\n'), text).toBe(true);
      expect(text).toMatch(/event: node\n[\s\S]*event: done\n/);
    } finally {
      await harness.close();
    }
  });
});

describe('streaming through a provider', () => {
  let harness: ProviderHarness;
  let key: string;
  let accountId: string;
  let organisationId: string;
  let personaPath: string;

  beforeEach(async () => {
    harness = await createProviderHarness();
    ({ key, accountId, organisationId } = await harness.expertWithKey());
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    personaPath = `/personas/${ids['persona:plain-editor']}/execute`;
  });
  afterEach(() => harness.close());

  async function onlyUsageRow() {
    const rows = await harness.store.usage.listByAccount(accountId);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    if (row === undefined) throw new Error('no usage row');
    return row;
  }

  /**
   * The run the failed call was recorded as, once recorded, checked against the usage row: it
   * shows what the ledger took (regression: a stream cut short showed 0 tokens and 0 credits).
   */
  async function failedRunMatching(row: { chargedTokens: number; inputTokens: number; outputTokens: number }, status: 'failed' | 'cancelled' = 'failed') {
    const run = await vi.waitFor(async () => {
      const runs = await harness.api<{ items: RunView[] }>('GET', '/runs', { key });
      const [only] = runs.body.data.items;
      if (only?.status !== status) throw new Error('not recorded yet');
      return only;
    });
    expect(run.credits_charged).toBe(row.chargedTokens / 1000);
    expect(run.token_usage).toMatchObject({ input_tokens: row.inputTokens, output_tokens: row.outputTokens });
    return run;
  }

  it('streams the provider stream, asking for its usage, and charges exactly the usage it reported', async () => {
    harness.fake.setBehaviour({
      content: 'Plainly put, it works.',
      model: 'fast-2026-01-01',
      usage: { prompt_tokens: 41, completion_tokens: 9, total_tokens: 50 },
    });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'Fix this.' } }));
    expect(deltasOf(events)).toEqual(['Plainly ', 'put, ', 'it ', 'works.']);
    const done = doneOf<OperationOutput<typeof executePersona>>(events);
    expect(done.data).toMatchObject({
      content: 'Plainly put, it works.',
      model_used: 'fake/fast-2026-01-01',
      token_usage: { input_tokens: 41, output_tokens: 9, total_tokens: 50 },
    });
    expect(harness.fake.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000 - 50, reservedTokens: 0 });
    expect(await onlyUsageRow()).toMatchObject({ status: 'succeeded', chargedTokens: 50, totalTokens: 50 });
  });

  it('charges a sent answer its reservation when the reported usage is more than the balance can pay (regression: BILLING_FAILED after the text, and nothing charged)', async () => {
    const small = await harness.createAccount({ credits: 2 });
    const smallKey = await harness.createKey(small.accountId);
    const ids = (await harness.core.bundles.importBundle(small.accountId, DEMO_BUNDLE)).ids;
    harness.fake.setBehaviour({ content: 'Plainly put.', usage: { prompt_tokens: 2_000, completion_tokens: 1_000, total_tokens: 3_000 } });
    const events = await collectEvents(
      await postEventStream(harness.url, `/personas/${ids['persona:plain-editor']}/execute`, { key: smallKey.key, body: { input: 'Fix this.' } }),
    );
    expect(deltasOf(events).join('')).toBe('Plainly put.');
    const done = doneOf<OperationOutput<typeof executePersona>>(events);
    expect(done.data.token_usage.total_tokens).toBe(3_000);
    const balance = await harness.store.credits.balance(small.accountId);
    expect(balance.reservedTokens).toBe(0);
    const charged = 2_000 - balance.balanceTokens;
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(3_000);
    const [row] = await harness.store.usage.listByAccount(small.accountId);
    expect(row).toMatchObject({ status: 'succeeded', chargedTokens: charged, totalTokens: 3_000 });
  });

  it('counts the usage with the tokenizer when the provider reports none', async () => {
    harness.fake.setBehaviour({ content: 'No usage from me.', streamUsage: 'none' });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'Fix this.' } }));
    const done = doneOf<OperationOutput<typeof executePersona>>(events);
    expect(done.data.token_usage.output_tokens).toBe(harness.core.ai.countTokens('No usage from me.'));
    expect(done.data.token_usage.input_tokens).toBeGreaterThan(0);
    const row = await onlyUsageRow();
    expect(row.chargedTokens).toBe(done.data.token_usage.total_tokens);
  });

  it.each([
    ['reported no usage', 'none' as const],
    ['reported running usage larger than the reservation', 'every-chunk' as const],
  ])(
    'a client that disconnects mid-stream stops the upstream call and is charged, never more than the reservation, when the provider %s',
    async (_, streamUsage) => {
      // The first chunk goes at once; the rest would take minutes, so only the disconnect ends the call.
      harness.fake.setBehaviour({
        chunks: ['First ', 'words ', 'and ', 'more'],
        chunkDelayMs: 600_000,
        streamUsage,
        usage: { prompt_tokens: 900_000, completion_tokens: 4, total_tokens: 900_004 },
      });
      const response = await postEventStream(harness.url, personaPath, { key, body: { input: 'Talk slowly.' } });
      for await (const event of response.events) {
        expect(event).toMatchObject({ event: 'delta', data: { text: 'First ' } });
        break;
      }
      response.disconnect();
      await harness.fake.waitForClosedStreams(1);
      const row = await vi.waitFor(async () => {
        const rows = await harness.store.usage.listByAccount(accountId);
        if (rows.length === 0) throw new Error('not settled yet');
        return rows[0];
      });
      const balance = await harness.store.credits.balance(accountId);
      expect(balance.reservedTokens).toBe(0);
      expect(row?.status).toBe('failed');
      expect(row?.chargedTokens).toBeGreaterThan(0);
      expect(balance.balanceTokens).toBe(1_000_000 - (row?.chargedTokens ?? 0));
      // The reservation: the prompt estimate plus the model's output cap (200).
      const messages = [
        { role: 'system' as const, content: DEMO_BUNDLE.personas?.[0]?.content ?? '' },
        { role: 'user' as const, content: 'Talk slowly.' },
      ];
      const reserved = harness.core.ai.estimateTokens(messages) + 200;
      expect(row?.chargedTokens).toBeLessThanOrEqual(reserved);
      if (streamUsage === 'none') {
        expect(row?.chargedTokens).toBe(harness.core.ai.estimateTokens(messages) + harness.core.ai.countTokens('First '));
      } else {
        expect(row?.chargedTokens).toBe(reserved);
      }
      // Its client stopped it: the run is cancelled, not failed (docs/runs.md), and shows what it cost.
      if (row !== undefined) await failedRunMatching(row, 'cancelled');
    },
  );

  it('reports an upstream failure after the first byte as an error event, and settles what was produced', async () => {
    harness.fake.setBehaviour({ chunks: ['One ', 'two ', 'three'], dropAfterChunks: 2, streamUsage: 'none' });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'hi' } }));
    expect(deltasOf(events)).toEqual(['One ', 'two ']);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data).toMatchObject({ success: false, error: { code: 'AI_SERVICE_ERROR', request_id: expect.any(String) } });
    const row = await onlyUsageRow();
    expect(row).toMatchObject({ status: 'failed' });
    expect(row.chargedTokens).toBeGreaterThan(0);
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000 - row.chargedTokens, reservedTokens: 0 });
    await failedRunMatching(row);
  });

  it('reports a stream that ended cleanly before its finish reason as an error event, never as done (regression: the part was stored and charged as an answer)', async () => {
    harness.fake.setBehaviour({ chunks: ['One ', 'two ', 'three'], endAfterChunks: 1, streamUsage: 'none' });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'hi' } }));
    expect(deltasOf(events)).toEqual(['One ']);
    expect(events.map((event) => event.event)).not.toContain('done');
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'AI_SERVICE_ERROR' } } });
    expect(await onlyUsageRow()).toMatchObject({ status: 'failed' });
  });

  it('answers a server that ignored stream: true (a JSON completion) as the JSON error, charging nothing', async () => {
    harness.fake.setBehaviour({
      rawBody: JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        model: 'fast',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Whole.' }, finish_reason: 'stop' }],
      }),
    });
    const response = await postEventStream(harness.url, personaPath, { key, body: { input: 'hi' } });
    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({ error: { code: 'AI_SERVICE_ERROR' } });
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
  });

  it('answers an upstream failure before the first byte as the JSON error, releasing the reservation', async () => {
    harness.fake.setBehaviour({ status: 503 });
    const response = await postEventStream(harness.url, personaPath, { key, body: { input: 'hi' } });
    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({ error: { code: 'AI_SERVICE_ERROR' } });
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
  });

  it("streams on the caller's own key without metering it (BYOK)", async () => {
    await harness.core.byok.set({ accountId }, 'fake', 'sk-byok-of-the-customer-1234');
    harness.fake.setBehaviour({ content: 'Mine, not yours.', usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'hi' } }));
    expect(deltasOf(events).join('')).toBe('Mine, not yours.');
    expect(harness.fake.requests[0]?.authorization).toBe('Bearer sk-byok-of-the-customer-1234');
    expect(await harness.store.credits.balance(accountId)).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
    expect(await onlyUsageRow()).toMatchObject({ byok: true, chargedTokens: 0, totalTokens: 20, status: 'succeeded' });
  });

  it('streams a failing workflow node as a failed node event, then done with status failed', async () => {
    const summary = await harness.core.bundles.importBundle(accountId, {
      workflows: [
        {
          key: 'w',
          name: 'Fails first',
          nodes: [
            { id: 'first', kind: 'model', prompt: 'FAIL here' },
            { id: 'second', kind: 'model', prompt: 'after {{first}}' },
          ],
        },
      ],
    });
    harness.fake.setBehaviour({ status: 500 });
    const events = await collectEvents(await postEventStream(harness.url, `/workflows/${summary.ids['workflow:w']}/execute`, { key, body: {} }));
    expect(events.map((event) => event.event)).toEqual(['node', 'done']);
    expect(events[0]?.data).toMatchObject({ node_id: 'first', status: 'failed', error: { code: 'AI_SERVICE_ERROR' } });
    expect(doneOf<OperationOutput<typeof executeWorkflow>>(events).data).toMatchObject({ status: 'failed', node_results: [] });
  });

  it('ends a workflow stream whose node was refused the BYOK key with an error event after the node event', async () => {
    await harness.core.byok.set({ accountId }, 'fake', 'sk-byok-of-the-customer-1234');
    harness.fake.setBehaviour({ status: 401 });
    const summary = await harness.core.bundles.importBundle(accountId, {
      workflows: [{ key: 'w', name: 'One model node', nodes: [{ id: 'draft', kind: 'model', prompt: 'Draft a haiku.' }] }],
    });
    const events = await collectEvents(await postEventStream(harness.url, `/workflows/${summary.ids['workflow:w']}/execute`, { key, body: {} }));
    expect(events.map((event) => event.event)).toEqual(['node', 'error']);
    expect(events[1]?.data).toMatchObject({ success: false, error: { code: 'BYOK_KEY_INVALID' } });
  });

  function outputPolicy(outputs: 'report' | 'redact' | 'block') {
    return harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailInputs: 'off', guardrailOutputs: outputs, guardrailMinSeverity: 'warn' });
  }

  it('buffers the answer under an output guardrail that redacts, and sends it checked as one delta', async () => {
    await outputPolicy('redact');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN} and more words` });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'Give me a token.' } }));
    expect(deltasOf(events)).toEqual(['Here you go: [GITHUB_TOKEN_1] and more words']);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(doneOf<OperationOutput<typeof executePersona>>(events).data.guardrail_findings).toEqual([
      expect.objectContaining({ direction: 'output', rule_id: 'secret.github_token' }),
    ]);
  });

  it('refuses a blocked answer with the JSON 422 before any text is sent', async () => {
    await outputPolicy('block');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}` });
    const response = await postEventStream(harness.url, personaPath, { key, body: { input: 'Give me a token.' } });
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ error: { code: 'CONTENT_BLOCKED' } });
    expect(JSON.stringify(response.json)).not.toContain(TOKEN);
    const row = await onlyUsageRow();
    expect(row.chargedTokens, 'the blocked answer was produced, so it is charged').toBeGreaterThan(0);
    await failedRunMatching(row);
  });

  it('passes text through under a reporting guardrail, with the findings in done', async () => {
    await outputPolicy('report');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}` });
    const events = await collectEvents(await postEventStream(harness.url, personaPath, { key, body: { input: 'Give me a token.' } }));
    expect(deltasOf(events).length).toBeGreaterThan(1);
    expect(doneOf<OperationOutput<typeof executePersona>>(events).data.guardrail_findings).toEqual([
      expect.objectContaining({ direction: 'output', rule_id: 'secret.github_token' }),
    ]);
  });
});
