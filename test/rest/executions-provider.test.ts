/** Executions against an OpenAI-compatible provider: the fake server, over real HTTP and the openai SDK. */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encryptSecret } from '../../src/core/ai/byok-crypto.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { newId } from '../../src/core/ids.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { executePersona } from '../../src/operations/execute-persona.js';
import type { executeWorkflow } from '../../src/operations/execute-workflow.js';
import { UPSTREAM_ERROR_MARKER } from '../helpers/fake-openai.js';
import { describeResponse } from '../helpers/harness.js';
import { createProviderHarness, GATEWAY_KEY, type ProviderHarness } from '../helpers/provider-harness.js';

let harness: ProviderHarness;
let key: string;
let accountId: string;
let organisationId: string;
let personaPath: string;

beforeEach(async () => {
  harness = await createProviderHarness({
    models: [
      { name: 'fast', max_output_tokens: 200 },
      { name: 'builders-only', plans: ['builder'], max_output_tokens: 200 },
    ],
    // A node limit well above a loaded machine's slowest honest node (the first sanitise node loads
    // the sanitiser engine), and well below the slow upstream's delay in the time-out test.
    config: { workflows: { max_concurrency: 4, node_timeout_ms: 1_500, run_timeout_ms: 10_000 } },
  });
  ({ key, accountId, organisationId } = await harness.expertWithKey());
  const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
  personaPath = `/personas/${ids['persona:plain-editor']}/execute`;
});
afterEach(() => harness.close());

async function balance() {
  return harness.store.credits.balance(accountId);
}

async function importWorkflow(nodes: unknown[], outputs?: Record<string, string>): Promise<string> {
  const summary = await harness.core.bundles.importBundle(accountId, {
    workflows: [{ key: 'w', name: 'Test workflow', nodes, ...(outputs ? { outputs } : {}) }],
  });
  return summary.ids['workflow:w'] ?? '';
}

describe('executions through a provider', () => {
  it('takes model_used and token_usage from the provider answer and charges exactly that', async () => {
    harness.fake.setBehaviour({ content: 'Plainly put.', model: 'fast-2026-01-01', usage: { prompt_tokens: 41, completion_tokens: 9, total_tokens: 50 } });
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', personaPath, { key, body: { input: 'Fix this.', temperature: 0.5 } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({
      content: 'Plainly put.',
      model_used: 'fake/fast-2026-01-01',
      token_usage: { input_tokens: 41, output_tokens: 9, total_tokens: 50 },
    });
    expect(await balance()).toEqual({ balanceTokens: 1_000_000 - 50, reservedTokens: 0 });
    const sent = harness.fake.requests[0];
    expect(sent?.authorization).toBe(`Bearer ${GATEWAY_KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'fast',
      temperature: 0.5,
      messages: [
        { role: 'system', content: expect.stringContaining('patient editor') },
        { role: 'user', content: 'Fix this.' },
      ],
    });
  });

  it('records a run executed in its request as created when it started (regression: created when it ended)', async () => {
    // Two seconds pass on the harness's clock while the provider answers.
    harness.fake.setBehaviour(() => {
      harness.clock.advance(2_000);
      return {};
    });
    const executed = await harness.api('POST', personaPath, { key, body: { input: 'Hello.' } });
    expect(executed.status, describeResponse(executed)).toBe(200);
    const runs = await harness.api<{ items: Array<{ created_at: string; started_at: string; finished_at: string; duration_ms: number }> }>('GET', '/runs', {
      key,
    });
    const [run] = runs.body.data.items;
    expect(run?.duration_ms).toBe(2_000);
    expect(run?.created_at).toBe(run?.started_at);
    expect(Date.parse(run?.finished_at ?? '') - Date.parse(run?.started_at ?? '')).toBe(2_000);
  });

  it('honours a model override and refuses a model the plan or the EU-only policy does not allow', async () => {
    const echo = await harness.api<OperationOutput<typeof executePersona>>('POST', personaPath, { key, body: { input: 'hi', model: 'echo/echo' } });
    expect(echo.body.data.model_used).toBe('echo/echo');
    expect(harness.fake.requests).toHaveLength(0);

    const planGated = await harness.api('POST', personaPath, { key, body: { input: 'hi', model: 'fake/builders-only' } });
    expect(planGated.status).toBe(403);
    expect(planGated.body.error.code).toBe('MODEL_ACCESS_DENIED');

    await harness.core.accounts.setOrganisationPolicy(organisationId, { euOnlyModels: true });
    const euOnly = await harness.api('POST', personaPath, { key, body: { input: 'hi', model: 'fake/fast' } });
    expect(euOnly.status).toBe(403);
    expect(euOnly.body.error.code).toBe('MODEL_ACCESS_DENIED');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('answers 500 AI_SERVICE_ERROR for an upstream failure without its body, releasing the reservation', async () => {
    harness.fake.setBehaviour({ status: 503 });
    const response = await harness.api('POST', personaPath, { key, body: { input: 'hi' } });
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('AI_SERVICE_ERROR');
    expect(response.text).not.toContain(UPSTREAM_ERROR_MARKER);
    expect(await balance()).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
    const [usage] = await harness.store.usage.listByAccount(accountId);
    expect(usage).toMatchObject({ status: 'failed', chargedTokens: 0 });
  });

  it('withholds the result with 402 BILLING_FAILED when the usage outgrew what the balance covers', async () => {
    const small = await harness.createAccount({ credits: 2 });
    const smallKey = await harness.createKey(small.accountId);
    const ids = (await harness.core.bundles.importBundle(small.accountId, DEMO_BUNDLE)).ids;
    harness.fake.setBehaviour({ content: 'SECRET RESULT', usage: { prompt_tokens: 5_000, completion_tokens: 1, total_tokens: 5_001 } });
    const response = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key: smallKey.key, body: { input: 'hi' } });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe('BILLING_FAILED');
    expect(response.text).not.toContain('SECRET RESULT');
    expect(await harness.store.credits.balance(small.accountId)).toEqual({ balanceTokens: 2_000, reservedTokens: 0 });
    // The run says what the model used, charged nothing (regression: 0 tokens while the usage row held 5,001).
    const reader = await harness.createKey(small.accountId, { scopes: ['read:usage'] });
    const runs = await harness.api<{ items: Array<{ status: string; token_usage: { total_tokens: number }; credits_charged: number }> }>('GET', '/runs', {
      key: reader.key,
    });
    expect(runs.body.data.items).toEqual([
      expect.objectContaining({ status: 'failed', token_usage: expect.objectContaining({ total_tokens: 5_001 }), credits_charged: 0 }),
    ]);
  });

  it("counts a workflow node's usage in the run when its cost outgrew the balance, as /usage does (regression: the run left it out)", async () => {
    const small = await harness.createAccount({ credits: 2 });
    const smallKey = await harness.createKey(small.accountId);
    const summary = await harness.core.bundles.importBundle(small.accountId, {
      workflows: [
        {
          key: 'w',
          name: 'Outgrown',
          nodes: [
            { id: 'a', kind: 'model', prompt: 'small' },
            { id: 'b', kind: 'model', prompt: 'BIG {{a}}' },
          ],
        },
      ],
    });
    harness.fake.setBehaviour((request) => ({
      content: 'done',
      usage: JSON.stringify(request.body).includes('BIG')
        ? { prompt_tokens: 5_000, completion_tokens: 1, total_tokens: 5_001 }
        : { prompt_tokens: 150, completion_tokens: 50, total_tokens: 200 },
    }));
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${summary.ids['workflow:w']}/execute`, {
      key: smallKey.key,
      body: {},
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'failed', token_usage: { total_tokens: 5_201 } });
    expect(await harness.store.credits.balance(small.accountId), 'the first node is charged, the second withheld').toEqual({
      balanceTokens: 1_800,
      reservedTokens: 0,
    });
    const reader = await harness.createKey(small.accountId, { scopes: ['read:usage'] });
    const usage = await harness.api<{ totals: Record<string, number> }>('GET', '/usage', { key: reader.key });
    expect(usage.body.data.totals).toMatchObject({ requests: 1, model_calls: 2, total_tokens: 5_201 });
  });

  it('never overdraws: fifty concurrent executions against a balance that allows ten', async () => {
    const ten = await harness.createAccount({ credits: 2 });
    const tenKey = await harness.createKey(ten.accountId, { rpm: 1000 });
    const ids = (await harness.core.bundles.importBundle(ten.accountId, DEMO_BUNDLE)).ids;
    // Each call costs 200 tokens, so 2 credits (2,000 tokens) pay for ten of them.
    harness.fake.setBehaviour({ content: 'ok', usage: { prompt_tokens: 150, completion_tokens: 50, total_tokens: 200 }, delayMs: 5 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key: tenKey.key, body: { input: 'hi' } })),
    );
    const statuses = responses.map((response) => response.status);
    const successes = statuses.filter((status) => status === 200).length;
    expect(successes).toBeGreaterThan(0);
    expect(successes).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
    const final = await harness.store.credits.balance(ten.accountId);
    expect(final.reservedTokens).toBe(0);
    expect(final.balanceTokens).toBe(2_000 - 200 * successes);
    expect(final.balanceTokens).toBeGreaterThanOrEqual(0);
  });
});

describe('BYOK', () => {
  const BYOK_KEY = 'sk-byok-of-the-customer-1234';

  it("routes calls with the caller's own key and skips metering", async () => {
    await harness.core.byok.set({ organisationId }, 'fake', BYOK_KEY);
    harness.fake.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    const response = await harness.api('POST', personaPath, { key, body: { input: 'hi' } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(harness.fake.requests[0]?.authorization).toBe(`Bearer ${BYOK_KEY}`);
    expect(await balance()).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
    const [usage] = await harness.store.usage.listByAccount(accountId);
    expect(usage).toMatchObject({ byok: true, chargedTokens: 0, totalTokens: 20 });
  });

  it('answers 502 BYOK_KEY_INVALID when the provider rejects the key, with no fallback call', async () => {
    await harness.core.byok.set({ accountId }, 'fake', BYOK_KEY);
    harness.fake.setBehaviour({ status: 401 });
    const response = await harness.api('POST', personaPath, { key, body: { input: 'hi' } });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe('BYOK_KEY_INVALID');
    expect(response.text).not.toContain(BYOK_KEY);
    expect(harness.fake.requests).toHaveLength(1);
    expect(harness.fake.requests[0]?.authorization).toBe(`Bearer ${BYOK_KEY}`);
  });

  it('answers 502 BYOK_KEY_INVALID naming the secret key when the stored key cannot be decrypted, calling no provider (regression: 500 INTERNAL_ERROR)', async () => {
    // As after a move to a new host whose secret key differs from the one the key was stored under.
    await harness.core.byok.set({ organisationId }, 'fake', BYOK_KEY);
    const [record] = await harness.store.byokKeys.list({ organisationId });
    if (record === undefined) throw new Error('the key was not stored');
    // Storing replaces the provider's active key, as storing it again would.
    const moved = { ...record, id: `${record.id}x`, encryptedKey: encryptSecret(BYOK_KEY, randomBytes(32), `byok:organisation:${organisationId}:fake`) };
    await harness.store.byokKeys.put(moved);
    for (const [path, body] of [
      [personaPath, { input: 'hi' }],
      [`/workflows/${await importWorkflow([{ id: 'draft', kind: 'model', prompt: 'Draft a haiku.' }])}/execute`, {}],
    ] as const) {
      const response = await harness.api('POST', path, { key, body });
      expect(response.status, describeResponse(response)).toBe(502);
      expect(response.body.error.code).toBe('BYOK_KEY_INVALID');
      expect(response.body.error.message).toBe(
        `The organisation's fake key (...${moved.keyHint}, id ${moved.id}) cannot be decrypted: this server's secret key (PORCH_SECRET_KEY, or secret.key in its data folder) is not the one the key was stored under. Store the key again, or have the operator restore the secret key it was stored with.`,
      );
    }
    expect(harness.fake.requests, 'no fallback to the shared gateway').toHaveLength(0);
    expect(await balance()).toEqual({ balanceTokens: 1_000_000, reservedTokens: 0 });
  });

  it('answers 502 BYOK_KEY_INVALID when a workflow node is refused the key, and records the run as failed', async () => {
    await harness.core.byok.set({ accountId }, 'fake', BYOK_KEY);
    harness.fake.setBehaviour({ status: 401 });
    const id = await importWorkflow([
      { id: 'draft', kind: 'model', prompt: 'Draft a haiku.' },
      { id: 'title', kind: 'template', template: 'Untitled' },
    ]);
    const response = await harness.api('POST', `/workflows/${id}/execute`, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(502);
    expect(response.body.error.code).toBe('BYOK_KEY_INVALID');
    expect(response.text).not.toContain(BYOK_KEY);
    expect(harness.fake.requests).toHaveLength(1);
    const [usage] = (await harness.store.usage.listByAccount(accountId)).filter((record) => record.operation === 'execute_workflow' && record.nodeId === null);
    expect(usage).toMatchObject({ resourceId: id, status: 'failed' });
    expect(await harness.store.runs.findOwned({ accountId, id: usage?.runId ?? '' })).toMatchObject({ kind: 'workflow', status: 'failed' });
  });

  it('uses the shared gateway with use_byok: false, unless the organisation is strict BYOK', async () => {
    await harness.core.byok.set({ accountId }, 'fake', BYOK_KEY);
    const gateway = await harness.api('POST', personaPath, { key, body: { input: 'hi', use_byok: false } });
    expect(gateway.status).toBe(200);
    expect(harness.fake.requests[0]?.authorization).toBe(`Bearer ${GATEWAY_KEY}`);
    expect((await balance()).balanceTokens).toBeLessThan(1_000_000);

    await harness.core.accounts.setOrganisationPolicy(organisationId, { strictByok: true });
    const refused = await harness.api('POST', personaPath, { key, body: { input: 'hi', use_byok: false } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ACCESS_DENIED');
    expect(harness.fake.requests).toHaveLength(1);
  });

  it('stores BYOK keys encrypted, never in plaintext', async () => {
    await harness.core.byok.set({ accountId }, 'fake', BYOK_KEY);
    // The record as the engine stores it: the port returns the column untouched.
    const rows = await harness.store.byokKeys.list({ accountId });
    expect(rows[0]?.encryptedKey).not.toContain(BYOK_KEY);
    expect(rows[0]?.encryptedKey).toMatch(/^v1\./);
    expect(rows[0]?.keyHint).toBe('1234');
  });
});

describe('workflow engine over a provider', () => {
  it('runs independent branches concurrently and joins them', async () => {
    const BRANCH_LATENCY_MS = 150;
    const arrivals: number[] = [];
    const id = await importWorkflow(
      [
        { id: 'left', kind: 'model', prompt: 'left branch' },
        { id: 'right', kind: 'model', prompt: 'right branch' },
        { id: 'join', kind: 'template', template: '{{left}} + {{right}}' },
      ],
      { result: 'join' },
    );
    harness.fake.setBehaviour((request) => {
      arrivals.push(Date.now());
      return {
        delayMs: BRANCH_LATENCY_MS,
        content: `done ${JSON.stringify((request.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content)}`,
      };
    });
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${id}/execute`, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.outputs.result).toBe('done "left branch" + done "right branch"');
    // Both branches reached the provider before either was answered: they overlapped in time.
    expect(arrivals).toHaveLength(2);
    expect(Math.abs((arrivals[1] ?? 0) - (arrivals[0] ?? 0))).toBeLessThan(BRANCH_LATENCY_MS);
  });

  it("pays a run's model calls from one reservation settled once: each call's usage row, one charge of their sum, nothing left reserved", async () => {
    const id = await importWorkflow([
      { id: 'first', kind: 'model', prompt: 'one' },
      { id: 'second', kind: 'model', prompt: 'two {{first}}' },
      { id: 'third', kind: 'model', prompt: 'three {{second}}' },
    ]);
    harness.fake.setBehaviour({ content: 'ok', usage: { prompt_tokens: 150, completion_tokens: 50, total_tokens: 200 } });
    const before = (await harness.store.credits.ledger(accountId)).length;
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${id}/execute`, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(await balance()).toEqual({ balanceTokens: 1_000_000 - 600, reservedTokens: 0 });
    const charges = (await harness.store.credits.ledger(accountId)).slice(before);
    expect(charges.map((entry) => [entry.kind, entry.deltaTokens, entry.reference])).toEqual([['usage', -600, `usage:execute_workflow:${id}`]]);
    const rows = (await harness.store.usage.listByAccount(accountId)).filter((record) => record.runId === response.body.data.run_id);
    expect(rows.map((record) => [record.nodeId, record.chargedTokens, record.status])).toEqual([
      ['first', 200, 'succeeded'],
      ['second', 200, 'succeeded'],
      ['third', 200, 'succeeded'],
      [null, 600, 'succeeded'],
    ]);
  });

  it('a run cut off mid-way (its process gone) is charged for the calls that ran, and the rest of its reservation goes back', async () => {
    const id = await importWorkflow([
      { id: 'first', kind: 'model', prompt: 'one' },
      { id: 'second', kind: 'model', prompt: 'two {{first}}' },
    ]);
    harness.fake.setBehaviour((_request, index) => ({
      content: 'ok',
      usage: { prompt_tokens: 150, completion_tokens: 50, total_tokens: 200 },
      delayMs: index === 0 ? 0 : 500,
    }));
    const pending = harness.api('POST', `/workflows/${id}/execute`, { key, body: {} });
    await harness.fake.waitForRequests(2);
    // What another process does when this one's lease runs out: everything it held is released.
    await harness.store.instances.retire(await harness.core.instance.ready(), { at: harness.clock.now(), newEntryId: newId });
    expect(await balance(), 'the first call is charged; the rest of the reservation is back').toEqual({ balanceTokens: 1_000_000 - 200, reservedTokens: 0 });
    const response = await pending;
    expect(response.status, describeResponse(response)).toBe(402);
    expect(response.body.error.code).toBe('BILLING_FAILED');
    expect(await balance(), 'the call that ended after the cut is withheld, never charged twice').toEqual({
      balanceTokens: 1_000_000 - 200,
      reservedTokens: 0,
    });
  });

  it('fails the run with HTTP 200, skips the dependants, and records the failing node error', async () => {
    const id = await importWorkflow([
      { id: 'first', kind: 'model', prompt: 'FAIL here' },
      { id: 'second', kind: 'model', prompt: 'after {{first}}' },
      { id: 'other', kind: 'model', prompt: 'independent' },
    ]);
    harness.fake.setBehaviour((request) => (JSON.stringify(request.body).includes('FAIL') ? { status: 500 } : { content: 'fine' }));
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${id}/execute`, { key, body: { include_trace: true } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('failed');
    const byId = Object.fromEntries(response.body.data.node_results.map((node) => [node.node_id, node]));
    expect(byId.first?.status).toBe('failed');
    expect(byId.first?.error?.code).toBe('AI_SERVICE_ERROR');
    expect(byId.second?.status).toBe('skipped');
    expect(harness.fake.requests.some((request) => JSON.stringify(request.body).includes('after'))).toBe(false);
    expect(await balance()).toMatchObject({ reservedTokens: 0 });
  });

  it('times out a slow node at the per-node limit', async () => {
    const id = await importWorkflow([{ id: 'slow', kind: 'model', prompt: 'take your time' }]);
    harness.fake.setBehaviour({ delayMs: 8_000 });
    const started = Date.now();
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${id}/execute`, { key, body: { include_trace: true } });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(response.body.data.status).toBe('failed');
    expect(response.body.data.node_results[0]?.error?.message).toMatch(/time/i);
    expect(await balance()).toMatchObject({ balanceTokens: 1_000_000, reservedTokens: 0 });
  });

  it('passes judge and sanitise node outputs downstream as objects', async () => {
    harness.fake.setBehaviour((request) =>
      JSON.stringify(request.body).includes('judge_verdict')
        ? { content: JSON.stringify({ reasoning: 'Clear and specific.', score: 82, suggestions: ['Add an example.'] }) }
        : { content: 'Write to ada@example.com' },
    );
    const id = await importWorkflow(
      [
        { id: 'draft', kind: 'model', prompt: 'draft something' },
        { id: 'review', kind: 'judge', prompt: '{{draft}}', criteria: 'Be clear' },
        { id: 'scan', kind: 'sanitise', text: '{{draft}}' },
        { id: 'report', kind: 'template', template: 'score={{review.score}} verdict={{review.verdict}} severity={{scan.severity}}' },
      ],
      { report: 'report' },
    );
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${id}/execute`, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.outputs.report).toMatch(/^score=82 verdict=pass severity=(warn|info|block)$/);
  });
});
