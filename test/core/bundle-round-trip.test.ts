/**
 * Every bundle `porch export` writes imports (issue 16, item 6): export, then import into a fresh
 * account, then export again gives the same bundle, through YAML and JSON text alike. Regressions:
 * a section of more than 1,000 items was refused, and so was a workflow whose persona had been
 * deleted or taken out of category "persona".
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bundle, BundleInput } from '../../src/core/bundle/bundle-schema.js';
import { parseBundleText } from '../../src/core/bundle/bundles.js';
import { PorchError } from '../../src/core/errors.js';
import { createCoreHarness, type CoreHarness } from '../helpers/core-harness.js';

let harness: CoreHarness;
beforeAll(async () => {
  harness = await createCoreHarness();
});
afterAll(() => harness.close());

/** Exports `accountId`, writes the bundle as text, reads it back into a fresh account and exports that. */
async function roundTrip(accountId: string, format: 'json' | 'yaml'): Promise<{ exported: Bundle; reexported: Bundle }> {
  const { bundles } = harness.core;
  const exported = await bundles.exportBundle(accountId);
  const copy = await harness.createAccount();
  await bundles.importBundle(copy.accountId, parseBundleText(bundles.formatBundle(exported, format), format));
  return { exported, reexported: await bundles.exportBundle(copy.accountId) };
}

/** A workflow that runs persona `personaId` on its input. */
function personaWorkflow(personaId: string): BundleInput {
  return {
    workflows: [
      {
        key: 'review',
        name: 'Review',
        variables: [{ name: 'input', required: true }],
        nodes: [
          { id: 'tone', kind: 'persona', persona: personaId, input: '{{input}}' },
          { id: 'wrap', kind: 'template', template: 'Reviewed: {{tone}}' },
        ],
        outputs: { result: 'wrap' },
      },
    ],
  };
}

describe('export then import', () => {
  it('round-trips an account with more than 1,000 items in a section', async () => {
    const { accountId } = await harness.createAccount();
    const items = 1_050;
    await harness.core.bundles.importBundle(accountId, {
      personas: Array.from({ length: items }, (_, index) => ({ name: `Persona ${index % 10}`, content: `You are persona ${index}.` })),
      context_cards: Array.from({ length: items }, (_, index) => ({ title: `Card ${index}`, content: 'Context.' })),
      skills: Array.from({ length: items }, () => ({ name: 'Same name', instructions: 'Be brief.' })),
    });
    const { exported, reexported } = await roundTrip(accountId, 'json');
    expect([exported.personas.length, exported.context_cards.length, exported.skills.length]).toEqual([items, items, items]);
    expect(reexported).toEqual(exported);
  });

  it.each(['deleted', 're-categorised'] as const)(
    'round-trips a workflow whose persona was %s, keeping the lost reference as it was and saying so',
    async (change) => {
      const { accountId } = await harness.createAccount();
      const persona = await harness.core.contextCards.create(accountId, { title: 'Editor', content: 'You edit.', category: 'persona' });
      await harness.core.bundles.importBundle(accountId, personaWorkflow(persona.id));
      if (change === 'deleted') await harness.core.contextCards.delete(accountId, persona.id);
      else await harness.core.contextCards.update(accountId, persona.id, { category: 'archive' });

      for (const format of ['yaml', 'json'] as const) {
        const { exported, reexported } = await roundTrip(accountId, format);
        const [workflow] = exported.workflows;
        expect(workflow?.dangling_refs, 'the bundle says which node lost its persona').toEqual(['tone']);
        expect(workflow?.nodes[0]).toMatchObject({ kind: 'persona', persona: persona.id });
        expect(reexported).toEqual(exported);
      }
    },
  );

  it('still refuses an unknown reference the bundle does not declare dangling, and a dangling node that refers to nothing', async () => {
    const { accountId } = await harness.createAccount();
    const lost = '0196a0c4-7e3a-7c1e-9b1d-2f6c8e4a5b10';
    const undeclared = await harness.core.bundles.importBundle(accountId, personaWorkflow(lost)).catch((err: unknown) => err);
    expect(undeclared).toBeInstanceOf(PorchError);
    expect((undeclared as PorchError).message).toMatch(/workflows\[0\]\.nodes\[0\]\.persona: no persona/);
    const bundle = personaWorkflow(lost);
    const [workflow] = bundle.workflows ?? [];
    if (!workflow) throw new Error('the bundle has a workflow');
    workflow.dangling_refs = ['tone', 'wrap'];
    const wrong = await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err);
    expect((wrong as PorchError).message).toBe('Invalid bundle: workflows[0].dangling_refs[1]: no node "wrap" that refers to a skill, composition or persona');
  });
});

// ---------------------------------------------------------------------------------------------
// The property: any account Porch's doors can make round-trips.

/** Strings that YAML, JSON and key derivation find awkward, beside arbitrary text. */
const AWKWARD = [
  'yes',
  'null',
  '~',
  '2026-05-05',
  '0x10',
  '1e2',
  '- item',
  'a: b',
  '#hash',
  "'quoted'",
  '"dq"',
  'tab\there',
  'line\nbreak',
  'crlf\r\nline',
  '   ',
];
const text = (maxLength: number) => fc.oneof(fc.string({ unit: 'grapheme', maxLength }), fc.constantFrom(...AWKWARD), fc.string({ maxLength }));
/** What a door's trimmed, non-empty, length-bounded field accepts (lengths in UTF-16 units, as zod counts). */
const field = (maxLength: number, { trim = false, empty = false } = {}) =>
  text(maxLength)
    .map((value) => (trim ? value.trim() : value))
    .filter((value) => (empty || value.trim().length > 0) && value.length <= maxLength);
/** Template text without braces, so it holds only the placeholders the generator puts in. */
const prose = field(60).map((value) => value.replace(/[{}]/g, '') || 'text');

const cardArbitrary = fc.record({
  title: field(40, { trim: true }),
  content: field(80),
  category: fc.oneof(fc.constant(null), fc.constant('persona'), fc.constant('persona'), field(64, { empty: true })),
  tags: fc.array(field(20), { maxLength: 3 }),
  description: fc.option(field(60, { empty: true }), { nil: null }),
  emoji: fc.option(field(16, { empty: true }), { nil: null }),
});

const catalogArbitrary = fc.record({
  cards: fc.array(cardArbitrary, { maxLength: 6 }),
  compositions: fc.array(fc.record({ name: field(40, { trim: true }), template: prose, placeholder: fc.boolean(), model: fc.boolean() }), { maxLength: 3 }),
  skills: fc.array(fc.record({ name: field(40, { trim: true }), instructions: prose, category: field(20, { trim: true }) }), { maxLength: 3 }),
  workflows: fc.array(fc.record({ name: field(40, { trim: true }), pick: fc.nat() }), { maxLength: 3 }),
  /** What happens to each persona afterwards. */
  fates: fc.array(fc.constantFrom('kept', 'deleted', 're-categorised'), { maxLength: 6 }),
  format: fc.constantFrom('yaml' as const, 'json' as const),
});

type CatalogSample = typeof catalogArbitrary extends fc.Arbitrary<infer Sample> ? Sample : never;

/** Builds the account through the services the doors call: cards one by one, the rest by import. */
async function buildAccount(sample: CatalogSample): Promise<string> {
  const { accountId } = await harness.createAccount();
  const cards = [];
  for (const card of sample.cards) cards.push(await harness.core.contextCards.create(accountId, card));
  const personas = cards.filter((card) => card.category === 'persona');
  const compositions = sample.compositions.map((composition, index) => ({
    key: `c${index}`,
    name: composition.name,
    template: composition.placeholder ? `${composition.template} {{topic}}` : composition.template,
    ...(composition.model ? { model: 'echo/echo' } : {}),
  }));
  const skills = sample.skills.map((skill, index) => ({ key: `s${index}`, ...skill }));
  const workflows = sample.workflows.map((workflow, index) => {
    const persona = personas[workflow.pick % Math.max(personas.length, 1)];
    const skill = skills[workflow.pick % Math.max(skills.length, 1)];
    const composition = compositions[workflow.pick % Math.max(compositions.length, 1)];
    return {
      key: `w${index}`,
      name: workflow.name,
      variables: [{ name: 'input', required: true }],
      nodes: [
        { id: 'start', kind: 'template', template: 'Input: {{input}}' },
        ...(persona ? [{ id: 'persona', kind: 'persona', persona: persona.id, input: '{{start}}' }] : []),
        ...(skill ? [{ id: 'skill', kind: 'skill', skill: skill.key, input: '{{start}}' }] : []),
        ...(composition ? [{ id: 'composition', kind: 'composition', composition: composition.key, variables: { topic: '{{start}}' } }] : []),
      ],
    };
  });
  await harness.core.bundles.importBundle(accountId, { compositions, skills, workflows });
  for (const [index, fate] of sample.fates.entries()) {
    const persona = personas[index];
    if (!persona || fate === 'kept') continue;
    if (fate === 'deleted') await harness.core.contextCards.delete(accountId, persona.id);
    else await harness.core.contextCards.update(accountId, persona.id, { category: 'retired' });
  }
  return accountId;
}

describe('export then import, as a property', () => {
  it('export → import into a fresh account → export gives the same bundle, for any account the doors can make', async () => {
    await fc.assert(
      fc.asyncProperty(catalogArbitrary, async (sample) => {
        const accountId = await buildAccount(sample);
        const { exported, reexported } = await roundTrip(accountId, sample.format);
        expect(reexported).toEqual(exported);
      }),
      { numRuns: Number(process.env.PORCH_FUZZ_RUNS ?? 60), seed: Number(process.env.PORCH_FUZZ_SEED ?? 16_006) },
    );
  });
});
