/**
 * The catalog lifecycle over MCP: prompts render what an execute runs by default (`production`,
 * else the newest) and take `version` / `label`; completions offer a prompt's labels and version
 * numbers and the caller's card ids; card resources carry their version. Every guarantee holds
 * in process and over HTTP in both protocol eras.
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

const TRANSPORTS = ['in-memory', 'http (2025 revisions)', 'http (2026-07-28)'] as const;
type Transport = (typeof TRANSPORTS)[number];

async function connect(transport: Transport, key?: string): Promise<McpConnection> {
  const keyed = key === undefined ? {} : { key };
  const connection =
    transport === 'in-memory'
      ? await connectInMemory(harness, keyed)
      : await connectHttp(harness, { ...keyed, era: transport === 'http (2026-07-28)' ? 'modern' : 'legacy' });
  connections.push(connection);
  return connection;
}

/** A composition `greeting` with three versions ("Say one." to "Say three."), production on 2 and staging on 3. */
async function versionedAccount(options: { scopes?: string[]; rpm?: number; production?: boolean } = {}) {
  const account = await harness.expertWithKey({ ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.rpm ? { rpm: options.rpm } : {}) });
  const { ids } = await harness.core.bundles.importBundle(account.accountId, {
    version: 1,
    compositions: [{ key: 'greeting', name: 'Greeting', template: 'Say one.' }],
  });
  const id = defined(ids['composition:greeting'], 'the greeting');
  await harness.core.lifecycle.update(null, 'composition', account.accountId, id, { template: 'Say two.' });
  await harness.core.lifecycle.update(null, 'composition', account.accountId, id, { template: 'Say three.' });
  if (options.production !== false) await harness.core.lifecycle.setLabel('composition', account.accountId, id, 'production', 2);
  await harness.core.lifecycle.setLabel('composition', account.accountId, id, 'staging', 3);
  return { ...account, id };
}

async function rendered(connection: McpConnection, args: Record<string, string> = {}): Promise<string> {
  const result = await connection.client.getPrompt({ name: 'greeting', arguments: args });
  const content = defined(result.messages[0], 'a message').content;
  return content.type === 'text' ? content.text : '';
}

describe.each(TRANSPORTS)('prompt versions and labels (%s)', (transport) => {
  it('renders the production version by default, and the version or label the arguments name', async () => {
    const { key } = await versionedAccount();
    const connection = await connect(transport, key);
    expect(await rendered(connection)).toBe('Say two.');
    expect(await rendered(connection, { label: 'staging' })).toBe('Say three.');
    expect(await rendered(connection, { label: 'latest' })).toBe('Say three.');
    expect(await rendered(connection, { version: '1' })).toBe('Say one.');
    // Clients fill optional arguments they were not given with "": that is no selector.
    expect(await rendered(connection, { version: '', label: '' })).toBe('Say two.');
  });

  it('refuses an unknown label or version with the executes’ error, naming the ones that exist', async () => {
    const { key, id } = await versionedAccount();
    const connection = await connect(transport, key);
    const unknownLabel = connection.client.getPrompt({ name: 'greeting', arguments: { label: 'canary' } });
    await expect(unknownLabel).rejects.toMatchObject({ code: -32602, data: { code: 'VALIDATION_ERROR' } });
    await expect(unknownLabel).rejects.toThrow(
      `VALIDATION_ERROR: label: Composition ${id} has no label "canary"; its labels are latest (version 3), production (version 2), staging (version 3).`,
    );
    await expect(connection.client.getPrompt({ name: 'greeting', arguments: { version: '9' } })).rejects.toThrow(
      `version: Composition ${id} has no version 9; its versions are 1 to 3.`,
    );
    await expect(connection.client.getPrompt({ name: 'greeting', arguments: { version: 'two' } })).rejects.toThrow(
      /VALIDATION_ERROR: .*version: must be a version number/,
    );
    await expect(connection.client.getPrompt({ name: 'greeting', arguments: { version: '1', label: 'staging' } })).rejects.toThrow(
      /VALIDATION_ERROR: Send either version or label, not both/,
    );
  });

  it('describes in the listing which version production is and which labels exist', async () => {
    const { key } = await versionedAccount();
    const { prompts } = await (await connect(transport, key)).client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'greeting')?.arguments).toEqual([
      { name: 'version', description: 'Version to render: 1 to 3. Without version or label: production (v2).', required: false },
      { name: 'label', description: 'Label to render: latest (v3), production (v2), staging (v3).', required: false },
    ]);
  });

  it('completes a prompt’s labels and version numbers from what was typed', async () => {
    const { key } = await versionedAccount();
    const { client } = await connect(transport, key);
    const complete = async (name: string, value: string) =>
      (await client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name, value } })).completion;
    expect(await complete('label', '')).toEqual({ values: ['latest', 'production', 'staging'], total: 3, hasMore: false });
    expect((await complete('label', 'st')).values).toEqual(['staging']);
    expect((await complete('version', '')).values).toEqual(['3', '2', '1']);
    expect((await complete('version', '2')).values).toEqual(['2']);
    expect(await complete('template', '')).toEqual({ values: [], total: 0, hasMore: false });
  });

  it('completes card ids by id or title, and answers a prompt or template Porch does not have with no values', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const tone = await harness.core.contextCards.create(accountId, { title: 'Tone guide', content: 'Be warm.' });
    const glossary = await harness.core.contextCards.create(accountId, { title: 'Glossary', content: 'Terms.' });
    const { client } = await connect(transport, key);
    const cardIds = async (value: string) =>
      (await client.complete({ ref: { type: 'ref/resource', uri: 'porch://context-cards/{id}' }, argument: { name: 'id', value } })).completion.values;
    expect(await cardIds('TONE')).toEqual([tone.id]);
    expect(await cardIds('ossa')).toEqual([glossary.id]);
    expect(await cardIds(glossary.id.slice(0, 30))).toContain(glossary.id);
    expect((await cardIds('')).sort()).toEqual([tone.id, glossary.id].sort());
    // The conformance suite's completion-complete scenario asks about a prompt Porch has not got.
    const unknownPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'a' } });
    expect(unknownPrompt.completion.values).toEqual([]);
    const unknownTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'file:///{path}' }, argument: { name: 'path', value: '' } });
    expect(unknownTemplate.completion.values).toEqual([]);
  });

  it('offers nothing without a key, and only what the key may read', async () => {
    const { accountId } = await versionedAccount();
    await harness.core.contextCards.create(accountId, { title: 'Tone guide', content: 'Be warm.' });
    const labels = { ref: { type: 'ref/prompt' as const, name: 'greeting' }, argument: { name: 'label', value: '' } };
    const cards = { ref: { type: 'ref/resource' as const, uri: 'porch://context-cards/{id}' }, argument: { name: 'id', value: '' } };

    const anonymous = await connect(transport);
    expect((await anonymous.client.complete(labels)).completion.values).toEqual([]);
    expect((await anonymous.client.complete(cards)).completion.values).toEqual([]);

    const compositionsOnly = await connect(transport, (await harness.createKey(accountId, { scopes: ['read:composition'] })).key);
    expect((await compositionsOnly.client.complete(labels)).completion.values).toEqual(['latest', 'production', 'staging']);
    expect((await compositionsOnly.client.complete(cards)).completion.values).toEqual([]);

    const cardsOnly = await connect(transport, (await harness.createKey(accountId, { scopes: ['api:context-cards'] })).key);
    expect((await cardsOnly.client.complete(labels)).completion.values).toEqual([]);
    expect((await cardsOnly.client.complete(cards)).completion.values).toHaveLength(1);

    const judgeOnly = await connect(transport, (await harness.createKey(accountId, { scopes: ['api:judge'] })).key);
    expect((await judgeOnly.client.complete(cards)).completion.values).toEqual([]);
  });
});

describe('prompt versions and labels', () => {
  it('describes the newest version as the default when no production label is set', async () => {
    const { key } = await versionedAccount({ production: false });
    const connection = await connect('in-memory', key);
    const { prompts } = await connection.client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'greeting')?.arguments?.[0]?.description).toBe(
      'Version to render: 1 to 3. Without version or label: the newest (v3).',
    );
    expect(await rendered(connection)).toBe('Say three.');
  });

  it('lists the arguments of the version production names, not the newest one’s', async () => {
    const { key, accountId, id } = await versionedAccount();
    await harness.core.lifecycle.update(null, 'composition', accountId, id, {
      template: 'Say {{thing}}.',
      variables: [{ name: 'thing', required: true }],
    });
    const connection = await connect('in-memory', key);
    const { prompts } = await connection.client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'greeting')?.arguments?.map((argument) => argument.name)).toEqual(['version', 'label']);
    expect(await rendered(connection, { label: 'latest', thing: 'four' })).toBe('Say four.');
  });

  it('renames the selector a composition variable shadows: porch_version beside the release notes’ own version', async () => {
    const account = await harness.expertWithKey();
    const id = defined((await harness.core.bundles.importBundle(account.accountId, DEMO_BUNDLE)).ids['composition:release-notes'], 'the demo composition');
    await harness.core.lifecycle.update(null, 'composition', account.accountId, id, { description: 'Newer notes' });
    const { client } = await connect('in-memory', account.key);
    const args = { product: 'Porch', version: '1.2', changes: '- x' };
    expect((await client.getPrompt({ name: 'release-notes', arguments: { ...args, porch_version: '2' } })).description).toBe('Newer notes');
    expect((await client.getPrompt({ name: 'release-notes', arguments: { ...args, porch_version: '1' } })).description).not.toBe('Newer notes');
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'release-notes' }, argument: { name: 'porch_version', value: '' } });
    expect(completion.completion.values).toEqual(['2', '1']);
    const variable = await client.complete({ ref: { type: 'ref/prompt', name: 'release-notes' }, argument: { name: 'version', value: '' } });
    expect(variable.completion.values).toEqual([]);
    // A refusal names the argument sent, not the variable beside it (regression: "version: ... has no version 9").
    await expect(client.getPrompt({ name: 'release-notes', arguments: { ...args, porch_version: '9' } })).rejects.toThrow(
      `porch_version: Composition ${id} has no version 9; its versions are 1 to 2.`,
    );
  });

  it('names the selectors after the variables listed, not the newest version’s (regression: two arguments named version, and the documented example refused)', async () => {
    const account = await harness.expertWithKey();
    const id = defined((await harness.core.bundles.importBundle(account.accountId, DEMO_BUNDLE)).ids['composition:release-notes'], 'the demo composition');
    // Version 2 has no `version` variable; production stays on version 1, which has one.
    await harness.core.lifecycle.update(null, 'composition', account.accountId, id, {
      template: 'V2 notes for {{product}} {{newvar}}',
      variables: [
        { name: 'product', required: true },
        { name: 'newvar', required: true },
      ],
    });
    await harness.core.lifecycle.setLabel('composition', account.accountId, id, 'production', 1);
    const { client } = await connect('in-memory', account.key);
    const listed = (await client.listPrompts()).prompts.find((prompt) => prompt.name === 'release-notes');
    const names = listed?.arguments?.map((argument) => argument.name) ?? [];
    expect(new Set(names).size, names.join(', ')).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['version', 'porch_version', 'label']));
    const notes = await client.getPrompt({ name: 'release-notes', arguments: { product: 'Porch', version: '1.2', changes: '- Faster lists' } });
    expect(JSON.stringify(notes.messages)).toContain('1.2');
    const newer = await client.getPrompt({ name: 'release-notes', arguments: { product: 'Porch', newvar: 'x', porch_version: '2' } });
    expect(JSON.stringify(newer.messages)).toContain('V2 notes for Porch x');
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'release-notes' }, argument: { name: 'porch_version', value: '' } });
    expect(completion.completion.values).toEqual(['2', '1']);
  });

  it('prefixes a selector again when a variable already has the prefixed name', async () => {
    const { key, accountId } = await harness.expertWithKey();
    await harness.core.bundles.importBundle(accountId, {
      version: 1,
      compositions: [
        {
          key: 'odd',
          name: 'Odd',
          template: '{{version}} {{porch_version}} {{label}}',
          variables: [
            { name: 'version', required: true },
            { name: 'porch_version', required: true },
            { name: 'label', required: true },
          ],
        },
      ],
    });
    const { client } = await connect('in-memory', key);
    const listed = (await client.listPrompts()).prompts.find((prompt) => prompt.name === 'odd');
    expect(listed?.arguments?.map((argument) => argument.name)).toEqual(['version', 'porch_version', 'label', 'porch_porch_version', 'porch_label']);
    const result = await client.getPrompt({ name: 'odd', arguments: { version: 'a', porch_version: 'b', label: 'c', porch_porch_version: '1' } });
    expect(JSON.stringify(result.messages)).toContain('a b c');
    // The description is the one the listing gave (regression: "" for a composition without one).
    expect(result.description).toBe(listed?.description);
  });

  it('renders a persona at its production version, and at the label asked for', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const id = defined(ids['persona:plain-editor'], 'the demo persona');
    const original = (await harness.core.catalog.getPersona(accountId, id)).content;
    await harness.core.lifecycle.update(null, 'persona', accountId, id, { content: 'You are a newer editor.' });
    await harness.core.lifecycle.setLabel('persona', accountId, id, 'production', 1);
    const { client } = await connect('in-memory', key);
    const systemPrompt = async (args: Record<string, string>) => {
      const content = defined(
        (await client.getPrompt({ name: 'persona-plain-english-editor', arguments: { input: 'Hi.', ...args } })).messages[0],
        'a message',
      ).content;
      return content.type === 'text' ? content.text : '';
    };
    expect(await systemPrompt({})).toBe(original);
    expect(await systemPrompt({ label: 'latest' })).toBe('You are a newer editor.');
    expect(await systemPrompt({ version: '2' })).toBe('You are a newer editor.');
  });

  it('answers at most 100 values, with the total and hasMore', async () => {
    const { key, accountId } = await harness.expertWithKey();
    for (let index = 0; index < 105; index++) await harness.core.contextCards.create(accountId, { title: `Card ${index}`, content: 'C' });
    const { client } = await connect('in-memory', key);
    const { completion } = await client.complete({ ref: { type: 'ref/resource', uri: 'porch://context-cards/{id}' }, argument: { name: 'id', value: 'card' } });
    expect(completion.values).toHaveLength(100);
    expect(completion).toMatchObject({ total: 105, hasMore: true });
  });

  it('counts completions against the key’s rate limit, like listing prompts', async () => {
    const { key } = await versionedAccount({ rpm: 2 });
    const { client } = await connect('in-memory', key);
    const labels = { ref: { type: 'ref/prompt' as const, name: 'greeting' }, argument: { name: 'label', value: '' } };
    await client.complete(labels);
    await client.listPrompts();
    await expect(client.complete(labels)).rejects.toThrow(/RATE_LIMITED/);
  });
});

describe('card resources', () => {
  it('carry the card’s version and last write in _meta and annotations', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const card = await harness.core.contextCards.create(accountId, { title: 'Tone guide', content: 'Be warm.' });
    harness.clock.set(Date.UTC(2026, 5, 2, 9, 30, 0));
    await harness.core.contextCards.update(accountId, card.id, { content: 'Be warmer.' });
    const { client } = await connect('http (2026-07-28)', key);
    const [resource] = (await client.listResources()).resources;
    expect(resource).toMatchObject({
      annotations: { lastModified: '2026-06-02T09:30:00.000Z' },
      _meta: { 'porch/version': 2, 'porch/updated_at': '2026-06-02T09:30:00.000Z' },
    });
    const read = await client.readResource({ uri: `porch://context-cards/${card.id}` });
    expect(read.contents[0]?._meta).toEqual({ 'porch/version': 2, 'porch/updated_at': '2026-06-02T09:30:00.000Z' });
  });
});
