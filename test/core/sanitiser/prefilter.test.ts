import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DETECTORS } from '../../../src/core/sanitiser/detectors/index.js';
import { keywordKey, Prefilter } from '../../../src/core/sanitiser/prefilter.js';

const prefilter = new Prefilter(BUILT_IN_DETECTORS);

interface KeywordSpec {
  readonly text: string;
  readonly caseSensitive: boolean;
  /** Whether the keyword's detector uses an occurrence right after a letter or digit. */
  readonly usefulAfterWordCharacter: boolean;
}

const KEYWORDS: readonly KeywordSpec[] = (() => {
  const afterWord = new Set(BUILT_IN_DETECTORS.flatMap((detector) => detector.keywordsAfterWordCharacters ?? []));
  const specs = new Map<string, KeywordSpec>();
  for (const detector of BUILT_IN_DETECTORS) {
    for (const keyword of detector.keywords ?? []) {
      specs.set(keywordKey(keyword, false), { text: keyword.toLowerCase(), caseSensitive: false, usefulAfterWordCharacter: true });
    }
    for (const keyword of detector.caseSensitiveKeywords ?? []) {
      specs.set(keywordKey(keyword, true), { text: keyword, caseSensitive: true, usefulAfterWordCharacter: afterWord.has(keyword) });
    }
  }
  return [...specs.values()];
})();

/** Every start of `keyword` in `text`, overlapping ones included (ASCII case folding when case-insensitive). */
function naivePositions(text: string, keyword: KeywordSpec): number[] {
  const haystack = keyword.caseSensitive ? text : text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  const positions: number[] = [];
  for (let position = haystack.indexOf(keyword.text); position !== -1; position = haystack.indexOf(keyword.text, position + 1)) positions.push(position);
  return positions;
}

const isLetterOrDigit = (character: string | undefined): boolean => character !== undefined && /[A-Za-z0-9]/.test(character);

/** Texts dense in keywords, keyword fragments, separators and non-BMP characters. */
const keywordSoup = fc
  .array(
    fc.oneof(
      fc.constantFrom(...KEYWORDS.map((keyword) => keyword.text)),
      fc.constantFrom(...KEYWORDS.map((keyword) => keyword.text.toUpperCase())),
      fc.constantFrom('@', '://', ':', '/', '-', '_', '.', ' ', '\n', 'a', 'Z', '0', '9', 'DE89', '😀', 'İ', 'K'),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('the keyword prefilter', () => {
  it('reports only real occurrences, in ascending order, and every occurrence its detector can use', () => {
    fc.assert(
      fc.property(keywordSoup, (text) => {
        const result = prefilter.run(text);
        for (const keyword of KEYWORDS) {
          const key = keywordKey(keyword.text, keyword.caseSensitive);
          const reported = result.positions.get(key) ?? [];
          const naive = naivePositions(text, keyword);
          // Sorted, without duplicates, and each one a real occurrence.
          for (let index = 1; index < reported.length; index += 1) expect(reported[index]).toBeGreaterThan(reported[index - 1] ?? -1);
          for (const position of reported) expect(naive).toContain(position);
          // Every occurrence is reported, except right after a letter or digit for keywords
          // whose detector ignores such occurrences (then reporting them is allowed, not required).
          for (const position of naive) {
            if (!keyword.usefulAfterWordCharacter && isLetterOrDigit(text[position - 1])) continue;
            expect(reported).toContain(position);
          }
          expect(result.present.has(key)).toBe(reported.length > 0);
        }
      }),
      { numRuns: Number(process.env.PREFILTER_RUNS ?? 300) },
    );
  });

  it('reports a keyword right after a boundary character outside the BMP', () => {
    // Regression: an emoji consumed as an IBAN trigger's boundary is one character to RE2 but two
    // UTF-16 units to a V8 regex, so the match went unrecognised and GR1348941 was not reported.
    const result = prefilter.run('😀GR1348941');
    expect(result.positions.get(keywordKey('GR1348941', true))).toEqual([2]);
  });

  it('reports every "@" and "://" of a long text, however many there are', () => {
    const text = `${'mail a@b.example and https://x.example/ '.repeat(2_000)}ftp://@@`;
    const result = prefilter.run(text);
    expect(result.positions.get(keywordKey('@', false))).toEqual(naivePositions(text, { text: '@', caseSensitive: false, usefulAfterWordCharacter: true }));
    expect(result.positions.get(keywordKey('://', false))).toEqual(naivePositions(text, { text: '://', caseSensitive: false, usefulAfterWordCharacter: true }));
  });
});
