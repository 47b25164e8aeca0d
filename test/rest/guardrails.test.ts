/**
 * The organisation's guardrails on every model call, proved with the fake upstream's request
 * log: a blocked or redacted secret never reaches the provider, and reported findings come back
 * (rule ids and positions, never the text), on every path that calls a model (the three
 * executes, a workflow's model and judge nodes, the judge) through every door (REST, MCP, and a
 * partner key on each).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { OperationOutput } from '../../src/operations/operation.js';
import type { executePersona } from '../../src/operations/execute-persona.js';
import type { runJudge } from '../../src/operations/run-judge.js';
import { describeResponse } from '../helpers/harness.js';
import { connectInMemory, resultText, type McpConnection } from '../helpers/mcp-client.js';
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

/** A verdict the judge can read, for the paths that call it. */
const VERDICT = JSON.stringify({ reasoning: 'Fine.', score: 80, suggestions: [] });

async function importWorkflow(owner: string, node: Record<string, unknown>): Promise<string> {
  const summary = await harness.core.bundles.importBundle(owner, {
    workflows: [{ key: 'g', name: 'Guarded workflow', variables: [{ name: 'notes' }], nodes: [node] }],
  });
  return summary.ids['workflow:g'] ?? '';
}

/** One call of a path that reaches a model, with the secret in what it sends. */
interface GuardedCall {
  path: string;
  /** The path's `{id}`, also the MCP tool's `id` argument. */
  id?: string | undefined;
  body: Record<string, unknown>;
}

/** A path that calls a model: its operation (the MCP tool of the same name) and, for workflows, the node whose trace holds the findings. */
interface GuardedPath {
  operation: string;
  node?: string;
  /**
   * The texts the input guardrail reads when the caller checks parts of its own (the judge: its
   * prompt and criteria), whose indexes and positions its findings name instead of the messages'.
   */
  parts?: readonly string[];
  prepare(owner: string, owned: Record<string, string>): Promise<GuardedCall>;
}

const PATHS: Record<string, GuardedPath> = {
  execute_composition: {
    operation: 'execute_composition',
    prepare: async (_owner, owned) => {
      const id = owned['composition:release-notes'];
      return { path: `/compositions/${id}/execute`, id, body: { variables: { ...RELEASE_VARIABLES, changes: `- rotated ${TOKEN}` } } };
    },
  },
  execute_skill: {
    operation: 'execute_skill',
    prepare: async (_owner, owned) => {
      const id = owned['skill:summarise'];
      return { path: `/skills/${id}/execute`, id, body: { input: `Our CI token is ${TOKEN}.`, variables: { bullets: 2 } } };
    },
  },
  execute_persona: {
    operation: 'execute_persona',
    prepare: async (_owner, owned) => {
      const id = owned['persona:plain-editor'];
      return { path: `/personas/${id}/execute`, id, body: { input: `Use ${TOKEN} for the deploy.` } };
    },
  },
  'execute_workflow (a model node)': {
    operation: 'execute_workflow',
    node: 'draft',
    prepare: async (owner) => {
      const id = await importWorkflow(owner, { id: 'draft', kind: 'model', prompt: 'Summarise: {{notes}}' });
      return { path: `/workflows/${id}/execute`, id, body: { variables: { notes: `token ${TOKEN}` }, include_trace: true } };
    },
  },
  'execute_workflow (a judge node)': {
    operation: 'execute_workflow',
    node: 'review',
    parts: [`Deploy with ${TOKEN}`, 'Safe'],
    prepare: async (owner) => {
      const id = await importWorkflow(owner, { id: 'review', kind: 'judge', prompt: 'Deploy with {{notes}}', criteria: 'Safe' });
      return { path: `/workflows/${id}/execute`, id, body: { variables: { notes: TOKEN }, include_trace: true } };
    },
  },
  run_judge: {
    operation: 'run_judge',
    parts: [`Deploy with ${TOKEN}`, 'Safe'],
    prepare: async () => ({ path: '/judge/run', body: { prompt: `Deploy with ${TOKEN}`, criteria: 'Safe' } }),
  },
};

/** What a door answered, in one shape: the result's data, or the error's code and message. */
type Answer = { ok: true; data: Record<string, unknown>; raw: string } | { ok: false; code: string; message: string; raw: string };

/** The doors a call can come through, each acting for an account it sets up. */
interface Door {
  setUp(): Promise<{ owner: string; call(operation: string, call: GuardedCall): Promise<Answer> }>;
}

function rest(credentials: { key: string; headers?: Record<string, string> }) {
  return async (_operation: string, call: GuardedCall): Promise<Answer> => {
    const response = await harness.api<Record<string, unknown>>('POST', call.path, { ...credentials, body: call.body });
    const raw = JSON.stringify(response.body);
    if (response.status === 200) return { ok: true, data: response.body.data, raw };
    return { ok: false, code: response.body.error.code, message: response.body.error.message, raw };
  };
}

function mcp(connection: McpConnection) {
  return async (operation: string, call: GuardedCall): Promise<Answer> => {
    const result = await connection.client.callTool({ name: operation, arguments: { ...(call.id === undefined ? {} : { id: call.id }), ...call.body } });
    const raw = JSON.stringify(result);
    if (result.isError) {
      const [code = '', message = ''] = resultText(result).split(/: (.*)/s);
      return { ok: false, code, message, raw };
    }
    return { ok: true, data: result.structuredContent as Record<string, unknown>, raw };
  };
}

/** A member of the organisation whose partner key calls on its behalf, with the demo bundle imported. */
async function partnerMember(): Promise<{ memberId: string; partnerKey: string }> {
  const member = await harness.core.accounts.createAccount({ email: `member-${Date.now()}@example.com`, plan: 'expert', credits: 5, organisationId });
  const partner = await harness.core.accounts.createPartnerKey({
    organisationId,
    scopes: ['execute:composition', 'execute:skill', 'execute:persona', 'execute:workflow', 'api:judge'],
  });
  return { memberId: member.id, partnerKey: partner.plaintext };
}

const connections: McpConnection[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.close();
});

const DOORS: Record<string, Door> = {
  REST: { setUp: async () => ({ owner: accountId, call: rest({ key }) }) },
  MCP: {
    setUp: async () => {
      const connection = await connectInMemory(harness, { key });
      connections.push(connection);
      return { owner: accountId, call: mcp(connection) };
    },
  },
  'a partner key on REST': {
    setUp: async () => {
      const { memberId, partnerKey } = await partnerMember();
      return { owner: memberId, call: rest({ key: partnerKey, headers: { 'x-porch-account': memberId } }) };
    },
  },
  'a partner key on MCP': {
    setUp: async () => {
      const { memberId, partnerKey } = await partnerMember();
      const connection = await connectInMemory(harness, { key: partnerKey, actingAccountId: memberId });
      connections.push(connection);
      return { owner: memberId, call: mcp(connection) };
    },
  },
};

const CASES = Object.keys(DOORS).flatMap((door) => Object.keys(PATHS).map((path) => [door, path] as const));

/** Runs a path through a door under the given input policy, the fake upstream answering what that path needs. */
async function guardedCall(door: string, pathName: string): Promise<{ path: GuardedPath; answer: Answer }> {
  const path = PATHS[pathName];
  const doorway = DOORS[door];
  if (path === undefined || doorway === undefined) throw new Error(`no ${door} / ${pathName}`);
  if (path.operation === 'run_judge' || path.node === 'review') harness.fake.setBehaviour({ content: VERDICT });
  const { owner, call } = await doorway.setUp();
  const owned = owner === accountId ? ids : ((await harness.core.bundles.importBundle(owner, DEMO_BUNDLE)).ids as Record<string, string>);
  return { path, answer: await call(path.operation, await path.prepare(owner, owned)) };
}

interface NodeTrace {
  node_id: string;
  status: string;
  error: { code: string; message: string } | null;
  guardrail_findings?: unknown;
}

/** The guardrail findings of the answer: the result's own, or the workflow node's entry in the trace. */
function findingsIn(path: GuardedPath, data: Record<string, unknown>): unknown {
  if (path.node === undefined) return data.guardrail_findings;
  return (data.node_results as NodeTrace[]).find((node) => node.node_id === path.node)?.guardrail_findings;
}

/** The text each input finding points at: in the caller's parts when it checks its own, else in the messages the fake upstream received. */
function textsAtFindings(path: GuardedPath, findings: unknown): string[] {
  const sent = harness.fake.requests.map((request) => (request.body as { messages: Array<{ content: string }> }).messages);
  const texts = path.parts ?? (sent[0] ?? []).map((message) => message.content);
  return (findings as Array<{ message_index: number; start: number; end: number }>).map((finding) =>
    (texts[finding.message_index] ?? '').slice(finding.start, finding.end),
  );
}

/** How a refusal names a finding: by the message, or the caller's own part (the judge's, regression: offsets into the hidden wrapper). */
function blockedAt(path: GuardedPath): RegExp {
  if (path.parts === undefined) return /secret\.github_token at message \d+ \[\d+, \d+\)/;
  const start = path.parts[0]?.indexOf(TOKEN) ?? -1;
  return new RegExp(`secret\\.github_token at part 0 \\[${start}, ${start + TOKEN.length}\\)`);
}

describe('guardrails on inputs, on every path and door', () => {
  it.each(CASES)('block: %s, %s is refused before the provider sees anything', async (door, pathName) => {
    await policy('block');
    const before = await harness.store.credits.balance(accountId);
    const { path, answer } = await guardedCall(door, pathName);
    if (path.node !== undefined) {
      // A blocked node fails the run like any failed node (DECISIONS: HTTP 200, status failed,
      // the node's error in its trace); only a rejected BYOK key fails the whole request.
      expect(answer.ok, answer.raw).toBe(true);
      const data = answer.ok ? answer.data : {};
      expect(data.status).toBe('failed');
      const node = (data.node_results as NodeTrace[]).find((entry) => entry.node_id === path.node);
      expect(node?.status).toBe('failed');
      expect(node?.error?.code).toBe('CONTENT_BLOCKED');
      expect(node?.error?.message).toMatch(blockedAt(path));
    } else {
      expect(answer.ok, answer.raw).toBe(false);
      expect(answer.ok ? '' : answer.code).toBe('CONTENT_BLOCKED');
      expect(answer.ok ? '' : answer.message).toMatch(blockedAt(path));
    }
    expect(answer.raw).not.toContain(TOKEN);
    expect(harness.fake.requests).toHaveLength(0);
    expect(await harness.store.credits.balance(accountId)).toEqual(before);
  });

  it.each(CASES)('redact: %s, %s sends the typed placeholder, never the secret, and lists the findings', async (door, pathName) => {
    await policy('redact');
    const { path, answer } = await guardedCall(door, pathName);
    expect(answer.ok, answer.raw).toBe(true);
    expect(harness.fake.requests.length).toBeGreaterThan(0);
    expect(sentToUpstream()).not.toContain(TOKEN);
    expect(sentToUpstream()).toContain('[GITHUB_TOKEN_1]');
    const findings = findingsIn(path, answer.ok ? answer.data : {});
    expect(findings).toEqual([expect.objectContaining({ direction: 'input', rule_id: 'secret.github_token', severity: 'block' })]);
    expect(answer.raw).not.toContain(TOKEN);
  });

  it.each(CASES)('report: %s, %s sends the text unchanged and returns where the findings are, never their text', async (door, pathName) => {
    await policy('report');
    const { path, answer } = await guardedCall(door, pathName);
    expect(answer.ok, answer.raw).toBe(true);
    expect(sentToUpstream()).toContain(TOKEN);
    const findings = findingsIn(path, answer.ok ? answer.data : {});
    expect(findings).toEqual([
      {
        direction: 'input',
        message_index: expect.any(Number),
        rule_id: 'secret.github_token',
        label: expect.any(String),
        severity: 'block',
        start: expect.any(Number),
        end: expect.any(Number),
      },
    ]);
    expect(textsAtFindings(path, findings)).toEqual([TOKEN]);
    expect(answer.raw).not.toContain(TOKEN);
  });
});

describe('guardrails on inputs', () => {
  it('off (the default) changes nothing and reports nothing', async () => {
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input: `Use ${TOKEN} for the deploy.` },
    });
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

  /** A judge reply whose strings escape what they hold, as JSON encoders with ensure_ascii do. */
  const ESCAPED_VERDICT = String.raw`{"reasoning": "Write to ada\u0040example.com.", "score": 80, "suggestions": ["Card 4111\u00201111\u00201111\u00201111 on file."]}`;

  it('block refuses a judge verdict whose text holds what the guardrail blocks, escaped in the raw reply (regression: returned in clear)', async () => {
    await policy('off', 'block');
    harness.fake.setBehaviour({ content: ESCAPED_VERDICT });
    const response = await harness.api('POST', '/judge/run', { key, body: { prompt: 'Write a haiku.' } });
    expect(response.status, describeResponse(response)).toBe(422);
    expect(response.body.error.message).toMatch(/pii\.payment_card at part 1 \[\d+, \d+\)/);
    expect(JSON.stringify(response.body)).not.toContain('4111');
  });

  it("redact returns the judge verdict's reasoning and suggestions with placeholders, naming each part", async () => {
    await policy('off', 'redact');
    harness.fake.setBehaviour({ content: ESCAPED_VERDICT });
    const response = await harness.api<OperationOutput<typeof runJudge>>('POST', '/judge/run', { key, body: { prompt: 'Write a haiku.' } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data).toMatchObject({ reasoning: 'Write to [EMAIL_1].', suggestions: ['Card [PAYMENT_CARD_1] on file.'] });
    expect(response.body.data.guardrail_findings?.map((finding) => [finding.direction, finding.message_index, finding.rule_id])).toEqual([
      ['output', 0, 'pii.email'],
      ['output', 1, 'pii.payment_card'],
    ]);
  });

  it('counts an answer the guardrail blocked as an error in /usage, charged as the ledger says (regression: a success)', async () => {
    await policy('off', 'block');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}`, usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
    const refused = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input: 'Give me a token.' } });
    expect(refused.status, describeResponse(refused)).toBe(422);
    const usage = await harness.api<{ totals: Record<string, number> }>('GET', '/usage', { key });
    expect(usage.body.data.totals).toMatchObject({ requests: 1, errors: 1, model_calls: 1, total_tokens: 25 });
    const runs = await harness.api<{ items: Array<{ status: string }> }>('GET', '/runs', { key });
    expect(runs.body.data.items.map((run) => run.status)).toEqual(['failed']);
  });

  it('counts a workflow judge node’s calls in its trace and in the run’s tokens and credits (regression: 0 while charged)', async () => {
    harness.fake.setBehaviour({ content: VERDICT, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    const summary = await harness.core.bundles.importBundle(accountId, {
      workflows: [{ key: 'graded', name: 'Graded', nodes: [{ id: 'j', kind: 'judge', prompt: 'Write a haiku.' }] }],
    });
    const before = (await harness.store.credits.balance(accountId)).balanceTokens;
    const response = await harness.api<{ run_id: string; token_usage: { total_tokens: number }; node_results: Array<Record<string, unknown>> }>(
      'POST',
      `/workflows/${summary.ids['workflow:graded']}/execute`,
      { key, body: { include_trace: true } },
    );
    expect(response.status, describeResponse(response)).toBe(200);
    expect(before - (await harness.store.credits.balance(accountId)).balanceTokens).toBe(15);
    expect(response.body.data.token_usage.total_tokens).toBe(15);
    expect(response.body.data.node_results[0]).toMatchObject({ model: expect.any(String), token_usage: { total_tokens: 15 } });
    const runView = await harness.api<{ credits_charged: number }>('GET', `/runs/${response.body.data.run_id}`, { key });
    expect(runView.body.data.credits_charged).toBeCloseTo(0.015, 6);
  });

  it("report lists a workflow node's output findings in its trace, the answer unchanged", async () => {
    await policy('off', 'report');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}` });
    const { path, answer } = await guardedCall('REST', 'execute_workflow (a model node)');
    expect(answer.ok, answer.raw).toBe(true);
    const data = answer.ok ? answer.data : {};
    const node = (data.node_results as Array<{ node_id: string; output: unknown }>).find((entry) => entry.node_id === path.node);
    expect(node?.output).toBe(`Here you go: ${TOKEN}`);
    expect(findingsIn(path, data)).toEqual([
      { direction: 'output', message_index: null, rule_id: 'secret.github_token', label: 'GitHub token', severity: 'block', start: 13, end: 13 + TOKEN.length },
    ]);
  });

  it('counts a blocked node’s charged call in the workflow run’s tokens and credits, as the ledger does', async () => {
    // Regression: the run said 0 tokens and 0 credits while the ledger held the charge.
    await policy('off', 'block');
    harness.fake.setBehaviour({ content: `Here you go: ${TOKEN}`, usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
    const summary = await harness.core.bundles.importBundle(accountId, {
      workflows: [
        {
          key: 'pair',
          name: 'Two drafts',
          nodes: [
            { id: 'a', kind: 'model', prompt: 'Draft one' },
            { id: 'b', kind: 'model', prompt: 'Draft two' },
          ],
        },
      ],
    });
    const before = (await harness.store.credits.balance(accountId)).balanceTokens;
    const response = await harness.api<{ run_id: string; status: string; token_usage: { total_tokens: number }; node_results: Array<Record<string, unknown>> }>(
      'POST',
      `/workflows/${summary.ids['workflow:pair']}/execute`,
      { key, body: { include_trace: true } },
    );
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('failed');
    expect(harness.fake.requests).toHaveLength(2);
    expect(response.body.data.token_usage.total_tokens).toBe(50);
    // The blocked node names the model that answered (regression: null beside its tokens).
    const failedNode = response.body.data.node_results.find((node) => node.status === 'failed');
    expect(failedNode).toMatchObject({ model: expect.stringMatching(/\S/), token_usage: { total_tokens: 25 }, error: { code: 'CONTENT_BLOCKED' } });
    const charged = before - (await harness.store.credits.balance(accountId)).balanceTokens;
    expect(charged).toBeGreaterThan(0);
    const runView = await harness.api<{ credits_charged: number; token_usage: { total_tokens: number } }>('GET', `/runs/${response.body.data.run_id}`, { key });
    expect(runView.body.data.credits_charged).toBeCloseTo(charged / 1_000, 6);
    expect(runView.body.data.token_usage.total_tokens).toBe(50);
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

describe('guardrails on a text the scan could not read to its end', () => {
  const CODE_NAME_RULE = { rule_id: 'custom.code-names', label: 'Code name', severity: 'block', kind: 'keywords', keywords: ['bluebird'] };

  it('block refuses a term hidden behind a custom rule’s spent search budget, and nothing reaches the model', async () => {
    // Each "ébluebird" passes RE2's ASCII \b but fails the whole-word test: 2,001 of them spend
    // the rule's 2,000 searches before the real "bluebird" at the end (regression: a clean scan).
    await harness.core.sanitiser.addCustomRule(organisationId, CODE_NAME_RULE);
    await policy('block');
    const input = `${Array.from({ length: 2_001 }, () => 'ébluebird').join(' ')} bluebird`;
    const response = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input } });
    expect(response.status, describeResponse(response)).toBe(422);
    expect(response.body.error.code).toBe('CONTENT_BLOCKED');
    expect(response.body.error.message).toContain('could not be checked completely');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('redact refuses rather than send occurrences past a custom rule’s match cap', async () => {
    // Regression: 1,000 placeholders were sent, and the 100 occurrences past the cap in clear.
    await harness.core.sanitiser.addCustomRule(organisationId, CODE_NAME_RULE);
    await policy('redact');
    const input = Array.from({ length: 1_100 }, () => 'bluebird').join(' ');
    const response = await harness.api('POST', `/personas/${ids['persona:plain-editor']}/execute`, { key, body: { input } });
    expect(response.status, describeResponse(response)).toBe(422);
    expect(response.body.error.code).toBe('CONTENT_BLOCKED');
    expect(sentToUpstream()).not.toContain('bluebird');
  });

  it('redact hides the whole of a database URL whose host holds a custom keyword (regression: the password was sent)', async () => {
    await harness.core.sanitiser.addCustomRule(organisationId, { ...CODE_NAME_RULE, keywords: ['acme'] });
    await policy('redact');
    const input = 'Contact jane.doe@acme.com; db postgres://admin:S3cretPw9x@acme.internal/app';
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(sentToUpstream()).not.toMatch(/S3cretPw9x|jane\.doe|admin:/);
    expect(response.body.data.guardrail_findings?.map((finding) => finding.rule_id).sort()).toEqual([
      'custom.code-names',
      'custom.code-names',
      'pii.email',
      'secret.url_credentials',
    ]);
  });

  it('redact numbers placeholders across the messages of one call: one value, one placeholder (regression: two addresses read alike)', async () => {
    await policy('redact');
    const skill = await harness.core.lifecycle.create(null, 'skill', accountId, {
      name: 'Customer mail',
      description: '',
      category: 'support',
      instructions: 'VIP customers: {{customers}}. Never reply to eve@example.net.',
    });
    const response = await harness.api('POST', `/skills/${skill.id}/execute`, {
      key,
      body: { input: 'Reply to ada@example.com', variables: { customers: 'bob@example.org, ada@example.com' } },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    const sent = harness.fake.requests[0]?.body as { messages: Array<{ role: string; content: string }> } | undefined;
    expect(sent?.messages.map((message) => message.content)).toEqual(['VIP customers: [EMAIL_1], [EMAIL_2]. Never reply to [EMAIL_3].', 'Reply to [EMAIL_2]']);
  });

  it('report still answers, with the findings the scan listed', async () => {
    await harness.core.sanitiser.addCustomRule(organisationId, CODE_NAME_RULE);
    await policy('report');
    const input = Array.from({ length: 1_100 }, () => 'bluebird').join(' ');
    const response = await harness.api<OperationOutput<typeof executePersona>>('POST', `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.guardrail_findings).toHaveLength(1_000);
  });
});
