/**
 * YAML parsing for bundles, config and SKILL.md. Duplicate keys are refused, naming the key and
 * its line, and the time grows linearly with the number of keys (regression: the package's own
 * duplicate check compares every key with every earlier one, so 40,000 keys took 10-34 s).
 *
 * The growth check compares 20,000 keys with 2,000 (the fastest of a few runs each). Measured here:
 * linear parsing grows about 5x, the quadratic check about 21x (part of the small case is already
 * quadratic); the limit allows 15x, and never less than a floor. Both are timed in CPU time of this
 * process (the suite runs each file in a process of its own), not wall time: on a loaded machine
 * wall time took 16x (40 and 643 ms) while the parse itself had not changed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseYaml, stringifyYamlForAnyParser } from '../../src/core/yaml.js';

const MAX_GROWTH = 15;
/** Below this the measurement is noise (GC pauses, scheduling). */
const FLOOR_MS = 400;

function mapOfKeys(count: number): string {
  return `cards:\n${Array.from({ length: count }, (_, index) => `  key${index}: value ${index}`).join('\n')}\n`;
}

function fastestMs(text: string, runs: number): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = process.cpuUsage();
    parseYaml(text);
    const { user, system } = process.cpuUsage(started);
    fastest = Math.min(fastest, (user + system) / 1_000);
  }
  return fastest;
}

describe('parseYaml', () => {
  it('parses plain values, nested maps and lists', () => {
    expect(parseYaml('a: 1\nb:\n  - x\n  - { c: true }\n')).toEqual({ a: 1, b: ['x', { c: true }] });
    expect(parseYaml('')).toBeNull();
  });

  it('refuses a duplicate key, naming it and its line, at any depth', () => {
    expect(() => parseYaml('a: 1\nb: 2\na: 3\n')).toThrow('Map keys must be unique: "a" appears twice at line 3');
    expect(() => parseYaml('outer:\n  inner: 1\n  inner: 2\n')).toThrow(/"inner" appears twice at line 3/);
    expect(parseYaml('one:\n  same: 1\ntwo:\n  same: 2\n')).toEqual({ one: { same: 1 }, two: { same: 2 } });
  });

  it('reports a syntax error with its position', () => {
    expect(() => parseYaml('a: [1, 2\n')).toThrow(/line/);
  });

  it('bounds alias expansion', () => {
    const laughs = `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`;
    expect(() => parseYaml(laughs, { maxAliasCount: 10 })).toThrow(/alias/i);
  });

  it('takes time linear in the number of keys', () => {
    const small = fastestMs(mapOfKeys(2_000), 3);
    const large = fastestMs(mapOfKeys(20_000), 2);
    expect(large, `2,000 keys: ${small.toFixed(1)} ms, 20,000 keys: ${large.toFixed(1)} ms`).toBeLessThan(Math.max(FLOOR_MS, small * MAX_GROWTH));
  });
});

describe('stringifyYamlForAnyParser', () => {
  afterEach(() => vi.restoreAllMocks());

  it('quotes a value that reads as a map, such as {{name}}, without printing process warnings (regression: "Keys with collection values will be stringified")', () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const text = stringifyYamlForAnyParser({ template: '{{name}}', other: '{a: 1}', plain: 'plain words', date: '2026-05-05' });
    expect(text).toBe('template: "{{name}}"\nother: "{a: 1}"\nplain: plain words\ndate: "2026-05-05"\n');
    expect(parseYaml('key: {{name}}\n')).toEqual({ key: { '{ name }': null } });
    expect(emitWarning).not.toHaveBeenCalled();
  });
});
