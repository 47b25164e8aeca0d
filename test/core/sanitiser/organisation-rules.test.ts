import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_RULES,
  createSanitiser,
  MAX_MATCHES_PER_CUSTOM_RULE,
  validateCustomRule,
  validateOverride,
  type CustomRuleDefinition,
} from '../../../src/core/sanitiser/index.js';
import { regexRule, validationMessage } from './fixtures.js';

describe('custom regex rules', () => {
  it('reports matches with the rule label and severity', () => {
    const sanitiser = createSanitiser({ custom: [regexRule('PRJ-\\d{4}', { severity: 'block', label: 'Project number' })], overrides: [] });
    const result = sanitiser.scan('Tickets PRJ-1234 and PRJ-98765.');
    expect(result.findings.map((finding) => [finding.rule_id, finding.label, finding.severity, finding.match])).toEqual([
      ['custom.test', 'Project number', 'block', 'PRJ-1234'],
      ['custom.test', 'Project number', 'block', 'PRJ-9876'],
    ]);
    expect(result.severity).toBe('block');
  });

  it('honours the i flag', () => {
    const sanitiser = createSanitiser({ custom: [regexRule('falcon', { flags: 'i' })], overrides: [] });
    expect(sanitiser.scan('FALCON and Falcon').findings.map((finding) => finding.match)).toEqual(['FALCON', 'Falcon']);
  });

  it('skips disabled custom rules', () => {
    const sanitiser = createSanitiser({ custom: [regexRule('falcon', { enabled: false })], overrides: [] });
    expect(sanitiser.scan('falcon').findings).toEqual([]);
  });

  it('returns (a+)+$ on 50,000 a\'s and "!" promptly instead of backtracking', () => {
    const sanitiser = createSanitiser({ custom: [regexRule('(a+)+$')], overrides: [] });
    const text = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    const result = sanitiser.scan(text);
    const elapsedMs = performance.now() - started;
    expect(result.findings).toEqual([]);
    // RE2 is linear; a backtracking engine would not return at all. The bound is deliberately loose.
    expect(elapsedMs).toBeLessThan(1000);
  });

  it(`caps a rule at ${MAX_MATCHES_PER_CUSTOM_RULE} matches per scan`, () => {
    const sanitiser = createSanitiser({ custom: [regexRule('x')], overrides: [] });
    const result = sanitiser.scan('x '.repeat(5_000));
    expect(result.findings).toHaveLength(MAX_MATCHES_PER_CUSTOM_RULE);
  });

  it('refuses lookaround and backreferences, saying that the engine is linear-time RE2', () => {
    expect(validationMessage(() => validateCustomRule(regexRule('foo(?=bar)')))).toMatch(/lookahead and lookbehind.*RE2, a linear-time engine/);
    expect(validationMessage(() => validateCustomRule(regexRule('(a)\\1')))).toMatch(/backreferences.*RE2/);
  });

  it('refuses invalid syntax, naming the field but not echoing the pattern', () => {
    const message = validationMessage(() => validateCustomRule(regexRule('(unclosed-SECRETVALUE')));
    expect(message).toMatch(/^pattern: not a valid RE2 regular expression \(missing \)\)/);
    expect(message).not.toContain('SECRETVALUE');
  });

  it('refuses a pattern that matches the empty string', () => {
    expect(validationMessage(() => validateCustomRule(regexRule('a*')))).toMatch(/matches the empty string/);
  });

  it('refuses flags other than i, bad rule ids and mixed kinds', () => {
    expect(validationMessage(() => validateCustomRule(regexRule('a', { flags: 'g' })))).toMatch(/flags: only "i"/);
    expect(validationMessage(() => validateCustomRule(regexRule('a', { rule_id: 'secret.mine' })))).toMatch(/rule_id: must be "custom\."/);
    expect(validationMessage(() => validateCustomRule(regexRule('a', { keywords: ['x'] })))).toMatch(
      /keywords and case_sensitive apply to kind "keywords" only/,
    );
  });

  it('refuses unknown fields and non-object input', () => {
    expect(validationMessage(() => validateCustomRule({ ...regexRule('a'), colour: 'red' }))).toMatch(/^Invalid custom rule: rule: .*"colour"\.$/);
    expect(validationMessage(() => validateCustomRule('not a rule'))).toMatch(/^Invalid custom rule: rule: must be an object/);
  });

  it('names a bad keyword by its path in the one validation syntax, keywords[1]', () => {
    const rule = { rule_id: 'custom.codenames', label: 'Codename', severity: 'warn', enabled: true, kind: 'keywords', keywords: ['bluebird', ''] };
    expect(validationMessage(() => validateCustomRule(rule))).toMatch(/^Invalid custom rule: keywords\[1\]: /);
  });
});

describe('custom keyword rules', () => {
  const keywordRule = (keywords: string[], extra: Partial<CustomRuleDefinition> = {}): CustomRuleDefinition => ({
    rule_id: 'custom.codenames',
    label: 'Codename',
    severity: 'warn',
    enabled: true,
    kind: 'keywords',
    keywords,
    ...extra,
  });

  it('matches whole words, case-insensitively by default', () => {
    const sanitiser = createSanitiser({ custom: [keywordRule(['Falcon', 'Blue Harbor'])], overrides: [] });
    const text = 'falcon launch, Falconry club, BLUE HARBOR review, blue harbors';
    expect(sanitiser.scan(text).findings.map((finding) => finding.match)).toEqual(['falcon', 'BLUE HARBOR']);
  });

  it('matches case-sensitively when asked', () => {
    const sanitiser = createSanitiser({ custom: [keywordRule(['Falcon'], { case_sensitive: true })], overrides: [] });
    expect(sanitiser.scan('falcon Falcon').findings.map((finding) => finding.match)).toEqual(['Falcon']);
  });

  it('falls back to a shorter keyword when the longest one at a position is not a whole word', () => {
    const sanitiser = createSanitiser({ custom: [keywordRule(['Falcon', 'Falcon X'])], overrides: [] });
    expect(sanitiser.scan('Falcon Xylophone').findings.map((finding) => finding.match)).toEqual(['Falcon']);
  });

  it('treats regex metacharacters in keywords literally', () => {
    const sanitiser = createSanitiser({ custom: [keywordRule(['a.b (c)*'])], overrides: [] });
    expect(sanitiser.scan('a.b (c)* and axb (c)').findings.map((finding) => finding.match)).toEqual(['a.b (c)*']);
  });

  it('refuses an empty keyword list', () => {
    expect(validationMessage(() => validateCustomRule(keywordRule([])))).toMatch(/keywords: must not be empty/);
    expect(validationMessage(() => validateCustomRule({ ...keywordRule([]), keywords: undefined }))).toMatch(/keywords: required/);
  });
});

describe('overrides of built-in rules', () => {
  it('turns a built-in rule off', () => {
    const sanitiser = createSanitiser({ custom: [], overrides: [{ rule_id: 'pii.email', enabled: false }] });
    expect(sanitiser.scan('anna@example.org').findings).toEqual([]);
    expect(sanitiser.scan('anna@example.org').severity).toBe('clean');
  });

  it('changes a built-in rule severity, and the overall severity follows', () => {
    const sanitiser = createSanitiser({ custom: [], overrides: [{ rule_id: 'pii.email', severity: 'block' }] });
    const result = sanitiser.scan('anna@example.org');
    expect(result.findings[0]?.severity).toBe('block');
    expect(result.severity).toBe('block');
  });

  it('refuses an override of an unknown rule id or one that changes nothing', () => {
    expect(validationMessage(() => validateOverride({ rule_id: 'pii.shoe_size', enabled: false }))).toMatch(/"pii.shoe_size" is not a built-in rule/);
    expect(validationMessage(() => validateOverride({ rule_id: 'pii.email' }))).toMatch(/must set enabled, severity or both/);
  });

  it('accepts an override for every built-in rule id', () => {
    for (const rule of BUILT_IN_RULES) expect(validateOverride({ rule_id: rule.rule_id, severity: 'info' }).rule_id).toBe(rule.rule_id);
  });

  it('refuses duplicate custom rule ids and duplicate overrides in one ruleset', () => {
    expect(validationMessage(() => createSanitiser({ custom: [regexRule('a'), regexRule('b')], overrides: [] }))).toMatch(
      /Duplicate custom rule_id "custom.test"/,
    );
    expect(
      validationMessage(() =>
        createSanitiser({
          custom: [],
          overrides: [
            { rule_id: 'pii.email', enabled: false },
            { rule_id: 'pii.email', severity: 'info' },
          ],
        }),
      ),
    ).toMatch(/Duplicate override for "pii.email"/);
  });
});
