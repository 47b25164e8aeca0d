import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PorchError } from '../../../src/core/errors.js';
import {
  MAX_RENDERED_CHARACTERS,
  MissingVariableError,
  formatTemplateValue,
  parseTemplate,
  renderTemplate,
  templateReferences,
} from '../../../src/core/engine/template.js';

function from(values: Record<string, unknown>): (name: string) => unknown {
  return (name) => (Object.hasOwn(values, name) ? values[name] : undefined);
}

function missingOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof MissingVariableError) return err.missing;
    throw err;
  }
  throw new Error('expected a MissingVariableError');
}

describe('renderTemplate', () => {
  it(`refuses to render more than ${MAX_RENDERED_CHARACTERS.toLocaleString('en')} characters, before building the text`, () => {
    // Regression: "{{v}}" repeated over a large value rendered without bound.
    const value = 'x'.repeat(MAX_RENDERED_CHARACTERS / 4);
    expect(renderTemplate('{{v}}{{v}}{{v}}{{v}}', from({ v: value }))).toHaveLength(MAX_RENDERED_CHARACTERS);
    expect(() => renderTemplate('{{v}}{{v}}{{v}}{{v}}!', from({ v: value }))).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining('renders to more than 2,000,000 characters') }),
    );
  });

  it('substitutes names, with or without whitespace inside the braces', () => {
    const text = renderTemplate('Hi {{name}}, {{ greeting }} and {{\tname\n}}!', from({ name: 'Ada', greeting: 'welcome' }));
    expect(text).toBe('Hi Ada, welcome and Ada!');
  });

  it('accepts identifiers with digits, underscores and hyphens', () => {
    expect(renderTemplate('{{_a1}} {{fact-check}} {{B_2-x}}', from({ _a1: 1, 'fact-check': 'ok', 'B_2-x': 'y' }))).toBe('1 ok y');
  });

  it('renders numbers and booleans with String, objects and arrays as JSON, null as empty', () => {
    const values = { n: 4.5, yes: true, obj: { a: 1, b: ['x'] }, list: [1, 'two'], nothing: null };
    expect(renderTemplate('{{n}}|{{yes}}|{{obj}}|{{list}}|{{nothing}}|', from(values))).toBe('4.5|true|{"a":1,"b":["x"]}|[1,"two"]||');
  });

  it('does not re-expand braces that appear inside a substituted value', () => {
    expect(renderTemplate('{{a}}', from({ a: '{{b}}', b: 'no' }))).toBe('{{b}}');
  });

  it('picks fields of an object value with a property path', () => {
    const review = { score: 82, verdict: 'pass', detail: { reasons: ['clear'] } };
    expect(renderTemplate('{{review.score}} {{ review.verdict }} {{review.detail.reasons}}', from({ review }))).toBe('82 pass ["clear"]');
  });

  it('treats a property path into a non-object or an absent field as missing', () => {
    const values = { review: { score: 1 }, text: 'plain' };
    expect(missingOf(() => renderTemplate('{{review.verdict}} {{text.length}} {{review.score.x}}', from(values)))).toEqual([
      'review.verdict',
      'text.length',
      'review.score.x',
    ]);
  });

  it('never walks into inherited properties such as constructor or __proto__', () => {
    const values = { obj: { a: 1 } };
    expect(missingOf(() => renderTemplate('{{obj.constructor}} {{obj.__proto__}} {{obj.toString}}', from(values)))).toEqual([
      'obj.constructor',
      'obj.__proto__',
      'obj.toString',
    ]);
  });

  it('throws one VALIDATION_ERROR naming every missing variable once, in order', () => {
    let caught: unknown;
    try {
      renderTemplate('{{b}} {{a}} {{present}} {{b}} {{c.d}}', from({ present: 'x' }));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MissingVariableError);
    expect(caught).toBeInstanceOf(PorchError);
    const error = caught as MissingVariableError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.missing).toEqual(['b', 'a', 'c.d']);
    expect(error.message).toBe('Missing required variables: b, a, c.d');
  });

  it('renders `\\{{` as a literal `{{` and leaves what follows as text', () => {
    expect(renderTemplate('Use \\{{name}} for {{name}}', from({ name: 'Ada' }))).toBe('Use {{name}} for Ada');
    expect(renderTemplate('\\{{', from({}))).toBe('{{');
  });

  it('keeps backslashes that do not precede `{{`', () => {
    expect(renderTemplate('C:\\path \\n {{x}}\\', from({ x: 1 }))).toBe('C:\\path \\n 1\\');
  });

  it('renders an unterminated `{{` and non-name braces as literal text', () => {
    const values = from({ a: 'A' });
    expect(renderTemplate('open {{ a', values)).toBe('open {{ a');
    expect(renderTemplate('{{}} {{ }} {{1x}} {{a b}} {{a.}} {{.a}} {{a}', values)).toBe('{{}} {{ }} {{1x}} {{a b}} {{a.}} {{.a}} {{a}');
    expect(renderTemplate('{{a}}}', values)).toBe('A}');
  });

  it('finds a reference inside extra braces, as in {{{a}}}', () => {
    expect(renderTemplate('{{{a}}}', from({ a: 'A' }))).toBe('{A}');
  });

  it('renders the empty template as the empty string', () => {
    expect(renderTemplate('', from({}))).toBe('');
  });

  it('renders a compiled template many times with different values', () => {
    const compiled = parseTemplate('Dear {{ who }},');
    expect(renderTemplate(compiled, from({ who: 'A' }))).toBe('Dear A,');
    expect(renderTemplate(compiled, from({ who: 'B' }))).toBe('Dear B,');
  });

  it('leaves text without references unchanged, for any text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!text.includes('{{'));
        expect(renderTemplate(text, () => undefined)).toBe(text);
      }),
    );
  });

  it('never throws while parsing arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '\\', ' ', 'a', '.', '-', '1') }), (text) => {
        const compiled = parseTemplate(text);
        // With every name bound, rendering succeeds too.
        expect(typeof renderTemplate(compiled, () => 'v')).toBe('string');
      }),
    );
  });

  it('parses and renders adversarial megabyte inputs in linear time', () => {
    // A quadratic scan over these would take minutes; linear work takes milliseconds.
    const inputs = ['{'.repeat(1_000_000), '{{ a'.repeat(250_000), '{{a.'.repeat(250_000), '\\{{'.repeat(300_000), `{{${'a'.repeat(1_000_000)}`];
    const started = performance.now();
    for (const input of inputs) renderTemplate(input, () => 'v');
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('templateReferences', () => {
  it('lists unique root names in order of first appearance', () => {
    expect(templateReferences('{{b}} {{a.x}} {{b}} {{ a.y }} {{c}} \\{{d}} {{ e')).toEqual(['b', 'a', 'c']);
  });

  it('answers the same for a string and its compiled template', () => {
    const source = '{{x}} {{y.z}}';
    expect(templateReferences(parseTemplate(source))).toEqual(templateReferences(source));
  });
});

describe('formatTemplateValue', () => {
  it('formats undefined-free JSON values and falls back to empty for unserialisable ones', () => {
    expect(formatTemplateValue('s')).toBe('s');
    expect(formatTemplateValue(0)).toBe('0');
    expect(formatTemplateValue(false)).toBe('false');
    expect(formatTemplateValue(undefined)).toBe('');
  });
});
