import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitRuns } from '../../../src/core/sanitiser/detectors/digit-shapes.js';
import { forEachNumberRun, NUMBER_RUN } from '../../../src/core/sanitiser/detectors/numbers.js';
import { createSanitiser } from '../../../src/core/sanitiser/index.js';

/**
 * Texts dense in digits and separators, with the shapes where the shared runs alone cannot say
 * what NUMBER_RUN matches: six-character runs followed by more separators, long runs of
 * separators, extensions followed by more digits.
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
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

function numberRunMatches(text: string): [number, number][] {
  return [...text.matchAll(new RegExp(NUMBER_RUN.source, 'g'))].map((match) => [match.index, match.index + match[0].length]);
}

describe('the digit runs the numbers and national-id detectors share', () => {
  it("give the numbers detector exactly NUMBER_RUN's matches, where it must search itself too", () => {
    fc.assert(
      fc.property(digitSoup, (text) => {
        const visited: [number, number][] = [];
        forEachNumberRun(text, digitRuns(text), (start, end) => visited.push([start, end]));
        expect(visited).toEqual(numberRunMatches(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it('do not lose a number after a short run that more separators follow, or inside a long extension', () => {
    for (const text of ['12.345 (415) 555-0134', `123456${' '.repeat(36)}7 and 415 555 0134`, 'call 555-123-4567 x 123456789 or 0044 20 7946 0958']) {
      const visited: [number, number][] = [];
      forEachNumberRun(text, digitRuns(text), (start, end) => visited.push([start, end]));
      expect(visited).toEqual(numberRunMatches(text));
      expect(visited.length).toBeGreaterThan(0);
    }
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
