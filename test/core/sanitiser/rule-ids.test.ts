/**
 * Rule ids are declared by the detectors that emit them, and the rule catalog holds exactly the
 * declared ids. A detector is skipped when all of its declared rules are disabled, so these are
 * what make disabling one rule remove that rule's findings and never another's.
 */
import { NATIONAL_ID_RULE_IDS } from '../../../src/core/sanitiser/detectors/national-ids.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineDetector, type DetectorContext } from '../../../src/core/sanitiser/detector.js';
import { BUILT_IN_DETECTORS, type BuiltInDetectorTypes, type DeclaredRuleId } from '../../../src/core/sanitiser/detectors/index.js';
import { BUILT_IN_RULES, createSanitiser, type Finding } from '../../../src/core/sanitiser/index.js';
import type { BuiltInRuleId } from '../../../src/core/sanitiser/rule-catalog.js';
import { ALPHANUMERIC, BASE64, fakeToken, HEX, randomText, summarise } from './fixtures.js';

/**
 * The rules more than one detector declares, each by a different syntax of the same secret. Any
 * other sharing fails the test below, so that it is a decision rather than an accident.
 */
const SHARED_RULES: Readonly<Record<string, readonly string[]>> = {
  // IPv4 addresses are digit runs, read with the other numbers; IPv6 has a trigger of its own.
  'pii.ip_address': ['ipv6', 'numbers'],
  // A JWT, and a base64-encoded JWT found by its `ZXlK` prefix like a vendor token.
  'secret.jwt': ['jwt', 'provider-tokens'],
  // A password assigned to a name, passed to `curl -u`, or written in a tool's syntax (.netrc).
  'secret.password_assignment': ['assignments', 'cli-user-credentials', 'password-contexts', 'tool-credentials'],
  // A SonarQube token found by its `squ_` prefix, or (before SonarQube 9.5, unprefixed) under the
  // scanner property's name.
  'secret.sonarqube_token': ['assignments', 'provider-tokens'],
  // A Telegram bot token found by its `:AA` prefix, or by its whole shape.
  'secret.telegram_bot_token': ['provider-tokens', 'shaped-tokens'],
  // An SSN or a phone number found by its own shape, or in a column whose header names it.
  'pii.us_ssn': ['numbers', 'tabular'],
  'pii.phone': ['numbers', 'tabular'],
  // A national id after its label or in its own format, or in a column whose header names it.
  ...Object.fromEntries(NATIONAL_ID_RULE_IDS.map((ruleId) => [ruleId, ['national-ids', 'tabular']])),
};

describe('declared rule ids and the rule catalog', () => {
  it('has every declared id in the catalog and every catalog rule declared by a detector', () => {
    const declared = new Set<string>(BUILT_IN_DETECTORS.flatMap((detector) => detector.ruleIds));
    const catalog = new Set(BUILT_IN_RULES.map((rule) => rule.rule_id));
    expect([...declared].filter((id) => !catalog.has(id))).toEqual([]);
    expect([...catalog].filter((id) => !declared.has(id))).toEqual([]);
    // The same at compile time: the union of the detectors' ids is the catalog's id type.
    expectTypeOf<DeclaredRuleId>().toEqualTypeOf<BuiltInRuleId>();
  });

  it('has every catalog rule declared by exactly one detector, apart from the listed shared rules', () => {
    const declaredBy = new Map<string, string[]>();
    for (const detector of BUILT_IN_DETECTORS) {
      for (const ruleId of detector.ruleIds) declaredBy.set(ruleId, [...(declaredBy.get(ruleId) ?? []), detector.name]);
    }
    const shared = Object.fromEntries([...declaredBy].filter(([, names]) => names.length > 1).map(([ruleId, names]) => [ruleId, names.sort()]));
    expect(shared).toEqual(SHARED_RULES);
  });

  it('types every detector with its own ids, not all of them (which would switch these checks off)', () => {
    // A detector typed plain `Detector` rather than made by defineDetector could emit any id.
    type TypedWithEveryId<D> = D extends { readonly ruleIds: readonly (infer Id)[] } ? (BuiltInRuleId extends Id ? D : never) : never;
    expectTypeOf<TypedWithEveryId<BuiltInDetectorTypes[number]>>().toEqualTypeOf<never>();
  });

  it('has unique detector names, which the list of shared rules refers to', () => {
    const names = BUILT_IN_DETECTORS.map((detector) => detector.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('a detector emits only the rule ids it declares (checked by tsc)', () => {
  it('does not compile a detector that emits an id it does not declare', () => {
    const detector = defineDetector({
      name: 'emails-only',
      ruleIds: ['pii.email'],
      keywords: ['@'],
      detect: (context) => {
        context.scan.emit('pii.email', 0, 1);
        // @ts-expect-error 'pii.phone' is a catalog rule, but not one this detector declares.
        context.scan.emit('pii.phone', 0, 1);
      },
    });
    expect(detector.ruleIds).toEqual(['pii.email']);
  });

  it('does not compile a detect function written for more ids than the detector declares', () => {
    const detectEmailsAndPhones = (context: DetectorContext<'pii.email' | 'pii.phone'>): void => context.scan.emit('pii.phone', 0, 1);
    const detector = defineDetector({
      name: 'emails-only',
      ruleIds: ['pii.email'],
      // @ts-expect-error the function may emit 'pii.phone', which `ruleIds` lacks.
      detect: detectEmailsAndPhones,
    });
    expect(detector.ruleIds).toEqual(['pii.email']);
  });

  it('does not compile a detector that declares an id the catalog lacks', () => {
    const detector = defineDetector({
      name: 'shoe-sizes',
      // @ts-expect-error there is no rule 'pii.shoe_size' in the catalog.
      ruleIds: ['pii.shoe_size'],
      detect: () => undefined,
    });
    expect(detector.ruleIds).toEqual(['pii.shoe_size']);
  });
});

describe('disabling one built-in rule', () => {
  const lines = [
    'Contact: anna.berg@northwind.io',
    'Origin: 198.51.100.23',
    `GitHub: ${fakeToken(['gh', 'p_'], ALPHANUMERIC, 36, 3)}`,
    `db_password = "${randomText(ALPHANUMERIC, 16, 5)}"`,
    `api_token: "${randomText(ALPHANUMERIC, 32, 9)}"`,
    `AWS_SECRET_ACCESS_KEY=${randomText(BASE64, 40, 13)}`,
    `sonar.login=${randomText(HEX, 40, 17)}`,
    `Authorization: Bearer ${randomText(ALPHANUMERIC, 40, 19)}`,
    `curl -u deploy:${randomText(ALPHANUMERIC, 14, 23)} https`,
  ];
  const text = lines.join('\n');
  const key = (finding: Finding): string => `${finding.rule_id}@${finding.start}-${finding.end}`;
  const baseline = createSanitiser().scan(text).findings;
  const rulesFound = [...new Set(baseline.map((finding) => finding.rule_id))];

  it('finds one rule per line in the sample, so that no finding hides another', () => {
    expect(rulesFound, summarise(baseline)).toEqual([
      'pii.email',
      'pii.ip_address',
      'secret.github_token',
      'secret.password_assignment',
      'secret.generic_secret',
      'secret.aws_secret_access_key',
      'secret.sonarqube_token',
      'secret.bearer_token',
    ]);
    expect(baseline.length, summarise(baseline)).toBe(lines.length);
  });

  it.each(rulesFound)('removes exactly the findings of %s and no others', (ruleId) => {
    const findings = createSanitiser({ custom: [], overrides: [{ rule_id: ruleId, enabled: false }] }).scan(text).findings;
    const expected = baseline.filter((finding) => finding.rule_id !== ruleId);
    expect(findings.map(key), summarise(findings)).toEqual(expected.map(key));
  });

  // Regression: the assignment detector emitted secret.sonarqube_token without declaring it, so
  // with the assignment rules off it was skipped and SonarQube tokens under their name vanished.
  it('still finds a SonarQube token under sonar.login when every other assignment rule is disabled', () => {
    const others = [
      'secret.password_assignment',
      'secret.generic_secret',
      'secret.aws_secret_access_key',
      'secret.azure_storage_key',
      'secret.azure_identifier',
      'secret.npmrc_auth',
    ];
    const sanitiser = createSanitiser({ custom: [], overrides: others.map((ruleId) => ({ rule_id: ruleId, enabled: false })) });
    const token = randomText(HEX, 40, 17);
    expect(sanitiser.scan(`sonar.login=${token}`).findings.map((finding) => [finding.rule_id, finding.match])).toEqual([['secret.sonarqube_token', token]]);
  });
});
