/**
 * The one wording of validation problems: paths in one syntax, and zod's own parser-like words
 * ("Too small: expected string to have >=1 characters") said as Porch's other messages are,
 * while a schema's message of its own is kept as written.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodError } from '../../src/core/validation.js';

function problem(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a problem');
  return formatZodError(parsed.error, { root: 'body' });
}

describe("zod's default words", () => {
  it('are said plainly (regression: "Too small: expected string to have >=1 characters" reached the console)', () => {
    const schema = z.object({
      name: z.string().min(1).max(5),
      tags: z.array(z.string()).min(1).max(2),
      count: z.number().int().min(1).max(10),
      share: z.number().gt(0),
      status: z.enum(['queued', 'running']),
      kind: z.literal('skill'),
    });
    expect(problem(schema, {})).toBe(
      'body.name: is required; body.tags: is required; body.count: is required; body.share: is required; body.status: must be one of queued, running; body.kind: must be "skill"',
    );
    expect(problem(schema, { name: '', tags: [], count: 0, share: 0, status: 'bogus', kind: 'other' })).toBe(
      'body.name: must not be empty; body.tags: must not be empty; body.count: must be at least 1; body.share: must be more than 0; body.status: must be one of queued, running; body.kind: must be "skill"',
    );
    expect(problem(schema, { name: 'toolong', tags: ['a', 'b', 'c'], count: 11, share: 1, status: 'queued', kind: 'skill' })).toBe(
      'body.name: must be at most 5 characters; body.tags: must have at most 2 items; body.count: must be at most 10',
    );
    expect(problem(schema, { name: 7, tags: 'a', count: '3', share: 1, status: 'queued', kind: 'skill' })).toBe(
      'body.name: must be a string; body.tags: must be an array; body.count: must be a number',
    );
  });

  it('leave a message the schema gives as written', () => {
    expect(problem(z.object({ name: z.string().min(3, 'must name the thing') }), { name: 'x' })).toBe('body.name: must name the thing');
  });
});
