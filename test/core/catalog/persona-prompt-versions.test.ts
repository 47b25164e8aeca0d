/**
 * A persona's MCP prompt offers, as values of its `version` argument, only the versions its card
 * wrote as a persona: the others are not the persona's (regression: a persona ran a version
 * written as facts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
let accountId: string;

beforeEach(async () => {
  harness = await createCoreHarness();
  ({ accountId } = await harness.createAccount());
});
afterEach(() => harness.close());

describe('persona prompt versions', () => {
  it('completes the version argument with the versions written as a persona only', async () => {
    const card = await harness.core.contextCards.create(accountId, { title: 'Critic', content: 'FACTS v1', category: 'facts' });
    await harness.core.contextCards.update(accountId, card.id, { category: 'persona', content: 'PERSONA v2' });
    await harness.core.contextCards.update(accountId, card.id, { content: 'PERSONA v3' });
    const kinds = { compositions: false, personas: true };
    expect(await harness.core.prompts.complete(accountId, kinds, 'persona-critic', 'version', '')).toEqual(['3', '2']);
    await expect(harness.core.prompts.render(accountId, kinds, 'persona-critic', { input: 'hi', version: '1' })).rejects.toThrow(
      'its versions as a persona are 2 to 3',
    );
  });

  it("lists every prompt when a persona's production label names a version written as facts (a label set before such versions were refused)", async () => {
    const card = await harness.core.contextCards.create(accountId, { title: 'Critic', content: 'FACTS v1', category: 'facts' });
    await harness.core.contextCards.update(accountId, card.id, { category: 'persona', content: 'PERSONA v2' });
    await harness.core.contextCards.create(accountId, { title: 'Other', content: 'x', category: 'persona' });
    await harness.store.catalog.setLabel({ accountId, id: card.id, kind: 'contextCards', label: 'production', version: 1, at: Date.now() });
    const listed = await harness.core.prompts.list(accountId, { compositions: true, personas: true });
    expect(listed.map((prompt) => prompt.name).sort()).toEqual(['persona-critic', 'persona-other']);
    const version = listed.find((prompt) => prompt.name === 'persona-critic')?.arguments.find((argument) => argument.name === 'version');
    expect(version?.description).toContain('one the card wrote as a persona, at most 2');
  });
});
