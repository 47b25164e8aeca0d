import { describe, expect, it } from 'vitest';
import { createSanitiser, placeholderType, redactText } from '../../../src/core/sanitiser/index.js';

const sanitiser = createSanitiser();

describe('redactText', () => {
  it('replaces each finding with a typed placeholder, the same value with the same number', () => {
    const text = 'Write to ada@example.org, cc bob@example.net, then ada@example.org again.';
    const { findings } = sanitiser.scan(text);
    expect(redactText(text, findings)).toBe('Write to [EMAIL_1], cc [EMAIL_2], then [EMAIL_1] again.');
  });

  it('numbers each type on its own and leaves the findings pointing at the original text', () => {
    const text = '🎉 card 4111 1111 1111 1111 for ada@example.org, token ghp_R7xk2LqP9vNcT4mW8sZbY3hJ6dF1gA5eK0uQ';
    const result = sanitiser.scan(text);
    const redacted = redactText(text, result.findings);
    expect(redacted).toBe('🎉 card [PAYMENT_CARD_1] for [EMAIL_1], token [GITHUB_TOKEN_1]');
    for (const finding of result.findings) expect(text.slice(finding.start, finding.end)).toBe(finding.match);
  });

  it('never hands out a placeholder the text already holds', () => {
    // Regression: "x [EMAIL_1] y bob@example.com" became "x [EMAIL_1] y [EMAIL_1]".
    const text = 'x [EMAIL_1] y bob@example.com, [EMAIL_3] z ann@example.com, bob@example.com';
    expect(redactText(text, sanitiser.scan(text).findings)).toBe('x [EMAIL_1] y [EMAIL_2], [EMAIL_3] z [EMAIL_4], [EMAIL_2]');
  });

  it('gives one IBAN, card, phone number or id one placeholder however it is formatted (regression: [IBAN_1] and [IBAN_2])', () => {
    const text =
      'IBAN DE89370400440532013000, i.e. DE89 3704 0044 0532 0130 00; card 4539 7821 6430 5927 = 4539-7821-6430-5927; ' +
      'call +1 415 555 0100 or +1 (415) 555-0100; other IBAN GB82 WEST 1234 5698 7654 32';
    expect(redactText(text, sanitiser.scan(text).findings)).toBe(
      'IBAN [IBAN_1], i.e. [IBAN_1]; card [PAYMENT_CARD_1] = [PAYMENT_CARD_1]; call [PHONE_1] or [PHONE_1]; other IBAN [IBAN_2]',
    );
  });

  it('tells apart ids whose separator is part of the value (review: 010190-123A and 010190+123A are two people)', () => {
    expect(
      redactText('born 1990: 010190-123A; born 1890: 010190+123A', [
        { rule_id: 'pii.fi_hetu', start: 11, end: 22 },
        { rule_id: 'pii.fi_hetu', start: 35, end: 46 },
      ]),
    ).toBe('born 1990: [FI_HETU_1]; born 1890: [FI_HETU_2]');
  });

  it('keeps telling secrets apart by every character', () => {
    expect(
      redactText('a Xk29-dLq7 b Xk29dLq7', [
        { rule_id: 'secret.password_assignment', start: 2, end: 11 },
        { rule_id: 'secret.password_assignment', start: 14, end: 22 },
      ]),
    ).toBe('a [PASSWORD_ASSIGNMENT_1] b [PASSWORD_ASSIGNMENT_2]');
  });

  it('returns the text unchanged when there is nothing to replace', () => {
    expect(redactText('Nothing here.', [])).toBe('Nothing here.');
  });

  it('replaces two findings that overlap as one span, leaving neither in part (regression: the tail of the second was kept)', () => {
    expect(
      redactText('mail jane@acme.com now', [
        { rule_id: 'pii.email', start: 5, end: 18 },
        { rule_id: 'custom.client', start: 10, end: 14 },
        { rule_id: 'custom.tail', start: 16, end: 22 },
      ]),
    ).toBe('mail [EMAIL_1]');
  });

  it('types an overlapping span by its widest finding and numbers it by the whole span (regression: two emails read alike)', () => {
    const text = 'client jane@acme.com, client bob@other.org';
    const findings = [
      { rule_id: 'custom.client', start: 0, end: 8 },
      { rule_id: 'pii.email', start: 7, end: 20 },
      { rule_id: 'custom.client', start: 22, end: 30 },
      { rule_id: 'pii.email', start: 29, end: 42 },
    ];
    expect(redactText(text, findings)).toBe('[EMAIL_1], [EMAIL_2]');
  });

  it('accepts findings in any order and skips one nested inside another', () => {
    const text = 'a SECRET b';
    expect(
      redactText(text, [
        { rule_id: 'custom.inner', start: 3, end: 6 },
        { rule_id: 'custom.code-names', start: 2, end: 8 },
      ]),
    ).toBe('a [CODE_NAMES_1] b');
  });

  it.each([
    ['pii.email', 'EMAIL'],
    ['pii.us_ssn', 'US_SSN'],
    ['secret.github_token', 'GITHUB_TOKEN'],
    ['custom.project-codenames', 'PROJECT_CODENAMES'],
    ['custom.-', 'REDACTED'],
  ])('names the placeholder of %s %s', (ruleId, type) => {
    expect(placeholderType(ruleId)).toBe(type);
  });
});
