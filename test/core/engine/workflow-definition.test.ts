import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MAX_NODES,
  MAX_TEMPLATE_LENGTH,
  WorkflowDefinitionError,
  definitionResourceRefs,
  mapResourceRefs,
  nodeTemplateFields,
  requiredWithDefaultIssues,
  validateWorkflowDefinition,
  workflowDefinitionSchema,
  type WorkflowDefinition,
} from '../../../src/core/engine/workflow-definition.js';

/** The example from the definition format's documentation: every node kind once. */
const ARTICLE_WORKFLOW = {
  variables: [
    { name: 'topic', required: true, description: 'Subject of the article' },
    { name: 'tone', default: 'friendly' },
  ],
  nodes: [
    { id: 'research', kind: 'model', prompt: 'List 3 facts about {{topic}}', model: 'echo/echo', temperature: 0.2, persona: 'researcher' },
    { id: 'outline', kind: 'template', template: 'Facts:\n{{research}}\nTone: {{tone}}' },
    { id: 'draft', kind: 'skill', skill: 'blog-writer', input: '{{outline}}', variables: { tone: '{{tone}}' } },
    { id: 'polish', kind: 'composition', composition: 'polisher', variables: { text: '{{draft}}' }, model: 'echo/echo' },
    { id: 'voice', kind: 'persona', persona: 'house-voice', input: '{{polish}}', context: 'Topic: {{topic}}' },
    { id: 'scrub', kind: 'sanitise', text: '{{voice}}' },
    { id: 'review', kind: 'judge', prompt: '{{voice}}', criteria: 'Accurate about {{topic}}' },
  ],
  outputs: { article: 'voice', findings: 'scrub', score: 'review' },
};

function clone<T>(value: T): T {
  return structuredClone(value);
}

function validationMessage(input: unknown): string {
  try {
    validateWorkflowDefinition(input);
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowDefinitionError);
    const error = err as WorkflowDefinitionError;
    expect(error.code).toBe('VALIDATION_ERROR');
    return error.message;
  }
  throw new Error('expected the definition to be rejected');
}

describe('validateWorkflowDefinition', () => {
  it('accepts the documented example with every node kind and applies defaults', () => {
    const definition = validateWorkflowDefinition(ARTICLE_WORKFLOW);
    expect(definition.nodes.map((node) => node.kind)).toEqual(['model', 'template', 'skill', 'composition', 'persona', 'sanitise', 'judge']);
    expect(definition.variables).toEqual([
      { name: 'topic', required: true, description: 'Subject of the article' },
      { name: 'tone', required: false, default: 'friendly' },
    ]);
    expect(definition.outputs).toEqual(ARTICLE_WORKFLOW.outputs);
  });

  it('names the path and the misspelt reference, with a suggestion', () => {
    const input = clone(ARTICLE_WORKFLOW);
    input.nodes[2] = { ...input.nodes[2], input: 'Write from {{drfat}}' } as (typeof input.nodes)[number];
    expect(validationMessage(input)).toContain('nodes[2].input: references unknown name "drfat"');
    input.nodes[5] = { id: 'scrub', kind: 'sanitise', text: '{{voise}}' } as (typeof input.nodes)[number];
    const message = validationMessage(input);
    expect(message).toContain('nodes[5].text: references unknown name "voise" (did you mean "voice"?)');
  });

  it('reports dangling references in node variable maps with their key', () => {
    const input = clone(ARTICLE_WORKFLOW);
    input.nodes[3] = { id: 'polish', kind: 'composition', composition: 'p', variables: { text: '{{nowhere}}' } } as (typeof input.nodes)[number];
    expect(validationMessage(input)).toContain('nodes[3].variables.text: references unknown name "nowhere"');
  });

  it('checks only the root of a property path against known names', () => {
    const definition = validateWorkflowDefinition({
      nodes: [
        { id: 'review', kind: 'judge', prompt: 'x' },
        { id: 'report', kind: 'template', template: 'Score {{ review.score }}' },
      ],
    });
    expect(definition.nodes).toHaveLength(2);
    expect(validationMessage({ nodes: [{ id: 'report', kind: 'template', template: '{{ reveiw.score }}' }] })).toContain('references unknown name "reveiw"');
  });

  it('rejects a two-node cycle and names it', () => {
    const message = validationMessage({
      nodes: [
        { id: 'a', kind: 'template', template: 'from {{b}}' },
        { id: 'b', kind: 'template', template: 'from {{a}}' },
      ],
    });
    expect(message).toContain('nodes: dependency cycle a -> b -> a');
  });

  it('names only the nodes on the cycle, in data-flow order', () => {
    const message = validationMessage({
      nodes: [
        { id: 'start', kind: 'template', template: 'go' },
        { id: 'x', kind: 'template', template: '{{start}} {{z}}' },
        { id: 'y', kind: 'template', template: '{{x}}' },
        { id: 'z', kind: 'template', template: '{{y}}' },
        { id: 'after', kind: 'template', template: '{{z}}' },
      ],
    });
    // y reads x, z reads y, x reads z: data flows x -> y -> z -> x.
    expect(message).toContain('dependency cycle x -> y -> z -> x');
    expect(message).not.toContain('start');
    expect(message).not.toContain('after');
  });

  it('rejects a node that reads itself', () => {
    expect(validationMessage({ nodes: [{ id: 'loop', kind: 'model', prompt: 'again {{loop}}' }] })).toContain('dependency cycle loop -> loop');
  });

  it('rejects duplicate node ids and duplicate variable names', () => {
    const message = validationMessage({
      variables: [{ name: 'v' }, { name: 'v' }],
      nodes: [
        { id: 'n', kind: 'template', template: 'a' },
        { id: 'n', kind: 'template', template: 'b' },
      ],
    });
    expect(message).toContain('variables[1].name: duplicate variable "v" (also variables[0])');
    expect(message).toContain('nodes[1].id: duplicate node id "n" (also nodes[0])');
  });

  it('rejects a node id that is also a variable name', () => {
    expect(validationMessage({ variables: [{ name: 'topic' }], nodes: [{ id: 'topic', kind: 'template', template: 'x' }] })).toContain(
      'nodes[0].id: "topic" is also a variable name',
    );
  });

  it('refuses __proto__ as a node id or variable name (regression: a final node so named vanished from the outputs)', () => {
    expect(validationMessage({ nodes: [{ id: '__proto__', kind: 'template', template: 'x' }] })).toContain(
      'nodes[0].id: is not a name any input may use (__proto__)',
    );
    expect(validationMessage({ variables: [{ name: '__proto__' }], nodes: [{ id: 'n', kind: 'template', template: 'x' }] })).toContain(
      'variables[0].name: is not a name any input may use',
    );
  });

  it('rejects outputs that point at unknown nodes or at variables', () => {
    const message = validationMessage({
      variables: [{ name: 'topic' }],
      nodes: [{ id: 'voice', kind: 'template', template: '{{topic}}' }],
      outputs: { article: 'voise', raw: 'topic' },
    });
    expect(message).toContain('outputs.article: references unknown node "voise" (did you mean "voice"?)');
    expect(message).toContain('outputs.raw: references unknown node "topic"');
  });

  it('defaults the outputs to the nodes no other node reads', () => {
    const definition = validateWorkflowDefinition({
      nodes: [
        { id: 'a', kind: 'template', template: 'a' },
        { id: 'b', kind: 'template', template: '{{a}}' },
        { id: 'c', kind: 'template', template: '{{a}}' },
      ],
    });
    expect(definition.outputs).toEqual({ b: 'b', c: 'c' });
  });

  it('requires at least one node', () => {
    expect(validationMessage({ nodes: [] })).toContain('nodes: a workflow needs at least one node');
    expect(validationMessage({})).toContain('nodes:');
  });

  it('enforces the node and template length limits', () => {
    const tooMany = Array.from({ length: MAX_NODES + 1 }, (_, index) => ({ id: `n${index}`, kind: 'template', template: 'x' }));
    expect(validationMessage({ nodes: tooMany })).toContain(`nodes: at most ${MAX_NODES} nodes`);
    const longPrompt = 'x'.repeat(MAX_TEMPLATE_LENGTH + 1);
    expect(validationMessage({ nodes: [{ id: 'm', kind: 'model', prompt: longPrompt }] })).toContain(
      `nodes[0].prompt: must be at most ${MAX_TEMPLATE_LENGTH} characters`,
    );
  });

  it('rejects unknown kinds, unknown fields and bad field values with their paths', () => {
    expect(validationMessage({ nodes: [{ id: 'a', kind: 'shell', command: 'rm' }] })).toContain('nodes[0].kind:');
    expect(validationMessage({ nodes: [{ id: 'a', kind: 'model', prompt: 'x', promt: 'y' }] })).toContain('nodes[0]: Unrecognized key: "promt"');
    const message = validationMessage({
      nodes: [{ id: '1bad', kind: 'model', prompt: 'x', temperature: 1.5, model: 'gpt', max_output_tokens: 0 }],
    });
    expect(message).toContain('nodes[0].id: must start with a letter or underscore');
    expect(message).toContain('nodes[0].temperature: must be between 0 and 1');
    expect(message).toContain('nodes[0].model: must be a model id of the form <provider>/<model_name>');
    expect(message).toContain('nodes[0].max_output_tokens: must be at least 1');
  });

  it('rejects a required variable that also has a default', () => {
    expect(
      validationMessage({ variables: [{ name: 'v', required: true, default: 'x' }], nodes: [{ id: 'n', kind: 'template', template: '{{v}}' }] }),
    ).toContain('variables[0].default: a required variable cannot have a default');
  });

  it("holds any list of declarations to that rule under the path given (a composition's, in a bundle)", () => {
    const variables = [
      { name: 'a', required: true },
      { name: 'b', required: true, default: 0 },
      { name: 'c', required: false, default: 'x' },
      { name: 'd', required: true, default: false },
    ];
    expect(requiredWithDefaultIssues(variables, ['compositions', 2, 'variables'])).toEqual([
      { path: ['compositions', 2, 'variables', 1, 'default'], message: 'a required variable cannot have a default (drop one of them)' },
      { path: ['compositions', 2, 'variables', 3, 'default'], message: 'a required variable cannot have a default (drop one of them)' },
    ]);
  });

  it('prefixes every path when given a bundle location', () => {
    try {
      validateWorkflowDefinition({ nodes: [{ id: 'n', kind: 'template', template: '{{gone}}' }] }, { root: ['workflows', 3, 'definition'] });
      expect.unreachable('the definition should be rejected');
    } catch (err) {
      const error = err as WorkflowDefinitionError;
      expect(error.issues).toEqual([{ path: ['workflows', 3, 'definition', 'nodes', 0, 'template'], message: 'references unknown name "gone"' }]);
      expect(error.message).toContain('workflows[3].definition.nodes[0].template: references unknown name "gone"');
    }
  });

  it('does not look for cycles through unknown names', () => {
    const message = validationMessage({ nodes: [{ id: 'a', kind: 'template', template: '{{b}}' }] });
    expect(message).not.toContain('cycle');
  });

  it('describes every field of the schema for the API documentation', () => {
    const undescribed: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      const properties = node.properties;
      if (typeof properties === 'object' && properties !== null) {
        for (const [name, property] of Object.entries(properties)) {
          if (typeof (property as { description?: unknown }).description !== 'string') undescribed.push(`${path}.${name}`);
          visit(property, `${path}.${name}`);
        }
      }
      for (const key of ['items', 'additionalProperties']) visit(node[key], `${path}[]`);
      const variants = node.oneOf ?? node.anyOf;
      if (Array.isArray(variants)) for (const [index, variant] of variants.entries()) visit(variant, `${path}<${index}>`);
    };
    const jsonSchema = z.toJSONSchema(workflowDefinitionSchema, { io: 'input' });
    visit(jsonSchema, '');
    expect(undescribed).toEqual([]);
    // The walk must have reached the node variants, or it proves nothing.
    expect(JSON.stringify(jsonSchema)).toContain('Template of the text to judge.');
  });
});

describe('nodeTemplateFields', () => {
  it('lists the template fields of each kind, and never the resource or model fields', () => {
    const definition = validateWorkflowDefinition(ARTICLE_WORKFLOW);
    expect(definition.nodes.map((node) => nodeTemplateFields(node).map((field) => field.path))).toEqual([
      ['prompt'],
      ['template'],
      ['input', 'variables.tone'],
      ['variables.text'],
      ['input', 'context'],
      ['text'],
      ['prompt', 'criteria'],
    ]);
  });
});

describe('resource references', () => {
  it('lists the skill, composition and persona refs with their nodes', () => {
    const definition = validateWorkflowDefinition(ARTICLE_WORKFLOW);
    expect(definitionResourceRefs(definition)).toEqual([
      { nodeId: 'research', kind: 'persona', ref: 'researcher' },
      { nodeId: 'draft', kind: 'skill', ref: 'blog-writer' },
      { nodeId: 'polish', kind: 'composition', ref: 'polisher' },
      { nodeId: 'voice', kind: 'persona', ref: 'house-voice' },
    ]);
  });

  it('replaces refs in a copy and leaves the original untouched', () => {
    const definition: WorkflowDefinition = validateWorkflowDefinition(ARTICLE_WORKFLOW);
    const before = structuredClone(definition);
    const ids: Record<string, string> = {
      researcher: '0196f0a0-0000-7000-8000-000000000001',
      'blog-writer': '0196f0a0-0000-7000-8000-000000000002',
      polisher: '0196f0a0-0000-7000-8000-000000000003',
      'house-voice': '0196f0a0-0000-7000-8000-000000000004',
    };
    const mapped = mapResourceRefs(definition, (ref) => ids[ref.ref] ?? `unmapped:${ref.kind}`);
    expect(definitionResourceRefs(mapped).map((ref) => ref.ref)).toEqual(Object.values(ids));
    expect(definition).toEqual(before);
    expect(mapped.outputs).toEqual(definition.outputs);
    // The mapped definition is still valid as it stands.
    expect(validateWorkflowDefinition(mapped).nodes).toHaveLength(7);
  });
});
