/**
 * The one wording of validation problems: paths in one syntax, and zod's own parser-like words
 * ("Too small: expected string to have >=1 characters") said as Porch's other messages are,
 * while a schema's message of its own is kept as written.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodError, nonBlankContent, nonBlankText } from '../../src/core/validation.js';

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

describe('nonBlankText', () => {
  const name = z.object({ name: nonBlankText(10) });

  it('refuses a text of only invisible characters (regression: a name "\\u200b" was stored and looked blank)', () => {
    for (const invisible of ['\u200b', '\u200c\u200d', '\u2060', '\ufeff\u200b', '\u200e\u202e\u2066', '\u3164', '\u00ad', '\u0007', ' \u200b\n']) {
      expect(problem(name, { name: invisible }), JSON.stringify(invisible)).toBe(
        'body.name: must hold a visible character (it holds only invisible ones, such as zero-width spaces)',
      );
    }
  });

  it('tells a blank text only that it is empty', () => {
    expect(problem(name, { name: ' \t\n ' })).toBe('body.name: must not be empty');
    expect(problem(name, { name: '' })).toBe('body.name: must not be empty');
  });

  it('keeps a visible character among invisible ones as sent, only trimmed of whitespace', () => {
    expect(name.parse({ name: ' \u200bA\u200d ' })).toEqual({ name: '\u200bA\u200d' });
    expect(name.parse({ name: '😀' })).toEqual({ name: '😀' });
  });

  it('documents a pattern that accepts exactly the texts it accepts, read with or without the u flag', () => {
    const source = String(z.toJSONSchema(nonBlankText(10)).pattern);
    for (const pattern of [new RegExp(source, 'u'), new RegExp(source)]) {
      for (const text of ['\u200b', '\u2060\ufeff', ' \t ', '\u3164']) expect(pattern.test(text), `${pattern}: ${JSON.stringify(text)}`).toBe(false);
      for (const text of ['a', ' \u200bA ', '😀', 'é', 'Code']) expect(pattern.test(text), `${pattern}: ${JSON.stringify(text)}`).toBe(true);
    }
  });

  it('publishes a pattern of code-point ranges that other engines compile, not the \\p{...} classes JavaScript without u read as letters (regression: "Code" failed)', () => {
    const source = String(z.toJSONSchema(nonBlankText(10)).pattern);
    // Only \xHH and \uHHHH escapes (in capitals, which Go validators rewrite to RE2's \x{HHHH}):
    // Python's re and JavaScript with or without u read them alike.
    expect(source).toMatch(/^\[\^(?:\\x[0-9A-F]{2}|\\u[0-9A-F]{4}|-)+\]$/);
    const withUnicodeFlag = new RegExp(source, 'u');
    const withoutUnicodeFlag = new RegExp(source);
    const server = name.shape.name;
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const text = String.fromCharCode(code);
      const accepted = server.safeParse(text).success;
      if (withUnicodeFlag.test(text) !== accepted || withoutUnicodeFlag.test(text) !== accepted) {
        expect.fail(`U+${code.toString(16).toUpperCase()}: the server ${accepted ? 'accepts' : 'refuses'} it, the pattern does not`);
      }
    }
    // Beyond the BMP the pattern takes every character for visible, with or without u (without,
    // each half of a surrogate pair is outside the class); the server alone refuses a text of
    // only invisible ones there.
    for (const text of ['😀', '\u{1D400}', '\u{E0041}\u{E0042}']) {
      expect(withUnicodeFlag.test(text) && withoutUnicodeFlag.test(text), JSON.stringify(text)).toBe(true);
    }
    expect(server.safeParse('\u{E0041}\u{E0042}').success).toBe(false);
  });
});

describe('nonBlankContent', () => {
  const judged = z.object({ prompt: nonBlankContent(10) });

  it('accepts a text of only invisible characters, which a name may not be, and refuses a blank one', () => {
    for (const invisible of ['\u200b', '\u200c\u200d', '\u{E0041}\u{E0042}']) expect(judged.parse({ prompt: invisible })).toEqual({ prompt: invisible });
    expect(problem(judged, { prompt: ' \u3000\u2028\ufeff ' })).toBe('body.prompt: must not be empty');
  });

  it('documents a pattern that accepts exactly the texts it accepts, read with or without the u flag', () => {
    const source = String(z.toJSONSchema(nonBlankContent(10)).pattern);
    for (const pattern of [new RegExp(source, 'u'), new RegExp(source)]) {
      for (let code = 0; code <= 0xffff; code += 1) {
        if (code >= 0xd800 && code <= 0xdfff) continue;
        const text = String.fromCharCode(code);
        if (pattern.test(text) !== judged.shape.prompt.safeParse(text).success) expect.fail(`${pattern}: U+${code.toString(16).toUpperCase()}`);
      }
    }
  });
});
