/**
 * The caller's compositions and personas as MCP prompts (rendered without calling a model) and
 * their context cards as MCP resources, with the same scopes and rate limit as REST.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, connectInMemory, type McpConnection } from '../helpers/mcp-client.js';
import { defined } from '../helpers/defined.js';

let harness: Harness;
let connections: McpConnection[];
beforeEach(async () => {
  harness = await createHarness();
  harness.clock.set(Date.UTC(2026, 5, 1, 12, 0, 10));
  connections = [];
});
afterEach(async () => {
  for (const connection of connections) await connection.close();
  await harness.close();
});

async function connect(key?: string): Promise<McpConnection> {
  const connection = await connectInMemory(harness, key === undefined ? {} : { key });
  connections.push(connection);
  return connection;
}

/** An Expert account with the demo catalog (a composition, a persona, cards) and a key. */
async function demoAccount(options: { scopes?: string[]; rpm?: number } = {}) {
  const account = await harness.expertWithKey(options);
  const ids = (await harness.core.bundles.importBundle(account.accountId, DEMO_BUNDLE)).ids;
  return { ...account, ids };
}

async function balanceTokens(accountId: string): Promise<number> {
  return (await harness.store.credits.balance(accountId)).balanceTokens;
}

describe('prompts', () => {
  it('lists each composition with its declared variables as arguments, and each persona', async () => {
    const { key } = await demoAccount();
    const { prompts } = await (await connect(key)).client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['persona-plain-english-editor', 'release-notes']);
    const notes = prompts.find((prompt) => prompt.name === 'release-notes');
    expect(notes?.title).toBe('Release notes');
    expect(notes?.arguments).toEqual([
      { name: 'product', description: 'Product name', required: true },
      { name: 'version', description: 'Version being released', required: true },
      { name: 'changes', description: 'The changes, one per line', required: true },
      { name: 'audience', description: 'Who reads the notes (default: developers)', required: false },
      // The composition's own `version` variable keeps its name; the version selector steps aside.
      { name: 'porch_version', description: 'Version to render: 1. Without porch_version or label: the newest (v1).', required: false },
      { name: 'label', description: 'Label to render: latest (v1).', required: false },
    ]);
    const persona = prompts.find((prompt) => prompt.name === 'persona-plain-english-editor');
    expect(persona?.arguments?.map((argument) => [argument.name, argument.required])).toEqual([
      ['input', true],
      ['context', false],
      ['version', false],
      ['label', false],
    ]);
  });

  it('renders a composition with its variables and defaults, without calling a model or spending credits', async () => {
    const { key, accountId } = await demoAccount();
    const before = await balanceTokens(accountId);
    const result = await (await connect(key)).client.getPrompt({
      name: 'release-notes',
      arguments: { product: 'Porch', version: '1.2', changes: '- MCP prompts' },
    });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write release notes for Porch version 1.2.\nAudience: developers.\nChanges:\n- MCP prompts' } },
    ]);
    expect(await balanceTokens(accountId)).toBe(before);
    expect(await harness.store.usage.listByAccount(accountId)).toEqual([]);
  });

  it('renders a persona: its system prompt first, then the input with the context after a blank line', async () => {
    const { key, accountId, ids } = await demoAccount();
    const persona = await harness.core.catalog.getPersona(accountId, defined(ids['persona:plain-editor'], 'the demo persona'));
    const result = await (await connect(key)).client.getPrompt({
      name: 'persona-plain-english-editor',
      arguments: { input: 'Leverage synergies.', context: 'For a newsletter.' },
    });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: persona.content } },
      { role: 'user', content: { type: 'text', text: 'Leverage synergies.\n\nFor a newsletter.' } },
    ]);
  });

  it('refuses a composition without its required variables with VALIDATION_ERROR naming them', async () => {
    const { key } = await demoAccount();
    await expect((await connect(key)).client.getPrompt({ name: 'release-notes', arguments: { product: 'Porch' } })).rejects.toThrow(
      /VALIDATION_ERROR: Missing required variables: version, changes/,
    );
  });

  it('answers an unknown prompt name with RESOURCE_NOT_FOUND', async () => {
    const { key } = await demoAccount();
    await expect((await connect(key)).client.getPrompt({ name: 'no-such-prompt' })).rejects.toThrow(/RESOURCE_NOT_FOUND: Prompt no-such-prompt was not found/);
  });

  it('gives two same-named compositions distinct names that keep pointing at their own composition', async () => {
    const { key, accountId, ids } = await demoAccount();
    const second = await harness.core.bundles.importBundle(accountId, {
      version: 1,
      compositions: [{ key: 'copy', name: 'Release notes', template: 'Second {{thing}}' }],
    });
    const { prompts } = await (await connect(key)).client.listPrompts();
    const names = prompts
      .map((prompt) => prompt.name)
      .filter((name) => name.startsWith('release-notes'))
      .sort();
    expect(names).toEqual(
      [
        `release-notes-${defined(ids['composition:release-notes'], 'the demo composition').slice(-8)}`,
        `release-notes-${defined(second.ids['composition:copy'], 'the copy').slice(-8)}`,
      ].sort(),
    );
  });

  it("gives a composition named like a persona's prompt a distinct name, and the persona keeps its own (regression: shadowed)", async () => {
    const { key, accountId } = await demoAccount();
    const persona = (await harness.core.catalog.allPersonas(accountId)).find((card) => card.title === 'Plain-English editor');
    const imposter = await harness.core.bundles.importBundle(accountId, {
      version: 1,
      compositions: [{ key: 'imposter', name: 'Persona Plain-English editor', template: 'COMPOSITION {{thing}}' }],
    });
    const client = (await connect(key)).client;
    const names = (await client.listPrompts()).prompts.map((prompt) => prompt.name).filter((name) => name.startsWith('persona-plain-english-editor'));
    expect(names.sort()).toEqual(
      [
        `persona-plain-english-editor-${defined(persona, 'the demo persona').id.slice(-8)}`,
        `persona-plain-english-editor-${defined(imposter.ids['composition:imposter'], 'the composition').slice(-8)}`,
      ].sort(),
    );
    const rendered = await client.getPrompt({
      name: `persona-plain-english-editor-${defined(persona, 'the demo persona').id.slice(-8)}`,
      arguments: { input: 'x' },
    });
    expect(JSON.stringify(rendered.messages)).not.toContain('COMPOSITION');
  });

  it('shows only the kinds the key may read: compositions with read:composition, nothing with api:context-cards', async () => {
    const { accountId } = await demoAccount();
    const compositionsOnly = await harness.createKey(accountId, { scopes: ['read:composition'] });
    expect((await (await connect(compositionsOnly.key)).client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['release-notes']);
    await expect((await connect(compositionsOnly.key)).client.getPrompt({ name: 'persona-plain-english-editor', arguments: { input: 'x' } })).rejects.toThrow(
      /RESOURCE_NOT_FOUND/,
    );

    const cardsOnly = await harness.createKey(accountId, { scopes: ['api:context-cards'] });
    expect((await (await connect(cardsOnly.key)).client.listPrompts()).prompts).toEqual([]);
    await expect((await connect(cardsOnly.key)).client.getPrompt({ name: 'release-notes' })).rejects.toThrow(/INSUFFICIENT_PERMISSIONS: .*read:composition/);
  });

  it('lists no prompts without a key, and refuses prompts/get with MISSING_API_KEY', async () => {
    await demoAccount();
    const anonymous = await connect();
    expect((await anonymous.client.listPrompts()).prompts).toEqual([]);
    await expect(anonymous.client.getPrompt({ name: 'release-notes' })).rejects.toThrow(/MISSING_API_KEY/);
  });

  it('follows the key of each HTTP request', async () => {
    const { key } = await demoAccount();
    const connection = await connectHttp(harness, { key });
    connections.push(connection);
    expect((await connection.client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('release-notes');
  });
});

describe('resources', () => {
  it("lists the caller's context cards at porch://context-cards/{id} and reads one's content", async () => {
    const { key, accountId } = await harness.expertWithKey();
    const card = await harness.core.contextCards.create(accountId, {
      title: 'Tone guide',
      content: 'Be warm and specific.',
      description: 'House style',
      emoji: '✍️',
    });
    const connection = await connect(key);
    const { resources } = await connection.client.listResources();
    expect(resources).toEqual([
      {
        uri: `porch://context-cards/${card.id}`,
        name: 'Tone guide',
        title: '✍️ Tone guide',
        description: 'House style',
        mimeType: 'text/plain',
        annotations: { lastModified: '2026-06-01T12:00:10.000Z' },
        _meta: { 'porch/version': 1, 'porch/updated_at': '2026-06-01T12:00:10.000Z' },
      },
    ]);
    const read = await connection.client.readResource({ uri: `porch://context-cards/${card.id}` });
    expect(read.contents).toEqual([
      {
        uri: `porch://context-cards/${card.id}`,
        mimeType: 'text/plain',
        text: 'Be warm and specific.',
        _meta: { 'porch/version': 1, 'porch/updated_at': '2026-06-01T12:00:10.000Z' },
      },
    ]);
    expect((await connection.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['porch://context-cards/{id}']);
  });

  it("answers another account's card exactly like a missing one, with MCP's resource-not-found code", async () => {
    const owner = await harness.createAccount();
    const card = await harness.core.contextCards.create(owner.accountId, { title: 'Private', content: 'secret plans' });
    const { key } = await harness.expertWithKey();
    const connection = await connect(key);
    const foreign = connection.client.readResource({ uri: `porch://context-cards/${card.id}` });
    await expect(foreign).rejects.toMatchObject({ code: -32602, data: { code: 'RESOURCE_NOT_FOUND' } });
    await expect(foreign).rejects.toThrow(/RESOURCE_NOT_FOUND: Context card .* was not found/);
    await expect(connection.client.readResource({ uri: 'porch://context-cards/0190a4b0-0000-7000-8000-000000000000' })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'RESOURCE_NOT_FOUND' },
    });
    // An address whose id is no card id names no resource; the refusal names the uri the client sent,
    // not get_context_card's `id` (regression: "id: must be a uuid").
    const malformed = connection.client.readResource({ uri: 'porch://context-cards/not-a-uuid' });
    await expect(malformed).rejects.toMatchObject({ code: -32602, data: { code: 'RESOURCE_NOT_FOUND', uri: 'porch://context-cards/not-a-uuid' } });
    await expect(malformed).rejects.toThrow(/RESOURCE_NOT_FOUND: No context card at porch:\/\/context-cards\/not-a-uuid: a card's address ends with its id/);
    await expect(connection.client.readResource({ uri: 'https://example.com/' })).rejects.toMatchObject({ code: -32602, data: { code: 'RESOURCE_NOT_FOUND' } });
  });

  it('lists nothing without a key or without a card scope, and refuses reads with the REST refusals', async () => {
    const { accountId } = await harness.createAccount();
    const card = await harness.core.contextCards.create(accountId, { title: 'T', content: 'C' });
    const anonymous = await connect();
    expect((await anonymous.client.listResources()).resources).toEqual([]);
    expect((await anonymous.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(anonymous.client.readResource({ uri: `porch://context-cards/${card.id}` })).rejects.toThrow(/MISSING_API_KEY/);

    const { key } = await harness.createKey(accountId, { scopes: ['api:judge'] });
    const judgeOnly = await connect(key);
    expect((await judgeOnly.client.listResources()).resources).toEqual([]);
    await expect(judgeOnly.client.readResource({ uri: `porch://context-cards/${card.id}` })).rejects.toThrow(/INSUFFICIENT_PERMISSIONS: .*api:context-cards/);
  });
});

describe('rate limit', () => {
  it('counts prompts and resource requests against the key, like REST requests', async () => {
    const { key, accountId } = await demoAccount({ rpm: 3 });
    const card = await harness.core.contextCards.create(accountId, { title: 'T', content: 'C' });
    const connection = await connect(key);
    await connection.client.listPrompts();
    await connection.client.readResource({ uri: `porch://context-cards/${card.id}` });
    expect((await harness.api('GET', '/context-cards', { key })).headers.get('x-ratelimit-remaining')).toBe('0');
    await expect(connection.client.getPrompt({ name: 'release-notes', arguments: { product: 'P', version: '1', changes: 'c' } })).rejects.toThrow(
      /RATE_LIMITED: .*Retry after 50 seconds/,
    );
    await expect(connection.client.listResources()).rejects.toThrow(/RATE_LIMITED/);
  });
});
