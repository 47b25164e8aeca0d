import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DETECTORS } from '../../../src/core/sanitiser/detectors/index.js';

/** Texts dense in digits, the separators digit shapes use, and the characters around them. */
const digitSoup = fc
  .array(fc.constantFrom('0', '1', '2', '5', '7', '9', '12', '756', '+', '(', ')', ' ', '-', '.', '/', '\t', 'x', 'ext', '#', 'A', 'S', 'a', '\n'), {
    maxLength: 60,
  })
  .map((parts) => parts.join(''));

describe('presence gates', () => {
  const gated = BUILT_IN_DETECTORS.filter((detector) => detector.presenceGate !== undefined);

  it('are declared by the digit detectors, which then share one test per scan', () => {
    expect(gated.map((detector) => detector.name).sort()).toEqual(['national-ids', 'numbers']);
  });

  it("match every text their detectors' own presence tests match, so a failed gate skips nothing", () => {
    fc.assert(
      fc.property(digitSoup, (text) => {
        for (const detector of gated) {
          if (detector.presenceTest?.test(text) === true) expect(detector.presenceGate?.test(text)).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
