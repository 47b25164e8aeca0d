/**
 * Typed outputs: an operation's output schema fixes what `run` may answer at compile time (the
 * `@ts-expect-error` lines below fail `npm test`'s type check if a wrong shape ever compiles),
 * and the run-time check catches what a structural type lets through.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { checkOperationOutput, OutputMismatchError } from '../../src/operations/check-output.js';
import type { listWorkflows } from '../../src/operations/list-workflows.js';
import { defineKeyedOperation, type OperationOutput } from '../../src/operations/operation.js';

const output = z.object({ id: z.string().describe('Id.'), count: z.number().int().describe('How many.') });

function counterOperation<Output extends z.ZodType | null>(schema: Output) {
  return {
    name: 'count_things',
    title: 'Count',
    description: 'Counts.',
    method: 'GET',
    path: '/things',
    tag: 'Things',
    effect: 'read',
    successStatus: 200,
    scopes: [],
    output: schema,
  } as const;
}

describe('an operation whose run answers another shape does not compile', () => {
  it('refuses a wrong field type, a missing field and data from a 204 operation', () => {
    defineKeyedOperation({ ...counterOperation(output), run: async () => ({ id: 'a', count: 1 }) });
    // @ts-expect-error count must be a number
    defineKeyedOperation({ ...counterOperation(output), run: async () => ({ id: 'a', count: 'one' }) });
    // @ts-expect-error count is missing
    defineKeyedOperation({ ...counterOperation(output), run: async () => ({ id: 'a' }) });
    // @ts-expect-error a 204 operation answers nothing
    defineKeyedOperation({ ...counterOperation(null), run: async () => ({ id: 'a' }) });
    expect(true).toBe(true);
  });

  it('types OperationOutput as the documented schema', () => {
    expectTypeOf<OperationOutput<typeof listWorkflows>>().toEqualTypeOf<z.output<typeof listWorkflows.output>>();
  });
});

describe('checkOperationOutput', () => {
  const operation = { name: 'count_things', output };

  it('accepts exactly the documented shape', () => {
    expect(() => checkOperationOutput(operation, { id: 'a', count: 1 })).not.toThrow();
  });

  // An extra field compiles (TypeScript checks a returned object structurally), so this check is the guard.
  it('refuses an undocumented field that a structural type lets through', () => {
    const record = { id: 'a', count: 1, accountId: 'leaks' };
    expect(() => checkOperationOutput(operation, record)).toThrow(OutputMismatchError);
  });

  it('refuses a value outside the schema, naming the path', () => {
    expect(() => checkOperationOutput(operation, { id: 'a', count: 1.5 })).toThrow(/count: /);
  });

  it('refuses data from an operation that answers 204', () => {
    expect(() => checkOperationOutput({ name: 'delete_thing', output: null }, { id: 'a' })).toThrow(OutputMismatchError);
  });
});
