/** With no provider configured, everything executes offline through echo/echo, metered exactly. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { executeComposition } from '../../src/operations/execute-composition.js';
import type { executePersona } from '../../src/operations/execute-persona.js';
import type { executeSkill } from '../../src/operations/execute-skill.js';
import type { executeWorkflow } from '../../src/operations/execute-workflow.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { sendRaw } from '../helpers/raw-http.js';

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

const RENDERED_NOTES = 'Write release notes for Porch version 1.2.\nAudience: developers.\nChanges:\n- Faster lists\n- MCP prompts';

async function balanceTokens(): Promise<number> {
  return (await harness.store.credits.balance(accountId)).balanceTokens;
}

describe('executions with the echo model', () => {
  it('executes a composition: the content is exactly the rendered prompt, and credits drop by the metered tokens', async () => {
    const response = await harness.api<OperationOutput<typeof executeComposition>>('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    const data = response.body.data;
    expect(data.content).toBe(RENDERED_NOTES);
    expect(data.model_used).toBe('echo/echo');
    expect(data.token_usage.input_tokens).toBe(harness.core.ai.estimateTokens([{ role: 'user', content: RENDERED_NOTES }]));
    expect(data.token_usage.output_tokens).toBe(harness.core.ai.countTokens(RENDERED_NOTES));
    expect(data.token_usage.total_tokens).toBe(data.token_usage.input_tokens + data.token_usage.output_tokens);
    expect(await balanceTokens()).toBe(1_000_000 - data.token_usage.total_tokens);
    expect(response.headers.get('x-credits-remaining')).toBe(String(Math.floor((1_000_000 - data.token_usage.total_tokens) / 1000)));

    const [listed] = (await harness.api<{ items: Array<{ times_used: number }> }>('GET', '/compositions', { key })).body.data.items;
    expect(listed?.times_used).toBe(1);
    const usage = await harness.store.usage.listByAccount(accountId);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      operation: 'execute_composition',
      resourceId: ids['composition:release-notes'],
      model: 'echo/echo',
      status: 'succeeded',
      chargedTokens: data.token_usage.total_tokens,
    });
  });

  it('executes a skill with input, and with the legacy context alias (input wins when both are sent)', async () => {
    const path = `/skills/${ids['skill:summarise']}/execute`;
    const withInput = await harness.api<OperationOutput<typeof executeSkill>>('POST', path, {
      key,
      body: { input: 'the input', context: 'the context', variables: { bullets: 3 } },
    });
    expect(withInput.status, describeResponse(withInput)).toBe(200);
    expect(withInput.body.data).toMatchObject({ content: 'the input', skill_name: 'Summarise', model_used: 'echo/echo' });
    const withContext = await harness.api<OperationOutput<typeof executeSkill>>('POST', path, {
      key,
      body: { context: 'legacy text', variables: { bullets: 3 } },
    });
    expect(withContext.body.data.content).toBe('legacy text');
    const neither = await harness.api('POST', path, { key, body: { variables: {} } });
    expect(neither.status).toBe(400);
    expect(neither.body.error.message).toMatch(/send `input`/);
    // As a persona's: an empty input is refused, not sent to the model in place of the context (regression: 200, charged).
    for (const [body, field] of [
      [{ input: '', context: 'the context' }, 'input'],
      [{ context: '' }, 'context'],
    ] as const) {
      const empty = await harness.api('POST', path, { key, body: { ...body, variables: { bullets: 3 } } });
      expect(empty.status, field).toBe(400);
      expect(empty.body.error.message).toContain(`body.${field}: must not be empty`);
    }
  });

  it('executes a persona: the context follows the input after a blank line', async () => {
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input: 'Fix this.', context: 'It is for a newsletter.', temperature: 0.3 },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({ content: 'Fix this.\n\nIt is for a newsletter.', persona_name: 'Plain-English editor' });
    const hot = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input: 'x', temperature: 1.5 } });
    expect(hot.status).toBe(400);
    expect(hot.body.error.message).toMatch(/body\.temperature: must be between 0 and 1/);
  });

  it('runs the demo workflow end to end, with a trace on request, and counts the run', async () => {
    const path = `/workflows/${ids['workflow:release-announcement']}/execute`;
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', path, {
      key,
      body: { variables: RELEASE_VARIABLES, include_trace: true },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    const data = response.body.data;
    expect(data.status).toBe('completed');
    expect(data.outputs.announcement).toBe(RENDERED_NOTES);
    expect(data.outputs.findings).toEqual({ findings: [], severity: 'clean', truncated: false });
    expect(data.node_results.map((node) => [node.node_id, node.status])).toEqual([
      ['draft', 'completed'],
      ['summary', 'completed'],
      ['plain', 'completed'],
      ['scan', 'completed'],
    ]);
    const modelTokens = data.node_results.reduce((sum, node) => sum + (node.token_usage?.total_tokens ?? 0), 0);
    expect(data.token_usage.total_tokens).toBe(modelTokens);
    expect(await balanceTokens()).toBe(1_000_000 - modelTokens);

    const usage = await harness.store.usage.listByAccount(accountId);
    expect(usage.filter((row) => row.nodeId !== null).map((row) => row.nodeId)).toEqual(expect.arrayContaining(['draft', 'summary', 'plain']));
    expect(usage.filter((row) => row.nodeId === null && row.runId === data.run_id)).toHaveLength(1);
    const [listed] = (await harness.api<{ items: Array<{ usage_count: number }> }>('GET', '/workflows', { key })).body.data.items;
    expect(listed?.usage_count).toBe(1);
  });

  it('accepts inputs as an alias of variables and returns no trace unless asked', async () => {
    const response = await harness.api<OperationOutput<typeof executeWorkflow>>('POST', `/workflows/${ids['workflow:release-announcement']}/execute`, {
      key,
      body: { inputs: RELEASE_VARIABLES },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('completed');
    expect(response.body.data.node_results).toEqual([]);
  });

  it('rejects missing required variables with 400 before spending anything', async () => {
    const composition = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
      key,
      body: { variables: { product: 'Porch' } },
    });
    expect(composition.status).toBe(400);
    expect(composition.body.error.message).toBe('Missing required variables: version, changes.');
    const workflow = await harness.api('POST', `/workflows/${ids['workflow:release-announcement']}/execute`, { key, body: {} });
    expect(workflow.status).toBe(400);
    expect(workflow.body.error.message).toMatch(/product/);
    expect(await balanceTokens()).toBe(1_000_000);
    expect(await harness.store.usage.listByAccount(accountId)).toEqual([]);
  });

  it('renders a declared optional variable without a default as empty, as a workflow does', async () => {
    // Regression: `required: false` without a default answered "Missing required variable: note".
    const created = await harness.api<{ id: string }>('POST', '/compositions', {
      key,
      body: { name: 'Optional note', template: 'v=[{{note}}]', variables: [{ name: 'note', required: false }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const id = created.body.data.id;
    const response = await harness.api<{ content: string }>('POST', `/compositions/${id}/execute`, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.content).toContain('v=[]');
  });

  it('answers 400 for an unknown model and 404 for a missing resource', async () => {
    const unknownModel = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input: 'x', model: 'nope/model' } });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error.message).toMatch(/Unknown model "nope\/model"/);
    const missing = await harness.api('POST', '/skills/0190a4b0-0000-7000-8000-000000000000/execute', { key, body: { input: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers 402 INSUFFICIENT_CREDITS stating available and required credits', async () => {
    const poor = await harness.createAccount({ credits: 0 });
    const poorKey = await harness.createKey(poor.accountId);
    const poorIds = (await harness.core.bundles.importBundle(poor.accountId, DEMO_BUNDLE)).ids;
    const response = await harness.api('POST', `/personas/${poorIds['persona:plain-editor']}/execute`, { key: poorKey.key, body: { input: 'hi' } });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(response.body.error.message).toMatch(/^Insufficient credits: 0 available, [\d.]+ required/);
    expect(response.headers.get('x-credits-remaining')).toBe('0');
  });

  it('replays an execution with the same Idempotency-Key without charging again, and refuses another body with 409', async () => {
    const path = `/personas/${ids['persona:plain-editor']}/execute`;
    const headers = { 'idempotency-key': 'retry-123' };
    const first = await harness.api<OperationOutput<typeof executePersona>>('POST', path, { key, body: { input: 'once' }, headers });
    const afterFirst = await balanceTokens();
    const second = await harness.api<OperationOutput<typeof executePersona>>('POST', path, { key, body: { input: 'once' }, headers });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(await balanceTokens()).toBe(afterFirst);
    expect(await harness.store.usage.listByAccount(accountId)).toHaveLength(1);
    const conflict = await harness.api('POST', path, { key, body: { input: 'different' }, headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    const bad = await harness.api('POST', path, { key, body: { input: 'x' }, headers: { 'idempotency-key': 'has spaces' } });
    expect(bad.status).toBe(400);
  });

  it('judges with the deterministic rubric when only echo is configured, and says so', async () => {
    const response = await harness.api<{ verdict: string; score: number; reasoning: string; suggestions: string[] }>('POST', '/judge/run', {
      key,
      body: {
        prompt: 'You are a senior editor. Summarise the article below in 3 bullet points for busy executives. Use plain English and no jargon.\n\nArticle: ...',
      },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(['pass', 'fail', 'needs_revision']).toContain(response.body.data.verdict);
    expect(response.body.data.reasoning).toMatch(/deterministic/i);
    expect(response.body.data.reasoning).toContain('no AI model is configured');
    // The rubric costs nothing, but the execution is in the audit trail like any other.
    expect(await balanceTokens()).toBe(1_000_000);
    const usage = await harness.store.usage.listByAccount(accountId);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ operation: 'run_judge', model: 'echo/echo', status: 'succeeded', totalTokens: 0, chargedTokens: 0, byok: false });
  });

  it('scans text with the built-in rules', async () => {
    const response = await harness.api<{ severity: string; findings: Array<{ rule_id: string; match: string; start: number; end: number }> }>(
      'POST',
      '/sanitiser/scan',
      {
        key,
        body: { text: 'Contact ada@example.com' },
      },
    );
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.findings[0]).toMatchObject({ match: 'ada@example.com', start: 8, end: 23 });
    expect(response.body.data.severity).not.toBe('clean');
  });
});

describe('an execute without a body is {} (DECISIONS.md)', () => {
  it('answers a body-less execute as it answers {}, however the emptiness is sent (regression: an empty chunked body was 415)', async () => {
    const path = `/workflows/${ids['workflow:release-announcement']}/execute`;
    const withEmptyObject = await harness.api('POST', path, { key, body: {} });
    expect(withEmptyObject.status, describeResponse(withEmptyObject)).toBe(400);
    const request = (headers: string, body = '') =>
      sendRaw(harness.url, `POST /api/public/v1${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\nx-api-key: ${key}\r\n${headers}\r\n${body}`);
    for (const [name, headers, body] of [
      ['no Content-Length', '', ''],
      ['Content-Length: 0', 'content-length: 0\r\n', ''],
      ['an empty chunked body', 'transfer-encoding: chunked\r\n', '0\r\n\r\n'],
    ] as const) {
      const response = await request(headers, body);
      expect(response.status, `${name}: ${response.raw}`).toBe(withEmptyObject.status);
      expect(JSON.parse(response.body).error.message, name).toBe(withEmptyObject.body.error.message);
    }
    const notEmpty = await request('transfer-encoding: chunked\r\n', '2\r\n{}\r\n0\r\n\r\n');
    expect(notEmpty.status, `a chunked body without Content-Type still is not JSON: ${notEmpty.raw}`).toBe(415);
  });
});

describe('workflow credit check', () => {
  it('answers 402 before running a workflow whose account is below the minimum balance', async () => {
    const poor = await harness.createAccount({ credits: 0.5 });
    const poorKey = await harness.createKey(poor.accountId);
    const poorIds = (await harness.core.bundles.importBundle(poor.accountId, DEMO_BUNDLE)).ids;
    const response = await harness.api('POST', `/workflows/${poorIds['workflow:release-announcement']}/execute`, {
      key: poorKey.key,
      body: { variables: RELEASE_VARIABLES },
    });
    expect(response.status).toBe(402);
    expect(response.body.error.message).toBe('Insufficient credits: 0.5 available, 1 required to start this execution.');
  });
});
