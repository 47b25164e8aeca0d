import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitRuns } from '../../../src/core/sanitiser/detectors/digit-shapes.js';
import { forEachNumberRun, NUMBER_RUN } from '../../../src/core/sanitiser/detectors/numbers.js';
import { createSanitiser } from '../../../src/core/sanitiser/index.js';

/**
 * Texts dense in digits and separators, with the shapes where the shared runs alone cannot say
 * what NUMBER_RUN matches: six-character runs followed by more separators, long runs of
 * separators, extensions followed by more digits; and runs longer than NUMBER_RUN's bound
 * (grouped cards one after another, fifty digits).
 */
const digitSoup = fc
  .array(
    fc.constantFrom(
      '0',
      '1',
      '7',
      '9',
      '123456',
      '0123456789',
      '+',
      '(',
      ')',
      ' ',
      '-',
      '.',
      '/',
      '\t',
      ' '.repeat(17),
      '.'.repeat(9),
      'x',
      'ext.',
      '#',
      ' x 123456789',
      'A',
      'a',
      '\n',
      '4539 1488 0343 6467 ',
      '0123456789'.repeat(5),
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

/**
 * What forEachNumberRun visits: NUMBER_RUN's matches, except where the digits and separators of a
 * match go on past its bound (more than 42 characters from the first digit to the last): there
 * the whole run, with the extension after it, marked long.
 */
const NUMBER_OR_LONG_RUN = new RegExp(
  String.raw`(?<long>(?=[+(]{0,2}\d[\d\-. ()/\t]{5,40}\d)[+(]{0,2}\d[\d\-. ()/\t]{41,}\d(?:\s?(?:x|ext\.?|#)\s?\d{1,6})?)|${NUMBER_RUN.source}`,
  'g',
);

function numberRunMatches(text: string): [number, number, boolean][] {
  return [...text.matchAll(NUMBER_OR_LONG_RUN)].map((match) => [match.index, match.index + match[0].length, match.groups?.long !== undefined]);
}

function visitedRuns(text: string): [number, number, boolean][] {
  const visited: [number, number, boolean][] = [];
  forEachNumberRun(text, digitRuns(text), (start, end, long) => visited.push([start, end, long]));
  return visited;
}

describe('the digit runs the numbers and national-id detectors share', () => {
  it("give the numbers detector NUMBER_RUN's matches, and a run its bound cuts whole, where it must search itself too", () => {
    fc.assert(
      fc.property(digitSoup, (text) => {
        expect(visitedRuns(text)).toEqual(numberRunMatches(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it('do not lose a number after a short run that more separators follow, or inside a long extension', () => {
    for (const text of ['12.345 (415) 555-0134', `123456${' '.repeat(36)}7 and 415 555 0134`, 'call 555-123-4567 x 123456789 or 0044 20 7946 0958']) {
      const visited = visitedRuns(text);
      expect(visited).toEqual(numberRunMatches(text));
      expect(visited.length).toBeGreaterThan(0);
    }
  });

  it('give a run longer than the bound once, whole, so that a megabyte of digits is read once (regression: cards cut at 42 characters were dropped)', () => {
    // Each visit is classified in time proportional to its length: visits that overlapped (a cut
    // run read to its end again from every piece of it) would make a megabyte of digits quadratic.
    const cards = 'cards 4539 1488 0343 6467 4716 2895 3521 3348 4556 7375 8689 9855 on file';
    expect(visitedRuns(cards)).toEqual([[6, 65, true]]);
    for (const text of ['7'.repeat(1_048_576), '4539 1488 0343 6467 '.repeat(52_429), '1.2.'.repeat(262_144), `${'12 '.repeat(349_525)}x`]) {
      const visited = visitedRuns(text);
      expect(visited.length).toBe(1);
      expect(visited[0]?.[2]).toBe(true);
    }
    fc.assert(
      fc.property(digitSoup, (text) => {
        let visitedCharacters = 0;
        let lastEnd = 0;
        forEachNumberRun(text, digitRuns(text), (start, end) => {
          expect(start).toBeGreaterThanOrEqual(lastEnd);
          visitedCharacters += end - start;
          lastEnd = end;
        });
        expect(visitedCharacters).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 1_000 },
    );
  });

  it('find a standalone national id wherever a run of separated digits before it ends, however long', () => {
    // A run stops at 42 characters; an id it cuts is still read from the run that holds its first digit.
    const sanitiser = createSanitiser();
    const ids = [
      ['pii.ch_ahv', '756.6358.6611.24'],
      ['pii.be_national_number', '89.01.05-708.48'],
      ['pii.fr_nir', '1 79 05 10 410 025 54'],
      ['pii.fi_hetu', '210963-760K'],
      ['pii.cn_resident_id', '440305199405019561'],
    ] as const;
    for (const [ruleId, id] of ids) {
      for (const separator of ['.', '/', '-', ' ']) {
        for (let digits = 0; digits <= 46; digits += 1) {
          const before = Array.from({ length: digits }, (_, index) => String(index % 10)).join(separator);
          const text = `ref ${before}${separator}${id} ok`;
          const findings = sanitiser.scan(text).findings.map((finding) => [finding.rule_id, finding.match]);
          expect(findings, text).toContainEqual([ruleId, id]);
        }
      }
    }
  });
});

describe('numbers grouped with no-break spaces', () => {
  it.each([
    ['a phone number', 'Mobile: +33\u00a06\u00a012\u00a034\u00a056\u00a078', 'pii.phone'],
    ['a card number', 'Card 4111\u202f1111\u202f1111\u202f1111 on file', 'pii.payment_card'],
    ['an IBAN', 'IBAN FR14\u00a02004\u00a01010\u00a00505\u00a00001\u00a03M02\u00a0606', 'pii.iban'],
  ])('finds %s whose groups a word processor joined with no-break spaces, matched as sent (regression: missed)', (_, text, ruleId) => {
    const findings = createSanitiser().scan(text).findings;
    expect(findings.map((finding) => finding.rule_id)).toEqual([ruleId]);
    const [finding] = findings;
    expect(finding?.match).toBe(text.slice(finding?.start, finding?.end));
    expect(finding?.match).toMatch(/[\u00a0\u202f]/);
  });
});
