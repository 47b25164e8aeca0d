import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DETECTORS } from '../../../src/core/sanitiser/detectors/index.js';
import { NUMBER_RUN, nextNumberRun } from '../../../src/core/sanitiser/detectors/numbers.js';

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

describe('the number-run search', () => {
  /** Every match of NUMBER_RUN, as its own global search finds them. */
  function regexRuns(text: string): [number, number][] {
    const pattern = new RegExp(NUMBER_RUN.source, 'g');
    return [...text.matchAll(pattern)].map((match) => [match.index, match.index + match[0].length]);
  }

  function searchedRuns(text: string): [number, number][] {
    const runs: [number, number][] = [];
    for (let run = nextNumberRun(text, 0); run !== null; run = nextNumberRun(text, run.end)) runs.push([run.start, run.end]);
    return runs;
  }

  it('finds exactly the runs a search with NUMBER_RUN finds, leading + and ( included', () => {
    fc.assert(
      fc.property(digitSoup, (text) => {
        expect(searchedRuns(text)).toEqual(regexRuns(text));
      }),
      { numRuns: 5_000 },
    );
    expect(searchedRuns('call (+1) (555) 010-9999 or ++44 20 7946 0958')).toEqual(regexRuns('call (+1) (555) 010-9999 or ++44 20 7946 0958'));
  });
});
