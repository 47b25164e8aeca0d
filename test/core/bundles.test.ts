import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defined } from '../helpers/defined.js';
import { compositionEntrySchema } from '../../src/core/bundle/bundle-schema.js';
import { parseBundleText } from '../../src/core/bundle/bundles.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { PorchError } from '../../src/core/errors.js';
import { createCoreHarness, type CoreHarness } from '../helpers/core-harness.js';

let harness: CoreHarness;
let accountId: string;
beforeEach(async () => {
  harness = await createCoreHarness();
  ({ accountId } = await harness.createAccount());
});
afterEach(() => harness.close());

async function counts(id: string) {
  const all = await harness.store.catalog.exportAll(id);
  return { cards: all.contextCards.length, compositions: all.compositions.length, skills: all.skills.length, workflows: all.workflows.length };
}

describe('bundle import', () => {
  it('imports the documented example bundle with every node kind', async () => {
    const raw = parseBundleText(await readFile('examples/bundle.yaml', 'utf8'), 'yaml');
    const summary = await harness.core.bundles.importBundle(accountId, raw);
    expect(summary).toMatchObject({ personas: 1, context_cards: 2, compositions: 1, skills: 1, workflows: 1 });
    const workflow = defined((await harness.store.catalog.exportAll(accountId)).workflows[0], 'the imported workflow');
    const nodes = (workflow.definition as { nodes: Array<{ id: string; kind: string; skill?: string; persona?: string }> }).nodes;
    expect(nodes.map((node) => node.kind).sort()).toEqual(['composition', 'judge', 'model', 'persona', 'sanitise', 'skill', 'template']);
    expect(nodes.find((node) => node.kind === 'skill')?.skill).toBe(summary.ids['skill:classify']);
    expect(nodes.find((node) => node.kind === 'persona')?.persona).toBe(summary.ids['persona:support-agent']);
  });

  it('imports JSON as well as YAML', async () => {
    const raw = parseBundleText(JSON.stringify(DEMO_BUNDLE), 'auto');
    expect((await harness.core.bundles.importBundle(accountId, raw)).workflows).toBe(1);
  });

  it('writes nothing when any part is invalid, naming the bad path', async () => {
    const bundle = structuredClone(DEMO_BUNDLE);
    const workflow = bundle.workflows?.[0];
    if (!workflow) throw new Error('demo bundle has a workflow');
    workflow.nodes[1] = { id: 'summary', kind: 'skill', skill: 'summarise', input: '{{drfat}}' };
    const error = await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PorchError);
    expect((error as PorchError).message).toMatch(/workflows\[0\]\.nodes\[1\]\.input: references unknown name "drfat"/);
    expect(await counts(accountId)).toEqual({ cards: 0, compositions: 0, skills: 0, workflows: 0 });
  });

  it('refuses a model the server does not offer, wherever the bundle names one, and writes nothing', async () => {
    const bundle = {
      compositions: [{ key: 'c', name: 'C', template: 'Hi', model: 'openai/gpt-4o' }],
      skills: [{ key: 's', name: 'S', instructions: 'Be brief.', model: 'echo/echo' }],
      workflows: [{ key: 'w', name: 'W', nodes: [{ id: 'n', kind: 'model', prompt: 'Hi', model: 'nope/model' }] }],
    };
    const error = await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PorchError);
    expect((error as PorchError).code).toBe('VALIDATION_ERROR');
    expect((error as PorchError).message).toBe(
      'Invalid bundle: compositions[0].model: unknown model "openai/gpt-4o" (available: echo/echo); workflows[0].nodes[0].model: unknown model "nope/model" (available: echo/echo)',
    );
    expect(await counts(accountId)).toEqual({ cards: 0, compositions: 0, skills: 0, workflows: 0 });
  });

  it('rejects cycles, naming them', async () => {
    const bundle = {
      workflows: [
        {
          name: 'Loop',
          nodes: [
            { id: 'a', kind: 'template', template: '{{b}}' },
            { id: 'b', kind: 'template', template: '{{a}}' },
          ],
        },
      ],
    };
    await expect(harness.core.bundles.importBundle(accountId, bundle)).rejects.toThrow(/a -> b -> a/);
  });

  it('rejects references to resources that are neither in the bundle nor owned by the account', async () => {
    const other = await harness.createAccount();
    const foreignCard = await harness.core.contextCards.create(other.accountId, { title: 'P', content: 'You are', category: 'persona' });
    const bundle = {
      workflows: [
        {
          name: 'Refs',
          nodes: [
            { id: 'a', kind: 'skill', skill: 'nope', input: 'x' },
            { id: 'b', kind: 'persona', persona: foreignCard.id, input: 'x' },
          ],
        },
      ],
    };
    const error = (await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err)) as PorchError;
    expect(error.message).toMatch(/workflows\[0\]\.nodes\[0\]\.skill: no skill "nope"/);
    expect(error.message).toMatch(/workflows\[0\]\.nodes\[1\]\.persona: no persona/);
  });

  it('accepts references to resources the account already owns, by id', async () => {
    const persona = await harness.core.contextCards.create(accountId, { title: 'P', content: 'You are terse.', category: 'persona' });
    const bundle = { workflows: [{ name: 'Uses existing', nodes: [{ id: 'a', kind: 'persona', persona: persona.id, input: 'hi' }] }] };
    expect((await harness.core.bundles.importBundle(accountId, bundle)).workflows).toBe(1);
  });

  it('reports schema problems with their paths and rejects unknown fields', async () => {
    const bundle = { compositions: [{ name: 'x', templat: 'typo' }], personas: [{ name: '', content: 'c' }] };
    const error = (await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err)) as PorchError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(/compositions\[0\]/);
    expect(error.message).toMatch(/personas\[0\]\.name/);
  });

  it("refuses a composition variable declared twice, as a workflow does (regression: the second declaration hid the first one's required)", async () => {
    const bundle = {
      compositions: [
        {
          name: 'c',
          template: '{{x}}',
          variables: [
            { name: 'x', required: true },
            { name: 'x', default: 'two' },
          ],
        },
      ],
    };
    const error = (await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err)) as PorchError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('compositions[0].variables[1].name: duplicate variable "x" (also variables[0])');
  });

  it('declares undeclared composition placeholders as required variables', async () => {
    await harness.core.bundles.importBundle(accountId, {
      compositions: [{ name: 'c', template: 'Hi {{name}}, {{greeting}}', variables: [{ name: 'greeting', default: 'hello' }] }],
    });
    const [composition] = (await harness.store.catalog.exportAll(accountId)).compositions;
    expect(composition?.variables).toEqual([
      { name: 'greeting', required: false, default: 'hello' },
      { name: 'name', required: true },
    ]);
  });

  it('reports unparseable text clearly', () => {
    expect(() => parseBundleText('{ not json', 'json')).toThrow(/not valid JSON/);
    expect(() => parseBundleText('a: [unclosed', 'yaml')).toThrow(/not valid YAML/);
  });
});

describe('bundle export', () => {
  it('round-trips: exporting and importing into a fresh account gives the same catalog', async () => {
    await harness.core.bundles.importBundle(accountId, parseBundleText(await readFile('examples/bundle.yaml', 'utf8')));
    const exported = await harness.core.bundles.exportBundle(accountId);
    for (const format of ['yaml', 'json'] as const) {
      const copy = await harness.createAccount();
      const text = harness.core.bundles.formatBundle(exported, format);
      await harness.core.bundles.importBundle(copy.accountId, parseBundleText(text, format));
      const reexported = await harness.core.bundles.exportBundle(copy.accountId);
      expect(reexported).toEqual(exported);
    }
  });

  it('escapes the characters YAML 1.2 forbids raw, which strict parsers refuse (regression: a raw DEL)', async () => {
    const instructions = 'Delete\u007f and C1 \u0081\u009f, keep NEL \u0085 and \u00e9.';
    await harness.core.bundles.importBundle(accountId, { skills: [{ key: 'odd', name: 'Odd', instructions }] });
    const text = harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(accountId), 'yaml');
    expect(text).not.toMatch(/[\u007f-\u0084\u0086-\u009f]/);
    expect(text).toContain('Delete\\x7F and C1 \\x81\\x9F');
    expect((parseBundleText(text, 'yaml') as { skills: Array<{ instructions: string }> }).skills[0]?.instructions).toBe(instructions);
  });
});

describe('bundle import as an upsert', () => {
  const versionsOf = async (id: string) => (await harness.store.catalog.listVersions({ accountId, id, page: {} })).map((version) => version.version);

  it('changes nothing when the same bundle is imported twice, keyed or not', async () => {
    const raw = parseBundleText(await readFile('examples/bundle.yaml', 'utf8'), 'yaml');
    const first = await harness.core.bundles.importBundle(accountId, raw);
    const before = await harness.store.catalog.exportAll(accountId);
    const second = await harness.core.bundles.importBundle(accountId, raw);
    expect(second.ids).toEqual(first.ids);
    expect(second.created).toEqual({ personas: 0, context_cards: 0, compositions: 0, skills: 0, workflows: 0 });
    expect(second.updated).toEqual({ personas: 0, context_cards: 0, compositions: 0, skills: 0, workflows: 0 });
    expect(second.unchanged).toEqual({ personas: 1, context_cards: 2, compositions: 1, skills: 1, workflows: 1 });
    expect(await harness.store.catalog.exportAll(accountId)).toEqual(before);
    for (const id of Object.values(first.ids)) expect(await versionsOf(id)).toEqual([1]);
  });

  it('writes a new version of an item whose content changed, and of no other', async () => {
    const bundle = {
      compositions: [{ key: 'greet', name: 'Greet', template: 'Hello {{name}}' }],
      skills: [{ key: 'tidy', name: 'Tidy', instructions: 'Tidy it.' }],
    };
    const first = await harness.core.bundles.importBundle(accountId, bundle);
    const changed = { ...bundle, compositions: [{ key: 'greet', name: 'Greet', template: 'Hi {{name}}' }] };
    const second = await harness.core.bundles.importBundle(accountId, changed);
    expect(second.updated.compositions).toBe(1);
    expect(second.unchanged.skills).toBe(1);
    expect(await versionsOf(defined(first.ids['composition:greet'], 'greet'))).toEqual([2, 1]);
    expect(await versionsOf(defined(first.ids['skill:tidy'], 'tidy'))).toEqual([1]);
    const composition = await harness.core.lifecycle.get('composition', accountId, defined(first.ids['composition:greet'], 'greet'));
    expect(composition).toMatchObject({ version: 2, template: 'Hi {{name}}', key: 'greet' });
  });

  it('with prune, deletes what the bundle no longer holds, and without it keeps it', async () => {
    const both = {
      skills: [
        { key: 'a', name: 'A', instructions: 'a' },
        { key: 'b', name: 'B', instructions: 'b' },
      ],
      personas: [{ key: 'p', name: 'P', content: 'p' }],
    };
    const first = await harness.core.bundles.importBundle(accountId, both);
    const onlyA = { skills: [{ key: 'a', name: 'A', instructions: 'a' }] };
    await harness.core.bundles.importBundle(accountId, onlyA);
    expect(await counts(accountId)).toMatchObject({ skills: 2, cards: 1 });
    const pruned = await harness.core.bundles.importBundle(accountId, onlyA, { prune: true });
    expect(pruned.deleted).toMatchObject({ skills: 1, personas: 1 });
    expect(await counts(accountId)).toMatchObject({ skills: 1, cards: 0 });
    expect((await harness.store.catalog.exportAll(accountId)).skills[0]?.id).toBe(first.ids['skill:a']);
  });

  it('round-trips into the same account without a change: export writes each item with its key', async () => {
    await harness.core.bundles.importBundle(accountId, parseBundleText(await readFile('examples/bundle.yaml', 'utf8'), 'yaml'));
    const exported = await harness.core.bundles.exportBundle(accountId);
    expect(exported.context_cards.every((card) => typeof card.key === 'string')).toBe(true);
    const again = await harness.core.bundles.importBundle(accountId, exported);
    expect(Object.values(again.created).every((count) => count === 0)).toBe(true);
    expect(Object.values(again.updated).every((count) => count === 0)).toBe(true);
  });

  it('adopts a resource created before keys existed, by its name, rather than adding a second one', async () => {
    await harness.core.contextCards.create(accountId, { title: 'House style', content: 'Plain words.' });
    const summary = await harness.core.bundles.importBundle(accountId, { context_cards: [{ title: 'House style', content: 'Plain words.' }] });
    expect(summary.created.context_cards).toBe(0);
    expect(await counts(accountId)).toMatchObject({ cards: 1 });
  });

  it('imports its own export of resources made without a key (over the API) without a new version of any', async () => {
    // Regression: each keyless resource gained a version only to record the key export gave it.
    await harness.core.contextCards.create(accountId, { title: 'House style', content: 'Plain words.' });
    await harness.core.bundles.importBundle(accountId, { compositions: [{ name: 'Greeting', template: 'Hi {{who}}' }] });
    const keyless = (await harness.store.catalog.exportAll(accountId)).contextCards[0];
    expect(keyless?.bundleKey).toBeNull();
    const again = await harness.core.bundles.importBundle(accountId, await harness.core.bundles.exportBundle(accountId));
    expect(again.updated).toEqual({ personas: 0, context_cards: 0, compositions: 0, skills: 0, workflows: 0 });
    expect(again.unchanged).toMatchObject({ context_cards: 1, compositions: 1 });
    expect((await harness.store.catalog.exportAll(accountId)).contextCards[0]?.version).toBe(1);
  });

  it('records the key of an item that adopts a resource made without one, with no new version, so references by that key work (regression: refused)', async () => {
    const made = await harness.core.lifecycle.create(null, 'composition', accountId, compositionEntrySchema.parse({ name: 'Foo', template: 'foo {{a}}' }));
    const adopted = await harness.core.bundles.importBundle(accountId, { compositions: [{ key: 'foo-key', name: 'Foo', template: 'foo {{a}}' }] });
    expect(adopted.unchanged.compositions).toBe(1);
    expect(adopted.ids['composition:foo-key']).toBe(made.id);
    const stored = await harness.store.catalog.findComposition({ accountId, id: made.id });
    expect(stored).toMatchObject({ bundleKey: 'foo-key', version: 1 });
    const later = await harness.core.bundles.importBundle(accountId, {
      workflows: [{ key: 'w', name: 'Uses foo', nodes: [{ id: 'a', kind: 'composition', composition: 'foo-key', variables: { a: 'x' } }] }],
    });
    expect(later.created.workflows).toBe(1);
    expect((await harness.core.bundles.exportBundle(accountId)).compositions.map((item) => item.key)).toEqual(['foo-key']);
  });

  it('refuses an item without a key whose name gives the key of a resource of another name (regression: it silently replaced that one)', async () => {
    await harness.core.bundles.importBundle(accountId, { compositions: [{ name: 'Hello World', template: 'Greets the world' }] });
    const error = await harness.core.bundles
      .importBundle(accountId, { compositions: [{ name: 'Hello, world!', template: 'Something else' }] })
      .catch((err: unknown) => err);
    expect((error as PorchError).message).toContain(
      'compositions[0].key: has no key, and the key its name gives, "hello-world", is that of another composition of this account, named "Hello World"; give the item a key ("hello-world" to update that one)',
    );
    const [only] = (await harness.store.catalog.exportAll(accountId)).compositions;
    expect(only).toMatchObject({ name: 'Hello World', template: 'Greets the world', version: 1 });
  });

  it('updates the resource a keyless item made when only the case of its name changed, or when the resource was renamed since (regression: refused as another)', async () => {
    const first = await harness.core.bundles.importBundle(accountId, { compositions: [{ name: 'Hello world', template: 'One' }] });
    const id = first.ids['composition:hello-world'] ?? '';
    const recased = await harness.core.bundles.importBundle(accountId, { compositions: [{ name: 'Hello World', template: 'One' }] });
    expect(recased.updated.compositions).toBe(1);
    await harness.core.lifecycle.update(null, 'composition', accountId, id, { name: 'Greeting' });
    const back = await harness.core.bundles.importBundle(accountId, { compositions: [{ name: 'Hello World', template: 'Two' }] });
    expect(back.updated.compositions).toBe(1);
    const compositions = (await harness.store.catalog.exportAll(accountId)).compositions;
    expect(compositions.map((item) => [item.id, item.name, item.template])).toEqual([[id, 'Hello World', 'Two']]);
  });

  it('finds again a name keyed before keys carried a digest, rather than add a second (regression: a duplicate after upgrading)', async () => {
    // As an earlier release keyed them: the slug alone.
    await harness.core.bundles.importBundle(accountId, { skills: [{ key: 'caf', name: 'Café', instructions: 'a' }] });
    const again = await harness.core.bundles.importBundle(accountId, { skills: [{ name: 'Café', instructions: 'a' }] });
    expect(again.unchanged.skills).toBe(1);
    expect(again.created.skills).toBe(0);
    const skills = (await harness.store.catalog.exportAll(accountId)).skills;
    expect(skills.map((skill) => [skill.name, skill.bundleKey, skill.version])).toEqual([['Café', 'caf', 1]]);
  });

  it('keys names a key cannot spell by a digest of the name, whatever their order in the file (regression: skill, skill-2 by position)', async () => {
    const both = await harness.core.bundles.importBundle(accountId, {
      skills: [
        { name: '日本語', instructions: 'a' },
        { name: '中文', instructions: 'b' },
      ],
    });
    const keys = Object.keys(both.ids);
    expect(keys).toHaveLength(2);
    expect(keys.every((key) => /^skill:skill-[0-9a-f]{8}$/.test(key))).toBe(true);
    const alone = await harness.core.bundles.importBundle(accountId, { skills: [{ name: '中文', instructions: 'b' }] });
    expect(alone.unchanged.skills).toBe(1);
    const skills = (await harness.store.catalog.exportAll(accountId)).skills;
    expect(skills.map((skill) => [skill.name, skill.instructions, skill.version]).sort()).toEqual([
      ['中文', 'b', 1],
      ['日本語', 'a', 1],
    ]);
  });

  it('refuses an item whose key is held by the other kind, never turning a persona into a card or back (regression)', async () => {
    const first = await harness.core.bundles.importBundle(accountId, {
      personas: [{ key: 'vp', name: 'VP', content: 'Speak as the VP.' }],
      context_cards: [{ key: 'style', title: 'Style', content: 'Plain words.', category: 'style' }],
    });
    for (const bundle of [
      { context_cards: [{ key: 'vp', title: 'VP notes', content: 'x', category: 'notes' }] },
      { personas: [{ key: 'style', name: 'Style persona', content: 'x' }] },
    ]) {
      const error = await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err);
      expect((error as PorchError).message).toMatch(/(context_cards|personas)\[0\]\.key: "(vp|style)" is the key of a (persona|context card) of this account/);
    }
    const persona = await harness.core.lifecycle.get('persona', accountId, first.ids['persona:vp'] ?? '');
    expect(persona).toMatchObject({ name: 'VP', version: 1 });
  });

  it('changes nothing importing the export of a persona made as a card with no description (regression: a version per import)', async () => {
    await harness.core.contextCards.create(accountId, { title: 'Card persona', content: 'cp', category: 'persona' });
    const again = await harness.core.bundles.importBundle(accountId, await harness.core.bundles.exportBundle(accountId));
    expect(again.updated.personas).toBe(0);
    expect((await harness.store.catalog.exportAll(accountId)).contextCards[0]?.version).toBe(1);
  });

  it('imports the export of a card that was a persona with a long description (regression: refused, 1,000 characters)', async () => {
    const made = await harness.core.bundles.importBundle(accountId, {
      personas: [{ key: 'long', name: 'Long', content: 'c', description: 'd'.repeat(1_500) }],
    });
    await harness.core.contextCards.update(accountId, made.ids['persona:long'] ?? '', { category: 'notes' });
    const exported = await harness.core.bundles.exportBundle(accountId);
    const other = await harness.createAccount();
    expect((await harness.core.bundles.importBundle(other.accountId, exported)).context_cards).toBe(1);
  });

  it('with prune, refuses to delete what a workflow of the bundle uses by id, and writes nothing (regression: it arrived broken)', async () => {
    const first = await harness.core.bundles.importBundle(accountId, { skills: [{ key: 'used', name: 'Used', instructions: 'u' }] });
    const usedId = first.ids['skill:used'] ?? '';
    const bundle = { workflows: [{ key: 'w', name: 'W', nodes: [{ id: 'a', kind: 'skill', skill: usedId, input: 'hi' }] }] };
    const error = await harness.core.bundles.importBundle(accountId, bundle, { prune: true }).catch((err: unknown) => err);
    expect((error as PorchError).message).toContain(`workflows[0].nodes[0].skill: refers to ${usedId}, which --prune would delete`);
    expect(await counts(accountId)).toMatchObject({ skills: 1, workflows: 0 });
  });

  it('refuses a key used twice across personas and context cards, which share one key space', async () => {
    const error = await harness.core.bundles
      .importBundle(accountId, { personas: [{ key: 'x', name: 'P', content: 'p' }], context_cards: [{ key: 'x', title: 'C', content: 'c' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PorchError);
    expect((error as PorchError).message).toMatch(/context_cards\[0\]\.key: duplicate key "x"/);
  });
});

describe('bundle references', () => {
  it('resolves a workflow node to a resource the account already has, by its key as the API does', async () => {
    const first = await harness.core.bundles.importBundle(accountId, { skills: [{ key: 'tidy', name: 'Tidy', instructions: 'Tidy it.' }] });
    const summary = await harness.core.bundles.importBundle(accountId, {
      workflows: [{ key: 'flow', name: 'Flow', nodes: [{ id: 'a', kind: 'skill', skill: 'tidy', input: 'x' }] }],
    });
    const workflow = await harness.core.lifecycle.get('workflow', accountId, defined(summary.ids['workflow:flow'], 'flow'));
    expect((workflow.nodes[0] as { skill?: string }).skill).toBe(first.ids['skill:tidy']);
  });
});

describe('bundle text that was cut short, repeats a key or is otherwise awkward (regressions)', () => {
  /** An account with an item in every section, a workflow using a persona and a skill. */
  async function fullAccount(id: string): Promise<void> {
    await harness.core.contextCards.create(id, { title: 'Made over the API', content: 'You help.', category: 'persona' });
    await harness.core.bundles.importBundle(id, parseBundleText(await readFile('examples/bundle.yaml', 'utf8'), 'yaml'));
  }

  it.each(['yaml', 'json'] as const)(
    'refuses a %s export cut short at any point, saying so and writing nothing, even with prune (regression: it imported the part before the cut)',
    async (format) => {
      await fullAccount(accountId);
      const text = harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(accountId), format);
      const before = await harness.store.catalog.exportAll(accountId);
      let sawCutShort = false;
      const whole = text.trimEnd().length;
      // Every third place, and every place in the closing end_of_export.
      for (let length = 0; length < whole; length += length < whole - 150 ? 3 : 1) {
        const cut = text.slice(0, length);
        const outcome = await Promise.resolve()
          .then(() => harness.core.bundles.importBundle(accountId, parseBundleText(cut, format), { prune: true }))
          .catch((err: unknown) => err);
        expect(outcome, `cut after ${length} characters: ${JSON.stringify(cut.slice(-40))}`).toBeInstanceOf(PorchError);
        if (/looks cut short/.test((outcome as PorchError).message)) sawCutShort = true;
      }
      expect(sawCutShort).toBe(true);
      expect(await harness.store.catalog.exportAll(accountId)).toEqual(before);
    },
  );

  it('says a YAML export cut after an item looks cut short, and an export whose counts disagree looks cut short or edited', async () => {
    await fullAccount(accountId);
    const text = harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(accountId), 'yaml');
    const cut = text.slice(0, text.indexOf('\nworkflows:'));
    const refused = (await harness.core.bundles
      .importBundle(accountId, parseBundleText(cut, 'yaml'), { prune: true })
      .catch((err: unknown) => err)) as PorchError;
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.message).toMatch(/^The bundle looks cut short: it begins with `exported_by`.*Nothing was imported/);
    const edited = parseBundleText(text, 'yaml') as { skills: unknown[] };
    edited.skills = [];
    const counted = (await harness.core.bundles.importBundle(accountId, edited).catch((err: unknown) => err)) as PorchError;
    expect(counted.message).toContain(
      'The bundle looks cut short or edited: its sections do not hold the items its `end_of_export` counts (skills: 1 counted, 0 held)',
    );
  });

  it('still imports a hand-written bundle without the export fields, and round-trips an export to the same bytes', async () => {
    await fullAccount(accountId);
    for (const format of ['yaml', 'json'] as const) {
      const text = harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(accountId), format);
      expect(text.trimStart()).toMatch(format === 'yaml' ? /^exported_by: porch\n/ : /^\{\n {2}"exported_by": "porch",/);
      const copy = await harness.createAccount();
      await harness.core.bundles.importBundle(copy.accountId, parseBundleText(text, format));
      expect(harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(copy.accountId), format)).toBe(text);
    }
    const handWritten = { skills: [{ key: 'plain', name: 'Plain', instructions: 'Be plain.' }] };
    expect((await harness.core.bundles.importBundle(accountId, handWritten)).skills).toBe(1);
  });

  it('lets a workflow persona step name a card of category persona from the context_cards section (regression: "no persona")', async () => {
    const summary = await harness.core.bundles.importBundle(accountId, parseBundleText(PERSONA_CARD_BUNDLE, 'yaml'));
    const workflow = await harness.core.lifecycle.get('workflow', accountId, defined(summary.ids['workflow:usescardpersona'], 'the workflow'));
    expect((workflow.nodes[0] as { persona?: string }).persona).toBe(summary.ids['context_card:helper']);
  });

  it('keeps a persona card without a description without one through export and import (regression: null became "")', async () => {
    await harness.core.contextCards.create(accountId, { title: 'No description', content: 'You help.', category: 'persona' });
    for (const format of ['yaml', 'json'] as const) {
      const copy = await harness.createAccount();
      const text = harness.core.bundles.formatBundle(await harness.core.bundles.exportBundle(accountId), format);
      await harness.core.bundles.importBundle(copy.accountId, parseBundleText(text, format));
      const [card] = (await harness.store.catalog.exportAll(copy.accountId)).contextCards;
      expect(card).toMatchObject({ title: 'No description', category: 'persona', description: null });
    }
    // A hand-written persona without one is still "" as before.
    const summary = await harness.core.bundles.importBundle(accountId, { personas: [{ key: 'plain', name: 'Plain', content: 'p' }] });
    const plain = await harness.store.catalog.exportAll(accountId);
    expect(plain.contextCards.find((card) => card.id === summary.ids['persona:plain'])?.description).toBe('');
  });

  it('refuses a key a JSON object repeats, naming the key and its line, as YAML does (regression: the last one won)', () => {
    const text = '{\n  "skills": [\n    {\n      "key": "a",\n      "name": "A",\n      "instructions": "x",\n      "na\\u006de": "B"\n    }\n  ]\n}\n';
    expect(() => parseBundleText(text, 'json')).toThrow(
      'The bundle is not valid JSON: Object keys must be unique: "name" appears twice in one object at line 7',
    );
    expect(() => parseBundleText('{"version": 1, "version": 1}', 'auto')).toThrow(/"version" appears twice in one object at line 1/);
    // The same key in different objects, and a key-like string as a value or in an array, are no repeats.
    expect(parseBundleText('{"a": {"k": "a"}, "b": {"k": ["a", "a"]}, "c": "a"}', 'json')).toEqual({ a: { k: 'a' }, b: { k: ['a', 'a'] }, c: 'a' });
    expect(parseBundleText('{"a\\"b": 1, "a\\\\": [{}, {"x": 1}], "x": 2}', 'json')).toEqual({ 'a"b': 1, 'a\\': [{}, { x: 1 }], x: 2 });
  });

  it('reads a JSON or YAML bundle that begins with a byte order mark (regression: JSON refused it as an invisible unexpected token)', () => {
    const bundle = { skills: [{ key: 'a', name: 'A', instructions: 'x' }] };
    expect(parseBundleText(`\uFEFF${JSON.stringify(bundle)}`, 'json')).toEqual(bundle);
    expect(parseBundleText(`\uFEFF${JSON.stringify(bundle)}`, 'auto')).toEqual(bundle);
    expect(parseBundleText('\uFEFFskills:\n  - key: a\n    name: A\n    instructions: x\n', 'yaml')).toEqual(bundle);
  });

  it('refuses an anchored part used more than 100 times with a message naming the limit (regression: "Excessive alias count indicates a resource exhaustion attack")', () => {
    const bundle = (uses: number) =>
      `compositions:\n${Array.from({ length: uses }, (_, index) => `  - key: c${index}\n    name: C${index}\n    template: "{{tone}}"\n    variables: ${index === 0 ? '&vars\n      - { name: tone, default: calm }' : '*vars'}`).join('\n')}\n`;
    expect(() => parseBundleText(bundle(100), 'yaml')).not.toThrow();
    expect(() => parseBundleText(bundle(101), 'yaml')).toThrow(
      'The bundle uses an anchored part (&name) more than 100 times, counting where it is anchored and each alias (*name) of it, the most a YAML bundle may (an alias inside an anchored part counts once for each use of that part); write some of the repeated parts out.',
    );
  });
});

const PERSONA_CARD_BUNDLE = `context_cards:
  - key: helper
    title: Helper
    content: You help.
    category: persona
workflows:
  - name: UsesCardPersona
    nodes:
      - id: p
        kind: persona
        persona: helper
        input: hi
`;
