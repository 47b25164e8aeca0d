import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSanitiser } from '../../../src/core/sanitiser/index.js';
import { ALPHANUMERIC, fakeToken, scan } from './fixtures.js';

describe('finding offsets are JavaScript string indices', () => {
  it('points at the match after emoji and other non-BMP characters', () => {
    const text = '👋🏽 Hi 𝒜𝓃𝓃𝒶! Mail me at anna@example.org or call +44 20 7946 0958 🙏';
    const { findings } = scan(text);
    expect(findings.map((finding) => finding.match)).toEqual(['anna@example.org', '+44 20 7946 0958']);
    for (const finding of findings) expect(text.slice(finding.start, finding.end)).toBe(finding.match);
    expect(findings[0]?.start).toBe(text.indexOf('anna@'));
  });

  it('points at a secret after combining marks and right-to-left text', () => {
    const token = fakeToken(['gh', 'p_'], ALPHANUMERIC, 36);
    const text = `Ünïcödé̃ שלום مرحبا ${token}`;
    const [finding] = scan(text).findings;
    expect(finding?.start).toBe(text.length - token.length);
    expect(text.slice(finding?.start, finding?.end)).toBe(token);
  });

  it('holds text.slice(start, end) === match for custom rules on non-BMP text', () => {
    const sanitiser = createSanitiser({
      custom: [{ rule_id: 'custom.codename', label: 'Codename', severity: 'warn', enabled: true, kind: 'regex', pattern: 'Falcon-\\d+' }],
      overrides: [],
    });
    const text = '🦅🦅 Project Falcon-42 🦅 and Falcon-7';
    const { findings } = sanitiser.scan(text);
    expect(findings.map((finding) => [finding.match, text.slice(finding.start, finding.end)])).toEqual([
      ['Falcon-42', 'Falcon-42'],
      ['Falcon-7', 'Falcon-7'],
    ]);
  });

  it('holds text.slice(start, end) === match and sorted, non-overlapping findings for any text', () => {
    const fragments = fc.constantFrom(
      'anna@example.org',
      ' ',
      '\n',
      '😀',
      '🦅',
      'é',
      'call +44 20 7946 0958',
      '4111 1111 1111 1111',
      'GB82WEST12345698765432',
      'SSN 123-45-6789',
      '203.0.113.42',
      'https://user:S3cretPassw0rd@db.example.com/x',
      'password = "Tr0ub4dor&3"',
      fakeToken(['gh', 'p_'], ALPHANUMERIC, 36),
      'key',
      'token:',
      '\uD800',
      '\uDC00',
      '\u0000',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fragments, fc.string({ unit: 'grapheme-composite' })), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const { findings } = scan(text);
        let previousEnd = 0;
        for (const finding of findings) {
          expect(text.slice(finding.start, finding.end)).toBe(finding.match);
          expect(finding.start).toBeGreaterThanOrEqual(previousEnd);
          expect(finding.end).toBeGreaterThan(finding.start);
          previousEnd = finding.end;
        }
      }),
      { numRuns: 300 },
    );
  });
});
