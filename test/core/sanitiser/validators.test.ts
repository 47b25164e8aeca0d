import { describe, expect, it } from 'vitest';
import { shannonEntropy } from '../../../src/core/sanitiser/validators.js';

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
