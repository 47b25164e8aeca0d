/**
 * A workflow node without a `kind`, or with one no node kind has, is told so in Porch's words,
 * over REST (create and update) as in a definition checked on its own (regression: zod's
 * `Invalid discriminator value. Expected 'model' | 'template' | ...` reached the caller).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateWorkflowDefinition, WorkflowDefinitionError } from '../../src/core/engine/workflow-definition.js';
import { NODE_KINDS } from '../../src/core/engine/node-kinds/index.js';
import { formatZodError } from '../../src/core/validation.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const KINDS = NODE_KINDS.map((kind) => kind.kind).join(', ');

let harness: Harness;
let key: string;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  ({ key } = await harness.expertWithKey());
});
afterAll(() => harness.close());

describe('a workflow node’s kind', () => {
  it('is required, naming the kinds, when left out, and must be one of them when unknown, on create', async () => {
    const missing = await harness.api('POST', '/workflows', {
      key,
      body: {
        name: 'Triage',
        nodes: [
          { id: 'classify', kind: 'template', template: 'x' },
          { id: 'answer', template: 'y' },
        ],
      },
    });
    expect(missing.status, describeResponse(missing)).toBe(400);
    expect(missing.body.error.message).toBe(`Invalid request: body.nodes[1].kind: is required: one of ${KINDS}.`);
    const unknown = await harness.api('POST', '/workflows', { key, body: { name: 'Triage', nodes: [{ id: 'classify', kind: 'classifier', template: 'x' }] } });
    expect(unknown.status, describeResponse(unknown)).toBe(400);
    expect(unknown.body.error.message).toBe(`Invalid request: body.nodes[0].kind: must be one of ${KINDS}.`);
  });

  it('is worded the same on update', async () => {
    const created = await harness.api<{ id: string }>('POST', '/workflows', {
      key,
      body: { name: 'Triage', nodes: [{ id: 'a', kind: 'template', template: 'x' }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const updated = await harness.api('PATCH', `/workflows/${created.body.data.id}`, { key, body: { nodes: [{ id: 'a', template: 'x' }] } });
    expect(updated.status, describeResponse(updated)).toBe(400);
    expect(updated.body.error.message).toBe(`Invalid request: body.nodes[0].kind: is required: one of ${KINDS}.`);
  });

  it('is worded the same by the definition check, with its other schema problems in Porch’s words too', () => {
    const problems = (input: unknown) => {
      try {
        validateWorkflowDefinition(input);
      } catch (err) {
        if (err instanceof WorkflowDefinitionError) return err.issues;
        throw err;
      }
      throw new Error('expected a refusal');
    };
    expect(problems({ nodes: [{ id: 'a', template: 'x' }] })).toEqual([{ path: ['nodes', 0, 'kind'], message: `is required: one of ${KINDS}` }]);
    expect(problems({ nodes: [{ id: 'a', kind: 5, template: 'x' }] })).toEqual([{ path: ['nodes', 0, 'kind'], message: `must be one of ${KINDS}` }]);
    expect(problems({})).toEqual([{ path: ['nodes'], message: 'is required' }]);
  });

  it('of another discriminated union, one given no message of its own, is still said plainly', () => {
    const schema = z.object({ part: z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b') })]) });
    const parsed = schema.safeParse({ part: { type: 'c' } });
    if (parsed.success) throw new Error('expected a refusal');
    expect(formatZodError(parsed.error, { root: 'body' })).toBe('body.part.type: must be one of a, b');
  });
});
