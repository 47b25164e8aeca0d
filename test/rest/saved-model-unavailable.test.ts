/**
 * A resource saved with a model this server does not offer (its provider removed, or this process
 * started without the provider's key): executing it is refused with 400 naming the saved model,
 * before any tokens are spent, never answered by the default model (regression: a second
 * `porch serve` on the same database without the provider's key answered with echo/echo, charged).
 * Two servers over one SQLite file: one with provider `fake` authors, one with echo only executes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectInMemory, resultText } from '../helpers/mcp-client.js';
import { createProviderHarness } from '../helpers/provider-harness.js';

const SAVED_MODEL = 'fake/fast';
const ASYNC = { prefer: 'respond-async' };

let folder: string;
let serving: Harness | undefined;
let key: string;
let accountId: string;
let ids: { composition: string; skill: string; workflow: string };

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'porch-saved-model-'));
  const databaseUrl = `file:${join(folder, 'porch.db')}`;
  const authoring = await createProviderHarness({ env: { DATABASE_URL: databaseUrl } });
  try {
    ({ key, accountId } = await authoring.expertWithKey());
    const create = async (path: string, body: object): Promise<string> => {
      const created = await authoring.api<{ id: string }>('POST', path, { key, body });
      expect(created.status, describeResponse(created)).toBe(201);
      return created.body.data.id;
    };
    const composition = await create('/compositions', { name: 'Pinned model', template: 'Say {{x}}', model: SAVED_MODEL });
    const skill = await create('/skills', { name: 'Pinned skill', instructions: 'Answer briefly.', model: SAVED_MODEL });
    const workflow = await create('/workflows', {
      name: 'Pinned workflow',
      nodes: [{ id: 'say', kind: 'composition', composition, variables: { x: 'hi' } }],
    });
    ids = { composition, skill, workflow };
  } finally {
    await authoring.close();
  }
  // The same database, served without the provider: only echo/echo, the default model, is offered.
  serving = await createHarness({ env: { DATABASE_URL: databaseUrl } });
});

afterEach(async () => {
  await serving?.close();
  serving = undefined;
  await rm(folder, { recursive: true, force: true });
});

function server(): Harness {
  if (serving === undefined) throw new Error('the serving harness is not running');
  return serving;
}

/** What the account was charged and what it ran: unchanged by a refusal. */
async function ledger() {
  return { balance: await server().store.credits.balance(accountId), usage: (await server().store.usage.listByAccount(accountId)).length };
}

function expectSavedModelRefusal(message: string): void {
  expect(message).toContain(`Unknown model "${SAVED_MODEL}": it is the resource's saved model`);
  expect(message).toContain("Configure its provider on the server, change the resource's model");
  expect(message).toContain('Available models: echo/echo.');
}

describe('a resource whose saved model this server does not offer', () => {
  it('is refused with 400 naming its saved model, never run on the default model (regression: answered by echo/echo and charged)', async () => {
    const before = await ledger();
    for (const [path, body] of [
      [`/compositions/${ids.composition}/execute`, { variables: { x: 'hi' } }],
      [`/skills/${ids.skill}/execute`, { input: 'hi' }],
    ] as const) {
      const refused = await server().api('POST', path, { key, body });
      expect(refused.status, `${path}: ${describeResponse(refused)}`).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
      expectSavedModelRefusal(refused.body.error.message);
    }
    expect(await ledger(), 'nothing charged, nothing recorded').toEqual(before);
  });

  it("runs on a model the request names, which wins over the resource's", async () => {
    const answered = await server().api<{ model_used: string }>('POST', `/compositions/${ids.composition}/execute`, {
      key,
      body: { variables: { x: 'hi' }, model: 'echo/echo' },
    });
    expect(answered.status, describeResponse(answered)).toBe(200);
    expect(answered.body.data.model_used).toBe('echo/echo');
  });

  it('refuses to queue it (Prefer: respond-async) at once, queueing nothing', async () => {
    const refused = await server().api('POST', `/compositions/${ids.composition}/execute`, { key, body: { variables: { x: 'hi' } }, headers: ASYNC });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expectSavedModelRefusal(refused.body.error.message);
    expect((await server().api<{ count: number }>('GET', '/runs', { key })).body.data.count).toBe(0);
  });

  it('fails a workflow node that runs it, naming the model, without calling the default model', async () => {
    const before = await ledger();
    const response = await server().api<{
      status: string;
      node_results: Array<{ node_id: string; status: string; model: string | null; error?: { code: string; message: string } }>;
    }>('POST', `/workflows/${ids.workflow}/execute`, { key, body: { include_trace: true } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('failed');
    const [node] = response.body.data.node_results;
    expect(node).toMatchObject({ node_id: 'say', status: 'failed', model: null, error: { code: 'VALIDATION_ERROR' } });
    expectSavedModelRefusal(node?.error?.message ?? '');
    expect(node?.error?.message).toContain('field "nodes.say.model"');
    expect((await ledger()).balance).toEqual(before.balance);
  });

  it('is refused over MCP as over REST (a stdio server started without the provider key)', async () => {
    const connection = await connectInMemory(server(), { key });
    try {
      const result = await connection.client.callTool({ name: 'execute_composition', arguments: { id: ids.composition, variables: { x: 'hi' } } });
      expect(result.isError, resultText(result)).toBe(true);
      expect(resultText(result)).toMatch(/^VALIDATION_ERROR: /);
      expectSavedModelRefusal(resultText(result));
    } finally {
      await connection.close();
    }
  });
});
