/**
 * The organisation's guardrails on every model call, proved with the fake upstream's request
 * log: a blocked or redacted secret never reaches the provider, on the executes, a workflow
 * node, the judge, MCP and a partner key's call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { executePersona } from '../../src/operations/execute-persona.js';
import { describeResponse } from '../helpers/harness.js';
import { connectInMemory, describeResult, resultText } from '../helpers/mcp-client.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';

/** A GitHub token in the vendor's format (made up for this test). */
const TOKEN = 'ghp_Q8vT3kLm9xR2pN7wZ4bY6cJ1hF5dS0aGe2Uu';

let harness: ProviderHarness;
let key: string;
let accountId: string;
let organisationId: string;
let ids: Record<string, string>;

beforeEach(async () => {
  harness = await createProviderHarness();
  ({ key, accountId, organisationId } = await harness.expertWithKey());
  ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids as Record<string, string>;
  harness.fake.setBehaviour({ content: 'Done.', usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
});
afterEach(() => harness.close());

const sentToUpstream = () => JSON.stringify(harness.fake.requests.map((request) => request.body));

function policy(inputs: 'off' | 'report' | 'redact' | 'block', outputs: 'off' | 'report' | 'redact' | 'block' = 'off') {
  return harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailInputs: inputs, guardrailOutputs: outputs, guardrailMinSeverity: 'warn' });
}

async function importWorkflow(): Promise<string> {
  const summary = await harness.core.bundles.importBundle(accountId, {
    workflows: [
      { key: 'g', name: 'Guarded workflow', variables: [{ name: 'notes' }], nodes: [{ id: 'draft', kind: 'model', prompt: 'Summarise: {{notes}}' }] },
    ],
  });
  return summary.ids['workflow:g'] ?? '';
}

/** Each REST path that calls a model, with the secret in what it sends. */
const REST_CALLS: Record<string, () => Promise<{ path: string; body: unknown }>> = {
  execute_composition: async () => ({
    path: `/compositions/${ids['composition:release-notes']}/execute`,
    body: { variables: { ...RELEASE_VARIABLES, changes: `- rotated ${TOKEN}` } },
  }),
  execute_skill: async () => ({ path: `/skills/${ids['skill:summarise']}/execute`, body: { input: `Our CI token is ${TOKEN}.`, variables: { bullets: 2 } } }),
  execute_persona: async () => ({ path: `/personas/${ids['persona:plain-editor']}/execute`, body: { input: `Use ${TOKEN} for the deploy.` } }),
  'execute_workflow (a model node)': async () => ({
    path: `/workflows/${await importWorkflow()}/execute`,
    body: { variables: { notes: `token ${TOKEN}` }, include_trace: true },
  }),
  run_judge: async () => ({ path: '/judge/run', body: { prompt: `Deploy with ${TOKEN}`, criteria: 'Safe' } }),
};

describe('guardrails on inputs', () => {
  it.each(Object.keys(REST_CALLS))('block refuses %s with 422 CONTENT_BLOCKED before the provider sees anything', async (name) => {
    await policy('block');
    const call = await (REST_CALLS[name] ?? (() => Promise.reject(new Error(name))))();
    const before = await harness.store.credits.balance(accountId);
    const response = await harness.api<{ status?: string }>('POST', call.path, { key, body: call.body });
    const body = JSON.stringify(response.body);
    if (name.startsWith('execute_workflow')) {
      // A failed node fails the run (HTTP 200, status failed, the error in its trace).
      expect(response.status, describeResponse(response)).toBe(200);
      expect(response.body.data.status).toBe('failed');
      expect(body).toContain('CONTENT_BLOCKED');
    } else {
      expect(response.status, describeResponse(response)).toBe(422);
      expect(response.body.error.code).toBe('CONTENT_BLOCKED');
      expect(response.body.error.message).toMatch(/secret\.github_token at message \d+ \[\d+, \d+\)/);
    }
    expect(body).not.toContain(TOKEN);
    expect(harness.fake.requests).toHaveLength(0);
    expect(await harness.store.credits.balance(accountId)).toEqual(before);
  });

  it.each(Object.keys(REST_CALLS))('redact sends %s the typed placeholder, never the secret', async (name) => {
    await policy('redact');
    const call = await (REST_CALLS[name] ?? (() => Promise.reject(new Error(name))))();
    if (name === 'run_judge') harness.fake.setBehaviour({ content: JSON.stringify({ reasoning: 'Fine.', score: 80, suggestions: [] }) });
    const response = await harness.api('POST', call.path, { key, body: call.body });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(harness.fake.requests.length).toBeGreaterThan(0);
    expect(sentToUpstream()).not.toContain(TOKEN);
    expect(sentToUpstream()).toContain('[GITHUB_TOKEN_1]');
  });

  it('report sends the text unchanged and lists the findings, without their text, in the result', async () => {
    await policy('report');
    const call = await (REST_CALLS.execute_persona ?? (() => Promise.reject(new Error('persona'))))();
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', call.path, { key, body: call.body });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(sentToUpstream()).toContain(TOKEN);
    expect(response.body.data.guardrail_findings).toEqual([
      expect.objectContaining({ direction: 'input', rule_id: 'secret.github_token', severity: 'block', message_index: expect.any(Number) }),
    ]);
    expect(JSON.stringify(response.body)).not.toContain(`"${TOKEN}"`);
  });

  it('off (the default) changes nothing and reports nothing', async () => {
    const call = await (REST_CALLS.execute_persona ?? (() => Promise.reject(new Error('persona'))))();
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', call.path, { key, body: call.body });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(sentToUpstream()).toContain(TOKEN);
    expect(response.body.data.guardrail_findings).toBeUndefined();
  });

  it('acts only on findings of at least min_severity', async () => {
    await harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailInputs: 'block', guardrailMinSeverity: 'block' });
    const response = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input: 'Write to ada@example.com.' } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(sentToUpstream()).toContain('ada@example.com');
  });

  it('blocks and redacts on MCP as on REST', async () => {
    const connection = await connectInMemory(harness, { key });
    try {
      await policy('block');
      const blocked = await connection.client.callTool({ name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input: `key ${TOKEN}` } });
      expect(blocked.isError, describeResult(blocked)).toBe(true);
      expect(resultText(blocked)).toMatch(/^CONTENT_BLOCKED: /);
      expect(resultText(blocked)).not.toContain(TOKEN);
      expect(harness.fake.requests).toHaveLength(0);
      await policy('redact');
      const redacted = await connection.client.callTool({ name: 'execute_persona', arguments: { id: ids['persona:plain-editor'], input: `key ${TOKEN}` } });
      expect(redacted.isError, describeResult(redacted)).toBeFalsy();
      expect(sentToUpstream()).not.toContain(TOKEN);
      expect(sentToUpstream()).toContain('[GITHUB_TOKEN_1]');
    } finally {
      await connection.close();
    }
  });

  it("applies the member's organisation policy to a partner key's call", async () => {
    const member = await harness.core.accounts.createAccount({ email: `member-${Date.now()}@example.com`, plan: 'expert', credits: 5, organisationId });
    const memberIds = (await harness.core.bundles.importBundle(member.id, DEMO_BUNDLE)).ids as Record<string, string>;
    const partner = await harness.core.accounts.createPartnerKey({ organisationId, scopes: ['execute:persona'] });
    await policy('redact');
    const response = await harness.api('POST', `/personas/${memberIds['persona:plain-editor']}/execute`, {
      key: partner.plaintext,
      headers: { 'x-porch-account': member.id },
      body: { input: `token ${TOKEN}` },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(sentToUpstream()).not.toContain(TOKEN);
    expect(sentToUpstream()).toContain('[GITHUB_TOKEN_1]');
  });
});

describe('guardrails on outputs', () => {
  it('block refuses a model answer holding a secret, naming the rule and never the text', async () => {
    await policy('off', 'block');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}` });
    const response = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input: 'Give me a token.' } });
    expect(response.status, describeResponse(response)).toBe(422);
    expect(response.body.error.code).toBe('CONTENT_BLOCKED');
    expect(response.body.error.message).toContain('secret.github_token');
    expect(JSON.stringify(response.body)).not.toContain(TOKEN);
  });

  it('redact returns the answer with the placeholder', async () => {
    await policy('off', 'redact');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}` });
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input: 'Give me a token.' },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.content).toBe('Here you go: [GITHUB_TOKEN_1]');
    expect(response.body.data.guardrail_findings).toEqual([
      expect.objectContaining({ direction: 'output', message_index: null, rule_id: 'secret.github_token' }),
    ]);
  });
});
