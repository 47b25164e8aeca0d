/**
 * Over MCP, as over REST, the context-card tools, resources and completions do not get around the
 * persona scopes (regression: a key with api:expert and without write:persona rewrote a persona
 * with update_context_card, and one without read:persona read persona prompts in its card list).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult, type McpConnection, resultText } from '../helpers/mcp-client.js';

let harness: Harness;
let connection: McpConnection | undefined;
beforeEach(async () => {
  harness = await createHarness();
});
afterEach(async () => {
  await connection?.close();
  await harness.close();
});

describe('persona cards through the MCP door', () => {
  it('refuses the card tools every persona write and read for a key with api:expert alone, and leaves personas out of its lists', async () => {
    const { accountId } = await harness.expertWithKey();
    const persona = await harness.core.contextCards.create(accountId, { title: 'Careful', content: 'You are careful.', category: 'persona' });
    const facts = await harness.core.contextCards.create(accountId, { title: 'Facts', content: 'We ship on Fridays.' });
    const { key } = await harness.createKey(accountId, { scopes: ['api:expert'] });
    connection = await connectHttp(harness, { key });
    const { client } = connection;

    const refusals = [
      ['update_context_card', { id: persona.id, content: 'You are EVIL now.' }, 'write:persona'],
      ['delete_context_card', { id: persona.id }, 'write:persona'],
      ['create_context_card', { title: 'Sneaky', content: 'x', category: 'persona' }, 'write:persona'],
      ['update_context_card', { id: facts.id, category: 'persona' }, 'write:persona'],
      ['get_context_card', { id: persona.id }, 'read:persona, execute:persona'],
    ] as const;
    for (const [name, args, scopes] of refusals) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${describeResult(result)}`).toBe(true);
      expect(resultText(result)).toMatch(new RegExp(`^INSUFFICIENT_PERMISSIONS: .*it needs one of: ${scopes}\\.`));
    }
    expect(await harness.core.contextCards.get(accountId, persona.id)).toMatchObject({ version: 1, content: 'You are careful.', category: 'persona' });
    expect(await harness.core.contextCards.get(accountId, facts.id)).toMatchObject({ version: 1, category: null });
    expect((await harness.core.contextCards.list(accountId, {})).count).toBe(2);

    const listed = await client.callTool({ name: 'list_context_cards', arguments: {} });
    expect(
      (listed.structuredContent as { items: Array<{ id: string }> }).items.map((card) => card.id),
      describeResult(listed),
    ).toEqual([facts.id]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([`porch://context-cards/${facts.id}`]);
    await expect(client.readResource({ uri: `porch://context-cards/${persona.id}` })).rejects.toThrow(/INSUFFICIENT_PERMISSIONS/);
    const completed = await client.complete({ ref: { type: 'ref/resource', uri: 'porch://context-cards/{id}' }, argument: { name: 'id', value: '' } });
    expect(completed.completion.values).toEqual([facts.id]);
  });
});
