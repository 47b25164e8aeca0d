import { describe, expect, it } from 'vitest';
import type { CompositionRecord, ContextCardRecord, SkillRecord } from '../../../src/db/store.js';
import { compositionMessages, personaMessages, skillMessages } from '../../../src/core/execution/prompt-builders.js';
import { definitionResourceRefs, mapNodeTemplates, mapResourceRefs, nodeTemplateFields } from '../../../src/core/engine/node-fields.js';
import {
  NODE_KINDS,
  executeNodeWith,
  isMeteredNode,
  nodeKindOf,
  workflowNodeSchema,
  type EngineRenderedKind,
  type ExecutableNode,
  type WorkflowNode,
  type WorkflowNodeKind,
} from '../../../src/core/engine/node-kinds/index.js';
import type { NodeServices, ResourceRefKind } from '../../../src/core/engine/node-kinds/node-kind.js';
import type { WorkflowDefinition } from '../../../src/core/engine/workflow-schema.js';

/** One node of each kind with every field set. A new kind does not compile until it has one. */
const SAMPLES: { [K in WorkflowNodeKind]: Extract<WorkflowNode, { kind: K }> } = {
  model: {
    id: 'm',
    kind: 'model',
    description: 'asks',
    prompt: 'p {{v}}',
    system: 's {{v}}',
    persona: 'voice',
    model: 'echo/echo',
    temperature: 0.5,
    max_output_tokens: 10,
  },
  template: { id: 't', kind: 'template', template: 't {{v}}' },
  skill: { id: 's', kind: 'skill', skill: 'writer', input: 'i {{v}}', variables: { a: 'a {{v}}', b: 'b' }, model: 'echo/echo' },
  composition: { id: 'c', kind: 'composition', composition: 'polisher', variables: { x: 'x {{v}}' }, model: 'echo/echo' },
  persona: { id: 'p', kind: 'persona', persona: 'house', input: 'i {{v}}', context: 'c {{v}}', model: 'echo/echo', temperature: 0 },
  sanitise: { id: 'z', kind: 'sanitise', text: 'scan {{v}}' },
  judge: { id: 'j', kind: 'judge', prompt: 'p {{v}}', criteria: 'c {{v}}', model: 'echo/echo' },
};

/**
 * What the central switches said before node kinds became modules, for the samples above. A
 * difference here is a change of behaviour, not of structure.
 */
const EXPECTED: {
  [K in WorkflowNodeKind]: {
    templatePaths: string[];
    refs: Array<{ field: string; kind: ResourceRefKind }>;
    metered: boolean;
    renderedByEngine: boolean;
  };
} = {
  model: { templatePaths: ['prompt', 'system'], refs: [{ field: 'persona', kind: 'persona' }], metered: true, renderedByEngine: false },
  template: { templatePaths: ['template'], refs: [], metered: false, renderedByEngine: true },
  skill: { templatePaths: ['input', 'variables.a', 'variables.b'], refs: [{ field: 'skill', kind: 'skill' }], metered: true, renderedByEngine: false },
  composition: { templatePaths: ['variables.x'], refs: [{ field: 'composition', kind: 'composition' }], metered: true, renderedByEngine: false },
  persona: { templatePaths: ['input', 'context'], refs: [{ field: 'persona', kind: 'persona' }], metered: true, renderedByEngine: false },
  sanitise: { templatePaths: ['text'], refs: [], metered: false, renderedByEngine: false },
  judge: { templatePaths: ['prompt', 'criteria'], refs: [], metered: true, renderedByEngine: false },
};

const KINDS = NODE_KINDS.map((kind) => kind.kind);

function definitionOf(node: WorkflowNode): WorkflowDefinition {
  return { variables: [], nodes: [node], outputs: {} };
}

/** The sample's fields that differ between two copies of it. */
function changedFields(before: WorkflowNode, after: WorkflowNode): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const a: Record<string, unknown> = before;
  const b: Record<string, unknown> = after;
  return [...keys].filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
}

describe('the node kind registry', () => {
  it("holds every kind of the node schema once, each under its own schema's kind", () => {
    expect(new Set(KINDS).size).toBe(KINDS.length);
    expect(workflowNodeSchema.options.map((schema) => schema.shape.kind.value)).toEqual(KINDS);
    for (const kind of NODE_KINDS) expect(kind.schema.shape.kind.value).toBe(kind.kind);
    expect(Object.keys(SAMPLES).sort()).toEqual([...KINDS].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...KINDS].sort());
  });

  it.each(KINDS)('accepts the %s sample as it stands', (kind) => {
    expect(workflowNodeSchema.parse(SAMPLES[kind])).toEqual(SAMPLES[kind]);
  });

  it.each(KINDS)('renders exactly the declared template fields of a %s node', (kind) => {
    const sample = SAMPLES[kind];
    const declared = nodeKindOf(kind).templateFields;
    expect(nodeTemplateFields(sample).map((field) => field.path)).toEqual(EXPECTED[kind].templatePaths);

    const rendered = mapNodeTemplates(sample, (template, path) => `${path}=[${template}]`);
    expect(changedFields(sample, rendered).sort()).toEqual([...declared].sort());
    for (const field of nodeTemplateFields(rendered)) expect(field.template).toMatch(new RegExp(`^${field.path}=\\[`));
    expect(SAMPLES[kind]).toEqual(sample);
  });

  it.each(KINDS)('finds and rewrites exactly the declared resource refs of a %s node', (kind) => {
    const sample = SAMPLES[kind];
    const fields: Record<string, unknown> = sample;
    const expected = EXPECTED[kind].refs.map(({ field, kind: refKind }) => ({ nodeId: sample.id, kind: refKind, ref: fields[field] }));
    expect(nodeKindOf(kind).resourceRefs).toEqual(EXPECTED[kind].refs);
    expect(definitionResourceRefs(definitionOf(sample))).toEqual(expected);

    const mapped = mapResourceRefs(definitionOf(sample), (ref) => `id-of-${ref.ref}`).nodes[0];
    expect(mapped).toBeDefined();
    if (mapped === undefined) return;
    expect(changedFields(sample, mapped)).toEqual(EXPECTED[kind].refs.map(({ field }) => field));
    expect(definitionResourceRefs(definitionOf(mapped)).map((ref) => ref.ref)).toEqual(expected.map((ref) => `id-of-${String(ref.ref)}`));
  });

  it.each(KINDS)('says whether a %s node is metered and who computes it', (kind) => {
    const nodeKind = nodeKindOf(kind);
    expect(isMeteredNode(SAMPLES[kind])).toBe(EXPECTED[kind].metered);
    expect(nodeKind.render !== undefined).toBe(EXPECTED[kind].renderedByEngine);
    expect(nodeKind.execute !== undefined).toBe(!EXPECTED[kind].renderedByEngine);
  });

  it('types the engine-rendered kinds from the registry', () => {
    const rendered: EngineRenderedKind[] = ['template'];
    expect(KINDS.filter((kind) => nodeKindOf(kind).render !== undefined)).toEqual(rendered);
  });
});

describe('executeNodeWith', () => {
  const persona: ContextCardRecord = {
    id: 'p1',
    accountId: 'a',
    title: 'House',
    content: 'You are the house voice.',
    category: 'persona',
    tags: [],
    description: null,
    emoji: null,
    createdAt: 0,
    updatedAt: 0,
    version: 1,
    bundleKey: null,
  };
  const skill: SkillRecord = {
    id: 's1',
    accountId: 'a',
    name: 'Writer',
    description: '',
    category: 'writing',
    instructions: 'Write {{a}}.',
    model: 'echo/skill-default',
    createdAt: 0,
    updatedAt: 0,
    version: 1,
    bundleKey: null,
  };
  const composition: CompositionRecord = {
    id: 'c1',
    accountId: 'a',
    name: 'Polisher',
    description: '',
    tags: [],
    template: 'Polish {{x}}',
    variables: [{ name: 'x', required: true }],
    defaultModel: 'echo/composition-default',
    timesUsed: 0,
    createdAt: 0,
    updatedAt: 0,
    version: 1,
    bundleKey: null,
  };

  /** Services that record each call and answer fixed values; messages are built for real. */
  function recordingServices(calls: unknown[]): NodeServices {
    const answer = <T>(call: unknown, value: T): Promise<T> => {
      calls.push(call);
      return Promise.resolve(value);
    };
    return {
      callModel: (messages, model, options) => answer({ callModel: { messages, model, options } }, { output: 'answer' }),
      getPersona: (ref) => answer({ getPersona: ref }, persona),
      getSkill: (ref) => answer({ getSkill: ref }, skill),
      getComposition: (ref) => answer({ getComposition: ref }, composition),
      messages: { skill: skillMessages, composition: compositionMessages, persona: personaMessages },
      scan: (text) => answer({ scan: text }, { findings: [], severity: 'none' }),
      judge: (input) => answer({ judge: input }, { output: { verdict: 'pass', score: 9 } }),
    };
  }

  async function run(node: ExecutableNode): Promise<{ calls: unknown[]; output: unknown }> {
    const calls: unknown[] = [];
    const ran = (resource: unknown) => calls.push({ ran: resource });
    const result = await executeNodeWith(recordingServices(calls))(node, node, { signal: new AbortController().signal, nodeId: node.id, ran });
    return { calls, output: result.output };
  }

  it('runs a model node with the persona before the system message', async () => {
    const { calls } = await run({ ...SAMPLES.model, system: 'Be brief.', prompt: 'Hello' });
    expect(calls).toEqual([
      { getPersona: 'voice' },
      {
        callModel: {
          messages: [
            { role: 'system', content: 'You are the house voice.\n\nBe brief.' },
            { role: 'user', content: 'Hello' },
          ],
          model: { requested: 'echo/echo' },
          options: { temperature: 0.5, maxOutputTokens: 10 },
        },
      },
    ]);
  });

  it("runs skill, composition and persona nodes with their resource's messages and default model", async () => {
    expect((await run({ ...SAMPLES.skill, input: 'text', variables: { a: 'dryly' } })).calls).toEqual([
      { getSkill: 'writer' },
      { ran: { id: skill.id, version: 1 } },
      {
        callModel: {
          messages: [
            { role: 'system', content: 'Write dryly.' },
            { role: 'user', content: 'text' },
          ],
          model: { requested: 'echo/echo', resourceDefault: 'echo/skill-default' },
          options: {},
        },
      },
    ]);
    expect((await run({ ...SAMPLES.composition, variables: { x: 'this' } })).calls).toEqual([
      { getComposition: 'polisher' },
      { ran: { id: 'c1', version: 1 } },
      {
        callModel: {
          messages: [{ role: 'user', content: 'Polish this' }],
          model: { requested: 'echo/echo', resourceDefault: 'echo/composition-default' },
          options: {},
        },
      },
    ]);
    expect((await run({ ...SAMPLES.persona, input: 'in', context: 'ctx' })).calls).toEqual([
      { getPersona: 'house' },
      { ran: { id: persona.id, version: persona.version } },
      {
        callModel: {
          messages: [
            { role: 'system', content: 'You are the house voice.' },
            { role: 'user', content: 'in\n\nctx' },
          ],
          model: { requested: 'echo/echo' },
          options: { temperature: 0 },
        },
      },
    ]);
  });

  it('answers the scan and the judge result objects as the node output', async () => {
    expect(await run({ ...SAMPLES.sanitise, text: 'secret' })).toEqual({
      calls: [{ scan: 'secret' }],
      output: { findings: [], severity: 'none' },
    });
    expect(await run({ ...SAMPLES.judge, prompt: 'draft', criteria: 'clear' })).toEqual({
      calls: [{ judge: { prompt: 'draft', criteria: 'clear', model: 'echo/echo' } }],
      output: { verdict: 'pass', score: 9 },
    });
  });
});
