import { describe, expect, it } from 'vitest';
import { isPlaceholderValue, shannonEntropy } from '../../../src/core/sanitiser/validators.js';

/** The textbook definition, kept here as the reference the optimised implementation must match. */
function referenceEntropy(value: string): number {
  const counts = new Map<number, number>();
  for (let index = 0; index < value.length; index += 1) counts.set(value.charCodeAt(index), (counts.get(value.charCodeAt(index)) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) entropy -= (count / value.length) * Math.log2(count / value.length);
  return entropy;
}

describe('shannonEntropy', () => {
  it('gives the textbook value to the last bit for ASCII, non-ASCII and surrogate pairs', () => {
    for (const value of ['', 'aaaa', 'aB3$', 'ünïcödé-ü', 'x😀y😀', 'Zz9'.repeat(20), 'ghp_1234567890abcdefABCDEF', 'пароль123']) {
      expect(shannonEntropy(value)).toBe(referenceEntropy(value));
    }
  });

  it('carries no state from one call to the next', () => {
    const first = shannonEntropy('abcabc');
    shannonEntropy('aaaaaaaaaaaaaaaaaaaaaaaa');
    shannonEntropy('ab😀');
    expect(shannonEntropy('abcabc')).toBe(first);
    expect(first).toBeCloseTo(Math.log2(3), 12);
  });
});

describe('isPlaceholderValue', () => {
  it('treats a slot in angle brackets, escaped or not, as a placeholder', () => {
    for (const value of ['<token>', 'sk-<your key>', '&lt;API_KEY&gt;', 'prefix<>suffix']) expect(isPlaceholderValue(value), value).toBe(true);
  });

  it('does not treat a lone angle bracket in a generated password as one', () => {
    for (const value of ['Tq8>vLr2x', 'k3<Vq9xLm', 'a>b<c']) expect(isPlaceholderValue(value), value).toBe(false);
  });
});
