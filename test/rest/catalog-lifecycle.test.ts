/**
 * The catalog lifecycle end to end (issue: create, update, version, label, roll back, delete),
 * over REST and over MCP (HTTP), with the echo model: the executed version is the one each step
 * names, usage records name it too, and concurrent updates each get their own version.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp, resultText } from '../helpers/mcp-client.js';

interface Detail {
  id: string;
  version: number;
  labels: Record<string, number>;
  template?: string;
  name: string;
}

let harness: Harness;
let key: string;
let accountId: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

/** One step of the walk, done through one door. */
interface Door {
  call<Data>(operation: string, method: string, path: string, body?: unknown): Promise<{ ok: boolean; data: Data; error: string }>;
}

const rest = (): Door => ({
  async call<Data>(_operation: string, method: string, path: string, body?: unknown) {
    const response = await harness.api<Data>(method, path, { key, ...(body === undefined ? {} : { body }) });
    const ok = response.status < 300;
    // A 204 (a delete) has no body.
    const data = (ok && response.status !== 204 ? response.body.data : undefined) as Data;
    return { ok, data, error: ok ? '' : `${response.body.error.code}: ${response.body.error.message}` };
  },
});

async function mcp(): Promise<Door & { close(): Promise<void> }> {
  const connection = await connectHttp(harness, { key });
  return {
    close: connection.close,
    async call<Data>(operation: string, _method: string, path: string, body?: unknown) {
      // The tool's arguments are the path's ids and the body's fields, as the REST route takes them.
      const [, , id, , tail] = path.split('/');
      const args: Record<string, unknown> = { ...(id ? { id } : {}), ...(body as object) };
      if (operation.startsWith('remove_')) args.label = tail;
      const result = (await connection.client.callTool({ name: operation, arguments: args })) as CallToolResult;
      // Data arrives as structured content (a delete has none: it answers with a sentence).
      return { ok: !result.isError, data: result.structuredContent as Data, error: result.isError ? resultText(result) : '' };
    },
  };
}

async function walk(door: Door) {
  const created = await door.call<Detail>('create_composition', 'POST', '/compositions', { name: 'Greeting', template: 'v1: hello {{name}}' });
  expect(created.ok, created.error).toBe(true);
  const id = created.data.id;
  expect(created.data).toMatchObject({ version: 1, labels: { latest: 1 }, template: 'v1: hello {{name}}' });

  for (const template of ['v2: hello {{name}}', 'v3: hello {{name}}']) {
    const updated = await door.call<Detail>('update_composition', 'PATCH', `/compositions/${id}`, { template });
    expect(updated.ok, updated.error).toBe(true);
  }
  const labelled = await door.call<{ labels: Record<string, number> }>('set_composition_label', 'POST', `/compositions/${id}/labels`, {
    label: 'production',
    version: 2,
  });
  expect(labelled.data.labels).toEqual({ latest: 3, production: 2 });

  const execute = async (extra: object = {}) => {
    const result = await door.call<{ version: number; content: string }>('execute_composition', 'POST', `/compositions/${id}/execute`, {
      variables: { name: 'Ada' },
      ...extra,
    });
    expect(result.ok, result.error).toBe(true);
    return result.data;
  };
  expect(await execute()).toMatchObject({ version: 2, content: 'v2: hello Ada' });

  await door.call('set_composition_label', 'POST', `/compositions/${id}/labels`, { label: 'production', version: 1 });
  expect(await execute()).toMatchObject({ version: 1, content: 'v1: hello Ada' });
  expect(await execute({ label: 'latest' })).toMatchObject({ version: 3, content: 'v3: hello Ada' });
  expect(await execute({ version: 2 })).toMatchObject({ version: 2 });

  const versions = await door.call<{ items: Array<{ version: number; labels: string[] }> }>('list_composition_versions', 'GET', `/compositions/${id}/versions`);
  expect(versions.data.items).toEqual([
    expect.objectContaining({ version: 3, labels: [] }),
    expect.objectContaining({ version: 2, labels: [] }),
    expect.objectContaining({ version: 1, labels: ['production'] }),
  ]);

  const deleted = await door.call('delete_composition', 'DELETE', `/compositions/${id}`);
  expect(deleted.ok, deleted.error).toBe(true);
  const gone = await door.call('execute_composition', 'POST', `/compositions/${id}/execute`, { variables: { name: 'Ada' } });
  expect(gone.error).toMatch(/^RESOURCE_NOT_FOUND/);

  const usage = await harness.store.usage.listByAccount(accountId);
  expect(usage.filter((row) => row.resourceId === id).map((row) => row.resourceVersion)).toEqual([2, 1, 3, 2]);
}

describe('the catalog lifecycle', () => {
  it('creates, updates twice, labels, rolls back, executes by label and version, and deletes, over REST', async () => {
    await walk(rest());
  });

  it('does the same over MCP', async () => {
    const door = await mcp();
    try {
      await walk(door);
    } finally {
      await door.close();
    }
  });

  it('refuses unknown versions and labels, naming the ones there are', async () => {
    const created = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'C', template: 'Hi' } });
    const id = created.body.data.id;
    const single = await harness.api('POST', `/compositions/${id}/execute`, { key, body: { version: 2 } });
    expect(single.body.error.message).toMatch(/no version 2; its only version is 1\.$/);
    await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: 'Hi again' } });

    const noVersion = await harness.api('POST', `/compositions/${id}/execute`, { key, body: { version: 7 } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.error.message).toMatch(/no version 7; its versions are 1 to 2/);
    const noLabel = await harness.api('POST', `/compositions/${id}/execute`, { key, body: { label: 'staging' } });
    expect(noLabel.status).toBe(400);
    expect(noLabel.body.error.message).toContain('its labels are latest (version 2)');
    const labelMissing = await harness.api('POST', `/compositions/${id}/labels`, { key, body: { label: 'production', version: 9 } });
    expect(labelMissing.status, describeResponse(labelMissing)).toBe(400);
    expect(labelMissing.body.error.message).toMatch(/no version 9; its versions are 1 to 2/);
    const latest = await harness.api('POST', `/compositions/${id}/labels`, { key, body: { label: 'latest', version: 1 } });
    expect(latest.status).toBe(400);
    // Named where it was sent, as every other refusal is (regression: "label: ..." alone).
    expect(latest.body.error.message).toBe('Invalid request: body.label: "latest" always names the newest version and cannot be set or removed.');
    const removeLatest = await harness.api('DELETE', `/compositions/${id}/labels/latest`, { key });
    expect(removeLatest.body.error.message).toBe('Invalid request: path.label: "latest" always names the newest version and cannot be set or removed.');
    // Regression: both said "must be a whole number".
    for (const [limit, message] of [
      ['0', 'query.limit: must be at least 1'],
      ['501', 'query.limit: must be at most 500'],
    ]) {
      const page = await harness.api('GET', `/compositions/${id}/versions?limit=${limit}`, { key });
      expect(page.status).toBe(400);
      expect(page.body.error.message).toContain(message);
    }
  });

  it('finds a resource by its id written in upper case (regression: 404)', async () => {
    const created = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'C', template: 'Hi' } });
    const upper = created.body.data.id.toUpperCase();
    const found = await harness.api<Detail>('GET', `/compositions/${upper}`, { key });
    expect(found.status, describeResponse(found)).toBe(200);
    expect(found.body.data.id).toBe(created.body.data.id);
    expect((await harness.api('GET', `/compositions/${upper}/versions/1`, { key })).status).toBe(200);
  });

  it('drops a placeholder the new template no longer uses when a PATCH leaves out variables (regression: it stayed required)', async () => {
    const created = await harness.api<Detail & { variables: unknown[] }>('POST', '/compositions', {
      key,
      body: { name: 'Greeting', template: 'Hello {{name}}', variables: [{ name: 'tone', required: false, description: 'How formal' }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const updated = await harness.api<Detail & { variables: unknown[] }>('PATCH', `/compositions/${created.body.data.id}`, {
      key,
      body: { template: 'Hello {{who}}' },
    });
    expect(updated.status, describeResponse(updated)).toBe(200);
    expect(updated.body.data.variables).toEqual([
      { name: 'tone', required: false, description: 'How formal' },
      { name: 'who', required: true },
    ]);
    const executed = await harness.api('POST', `/compositions/${created.body.data.id}/execute`, { key, body: { variables: { who: 'Ada' } } });
    expect(executed.status, describeResponse(executed)).toBe(200);
  });

  it('updates a workflow whose step names a deleted skill, leaving that step as it is (regression: every change refused)', async () => {
    const skill = await harness.api<Detail>('POST', '/skills', { key, body: { name: 'Gone soon', instructions: 'Do it.' } });
    const workflow = await harness.api<Detail>('POST', '/workflows', {
      key,
      body: { name: 'Uses it', nodes: [{ id: 's', kind: 'skill', skill: skill.body.data.id, input: 'hi' }] },
    });
    expect(workflow.status, describeResponse(workflow)).toBe(201);
    expect((await harness.api('DELETE', `/skills/${skill.body.data.id}`, { key })).status).toBe(204);
    const described = await harness.api<Detail>('PATCH', `/workflows/${workflow.body.data.id}`, { key, body: { description: 'New words' } });
    expect(described.status, describeResponse(described)).toBe(200);
    // A new reference to something that does not exist is still refused.
    const moved = await harness.api('PATCH', `/workflows/${workflow.body.data.id}`, {
      key,
      body: { nodes: [{ id: 's', kind: 'composition', composition: skill.body.data.id }] },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toContain('nodes[0].composition');
  });

  it("gives a workflow whose nodes a PATCH replaces the new nodes' default outputs (regression: refused for outputs never written)", async () => {
    const created = await harness.api<Detail & { outputs: Record<string, string> }>('POST', '/workflows', {
      key,
      body: { name: 'Steps', nodes: [{ id: 'a', kind: 'template', template: 'A' }] },
    });
    expect(created.body.data.outputs).toEqual({ a: 'a' });
    const replaced = await harness.api<Detail & { outputs: Record<string, string> }>('PATCH', `/workflows/${created.body.data.id}`, {
      key,
      body: { nodes: [{ id: 'b', kind: 'template', template: 'B' }] },
    });
    expect(replaced.status, describeResponse(replaced)).toBe(200);
    expect(replaced.body.data.outputs).toEqual({ b: 'b' });
    // Outputs the caller chose stay, and are checked against the new nodes.
    const chosen = await harness.api('PATCH', `/workflows/${created.body.data.id}`, {
      key,
      body: {
        nodes: [
          { id: 'b', kind: 'template', template: 'B' },
          { id: 'c', kind: 'template', template: '{{b}}' },
        ],
        outputs: { first: 'b' },
      },
    });
    expect(chosen.status, describeResponse(chosen)).toBe(200);
    const again = await harness.api('PATCH', `/workflows/${created.body.data.id}`, { key, body: { nodes: [{ id: 'c', kind: 'template', template: 'C' }] } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain('outputs.first');
  });

  it('answers 404 to an update of a deleted resource', async () => {
    const created = await harness.api<Detail>('POST', '/skills', { key, body: { name: 'S', instructions: 'Do.' } });
    const id = created.body.data.id;
    expect((await harness.api('DELETE', `/skills/${id}`, { key })).status).toBe(204);
    const update = await harness.api('PATCH', `/skills/${id}`, { key, body: { instructions: 'Do more.' } });
    expect(update.status).toBe(404);
    expect(update.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('lands an update sent with expected_version only on that version: a stale one is 409 and writes nothing', async () => {
    const created = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'C', template: 'One.' } });
    const id = created.body.data.id;
    const fromOne = await harness.api<Detail>('PATCH', `/compositions/${id}`, { key, body: { template: 'Two.', expected_version: 1 } });
    expect(fromOne.status, describeResponse(fromOne)).toBe(200);
    expect(fromOne.body.data).toMatchObject({ version: 2, template: 'Two.' });

    const stale = await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: 'Made from one.', expected_version: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'CONFLICT',
      message: `Composition ${id} is at version 2, not 1 (expected_version): it was changed since you read it. Read it again and apply your change to version 2.`,
    });
    const ahead = await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: 'Too soon.', expected_version: 3 } });
    expect(ahead.status).toBe(409);
    expect(ahead.body.error.message).toBe(`Composition ${id} is at version 2; version 3 (expected_version) does not exist yet.`);
    const newest = await harness.api<Detail>('GET', `/compositions/${id}`, { key });
    expect(newest.body.data).toMatchObject({ version: 2, template: 'Two.' });

    // It is not a change: sent alone, the update is refused as empty; malformed, it is named.
    const alone = await harness.api('PATCH', `/compositions/${id}`, { key, body: { expected_version: 2 } });
    expect(alone.status).toBe(400);
    expect(alone.body.error.message).toContain('send at least one field to change');
    const malformed = await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: 'x', expected_version: 1.5 } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain('expected_version');

    // Of concurrent updates made from one version, exactly one lands.
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        harness.api<Detail>('PATCH', `/compositions/${id}`, { key, body: { template: `Race ${index}.`, expected_version: 2 } }),
      ),
    );
    expect(racing.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const versions = await harness.api<{ items: unknown[] }>('GET', `/compositions/${id}/versions`, { key });
    expect(versions.body.data.items).toHaveLength(3);
  });

  it("names a persona's key taken by a context card as such: they share one key space (regression: 'another persona')", async () => {
    await harness.core.bundles.importBundle(accountId, { context_cards: [{ key: 'refund-policy', title: 'Refunds', content: 'Within 30 days.' }] });
    const taken = await harness.api('POST', '/personas', { key, body: { key: 'refund-policy', name: 'Refunder', content: 'Speak as support.' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toBe('key: another persona or context card of this account already has the key "refund-policy".');
  });

  it('gives each of many concurrent updates its own version, losing none', async () => {
    const created = await harness.api<Detail>('POST', '/personas', { key, body: { name: 'P', content: 'start' } });
    const id = created.body.data.id;
    const updates = await Promise.all(
      Array.from({ length: 12 }, (_, index) => harness.api<Detail>('PATCH', `/personas/${id}`, { key, body: { content: `edit ${index}` } })),
    );
    expect(updates.map((response) => response.status)).toEqual(Array(12).fill(200));
    const numbers = updates.map((response) => response.body.data.version).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, index) => index + 2));
    const versions = await harness.api<{ items: Array<{ version: number }> }>('GET', `/personas/${id}/versions`, { key });
    expect(versions.body.data.items).toHaveLength(13);
    // Each version holds the edit that made it.
    for (const response of updates) {
      const version = await harness.api<{ definition: { content: string } }>('GET', `/personas/${id}/versions/${response.body.data.version}`, { key });
      expect(version.body.data.definition.content).toBe((response.body.data as unknown as { content: string }).content);
    }
  });

  it('checks a workflow definition as import does: a cycle and an unknown reference are refused with their paths', async () => {
    const skill = await harness.api<Detail>('POST', '/skills', { key, body: { name: 'Tidy', instructions: 'Tidy the text.', key: 'tidy' } });
    const cycle = await harness.api('POST', '/workflows', {
      key,
      body: {
        name: 'Loop',
        nodes: [
          { id: 'a', kind: 'template', template: '{{b}}' },
          { id: 'b', kind: 'template', template: '{{a}}' },
        ],
      },
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.message).toMatch(/cycle/);
    const unknown = await harness.api('POST', '/workflows', {
      key,
      body: { name: 'Ref', nodes: [{ id: 'a', kind: 'skill', skill: 'nope', input: 'x' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('nodes[0].skill');
    // A node may name the skill by its key or by its id.
    for (const ref of ['tidy', skill.body.data.id]) {
      const created = await harness.api<{ nodes: Array<{ skill?: string }> }>('POST', '/workflows', {
        key,
        body: { name: `By ${ref}`, nodes: [{ id: 'a', kind: 'skill', skill: ref, input: 'x' }] },
      });
      expect(created.status, describeResponse(created)).toBe(201);
      expect(created.body.data.nodes[0]?.skill).toBe(skill.body.data.id);
    }
    const cyclicUpdate = await harness.api(
      'PATCH',
      `/workflows/${(await harness.api<Detail>('POST', '/workflows', { key, body: { name: 'W', nodes: [{ id: 'a', kind: 'template', template: 'x' }] } })).body.data.id}`,
      {
        key,
        body: { nodes: [{ id: 'a', kind: 'template', template: '{{a}}' }] },
      },
    );
    expect(cyclicUpdate.status).toBe(400);
    expect(cyclicUpdate.body.error.message).toMatch(/dependency cycle a -> a/);
  });

  it('refuses an unknown model at create and update, never falling back to the default', async () => {
    const refused = await harness.api('POST', '/skills', { key, body: { name: 'S', instructions: 'Do.', model: 'nope/model' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/model: unknown model "nope\/model"/);
  });

  it('removes an optional field sent as null (merge patch): a composition back on the server default model; a required one is refused', async () => {
    const created = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'C', template: 'Hi {{who}}', model: 'echo/echo' } });
    expect(created.status, describeResponse(created)).toBe(201);
    const id = created.body.data.id;
    const cleared = await harness.api<Detail>('PATCH', `/compositions/${id}`, { key, body: { model: null } });
    expect(cleared.status, describeResponse(cleared)).toBe(200);
    expect(cleared.body.data).toMatchObject({ version: 2, template: 'Hi {{who}}' });
    expect(cleared.body.data, 'no model of its own: the server default').not.toHaveProperty('model');
    expect((await harness.api<{ definition: Detail }>('GET', `/compositions/${id}/versions/1`, { key })).body.data.definition).toMatchObject({
      model: 'echo/echo',
    });
    const required = await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: null } });
    expect(required.status).toBe(400);
    expect(required.body.error.message).toMatch(/body\.template/);
  });

  it('sets a field with a default back to it when sent as null, on every kind (regression: 400 "received null")', async () => {
    const cases = [
      {
        path: '/compositions',
        body: { name: 'C', template: 'Hi', description: 'd', tags: ['t'] },
        cleared: { description: null, tags: null, variables: null },
        defaults: { description: '', tags: [], variables: [] },
      },
      {
        path: '/skills',
        body: { name: 'S', instructions: 'Do.', description: 'd', category: 'c' },
        cleared: { description: null, category: null },
        defaults: { description: '', category: 'general' },
      },
      {
        path: '/personas',
        body: { name: 'P', content: 'Be.', description: 'd', tags: ['t'] },
        cleared: { description: null, tags: null },
        defaults: { description: '', tags: [] },
      },
      {
        path: '/workflows',
        body: { name: 'W', description: 'd', category: 'c', variables: [{ name: 'x' }], nodes: [{ id: 'n', kind: 'template', template: 'hi' }] },
        cleared: { description: null, category: null, variables: null },
        defaults: { description: '', variables: [] },
      },
    ];
    for (const { path, body, cleared, defaults } of cases) {
      const created = await harness.api<Detail>('POST', path, { key, body });
      expect(created.status, describeResponse(created)).toBe(201);
      const patched = await harness.api<Record<string, unknown>>('PATCH', `${path}/${created.body.data.id}`, { key, body: cleared });
      expect(patched.status, `${path} ${describeResponse(patched)}`).toBe(200);
      expect(patched.body.data, path).toMatchObject({ version: 2, ...defaults });
      expect(patched.body.data.category, path).not.toBe('c');
    }
  });

  it('needs the write scope: a key with only the execute and read scopes cannot create or label', async () => {
    const { key: readOnly } = await harness.createKey(accountId, { scopes: ['read:composition', 'execute:composition'] });
    const refused = await harness.api('POST', '/compositions', { key: readOnly, body: { name: 'C', template: 'Hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('write:composition');
    const { key: defaults } = await harness.createKey(accountId);
    expect((await harness.api('POST', '/compositions', { key: defaults, body: { name: 'C', template: 'Hi' } })).status, 'not in the defaults').toBe(403);
  });

  it('lets the demo key a fresh install prints try the lifecycle: it holds the write scopes, asked for by name', async () => {
    const demo = await harness.core.demo.createDemo();
    const compositions = await harness.api<{ items: Array<{ id: string }> }>('GET', '/compositions', { key: demo.key });
    const id = compositions.body.data.items[0]?.id ?? '';
    const updated = await harness.api<Detail>('PATCH', `/compositions/${id}`, { key: demo.key, body: { description: 'Edited.' } });
    expect(updated.status, describeResponse(updated)).toBe(200);
    expect(updated.body.data.version).toBe(2);
  });

  it("keeps a deleted resource's versions for the audit trail until retention.run_days, then prunes them", async () => {
    const created = await harness.api<Detail>('POST', '/skills', { key, body: { name: 'Gone', instructions: 'v1' } });
    const id = created.body.data.id;
    await harness.api('PATCH', `/skills/${id}`, { key, body: { instructions: 'v2' } });
    await harness.api('DELETE', `/skills/${id}`, { key });
    const kept = await harness.store.catalog.listVersions({ accountId, id, page: {} });
    expect(kept.map((version) => version.version)).toEqual([2, 1]);
    harness.clock.advance(30 * 24 * 60 * 60 * 1000 - 1);
    expect((await harness.core.maintenance.sweep()).prunedDeletedVersions).toBe(0);
    harness.clock.advance(1);
    expect((await harness.core.maintenance.sweep()).prunedDeletedVersions).toBe(2);
    expect(await harness.store.catalog.listVersions({ accountId, id, page: {} })).toEqual([]);
  });

  it('names the version that ran in the run record', async () => {
    const created = await harness.api<Detail>('POST', '/personas', { key, body: { name: 'P', content: 'v1' } });
    const id = created.body.data.id;
    await harness.api('PATCH', `/personas/${id}`, { key, body: { content: 'v2' } });
    await harness.api('POST', `/personas/${id}/execute`, { key, body: { input: 'hi', version: 1 } });
    const runs = await harness.api<{ items: Array<{ resource_id: string; version: number }> }>('GET', '/runs', { key });
    expect(runs.body.data.items[0]).toMatchObject({ resource_id: id, version: 1 });
  });

  it("names in a workflow's trace the version each node's resource ran, a failed node's too (regression: absent)", async () => {
    const composition = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'C', template: 'One {{x}}.' } });
    const id = composition.body.data.id;
    await harness.api('PATCH', `/compositions/${id}`, { key, body: { template: 'Two {{x}} {{y}}.' } });
    const strict = await harness.api<Detail>('POST', '/compositions', { key, body: { name: 'Needs y', template: 'Needs {{y}}.' } });
    const workflow = await harness.api<Detail>('POST', '/workflows', {
      key,
      body: {
        name: 'Versions',
        nodes: [
          { id: 'pinned', kind: 'composition', composition: id, variables: { x: 'a' } },
          { id: 'failing', kind: 'composition', composition: strict.body.data.id, variables: { x: '{{pinned}}' } },
        ],
      },
    });
    expect(workflow.status, describeResponse(workflow)).toBe(201);
    // Production names version 1: that is what a node runs, not the newest.
    await harness.api('POST', `/compositions/${id}/labels`, { key, body: { label: 'production', version: 1 } });
    const run = await harness.api<{ status: string; node_results: Array<{ node_id: string; status: string; resource?: unknown }> }>(
      'POST',
      `/workflows/${workflow.body.data.id}/execute`,
      { key, body: { include_trace: true } },
    );
    expect(run.status, describeResponse(run)).toBe(200);
    expect(run.body.data.status).toBe('failed');
    expect(run.body.data.node_results.map(({ node_id, status, resource }) => ({ node_id, status, resource }))).toEqual([
      { node_id: 'pinned', status: 'completed', resource: { id, version: 1 } },
      { node_id: 'failing', status: 'failed', resource: { id: strict.body.data.id, version: 1 } },
    ]);
  });
});
