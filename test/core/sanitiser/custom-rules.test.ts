/**
 * Organisation rules: the work one scan of a custom rule may cost (every RE2 search counts, empty
 * and rejected matches included), patterns that can match empty text at some positions (refused
 * when added), which constructs are refused and with what message, and the service calls behind
 * `porch sanitiser rule`.
 */
import RE2 from 're2';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isPorchError } from '../../../src/core/errors.js';
import {
  compileCustomRule,
  MAX_CUSTOM_RULES,
  MAX_MATCHES_PER_CUSTOM_RULE,
  MAX_SEARCHES_PER_CUSTOM_RULE,
  validateCustomRule,
  validateNewCustomRule,
  validateOverride,
} from '../../../src/core/sanitiser/custom-rules.js';
import { createSanitiser, type CustomRuleDefinition } from '../../../src/core/sanitiser/index.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';
import { regexRule, validationMessage } from './fixtures.js';

function keywordRule(keywords: string[], extra: Partial<CustomRuleDefinition> = {}): CustomRuleDefinition {
  return { rule_id: 'custom.words', label: 'Words', severity: 'warn', enabled: true, kind: 'keywords', keywords, ...extra };
}

function matches(rule: CustomRuleDefinition, text: string): string[] {
  return compileCustomRule(validateCustomRule(rule))
    .find(text)
    .matches.map((match) => text.slice(match.start, match.end));
}

/** Lower-case prose: a word boundary every few characters, no upper-case word. */
function prose(length: number): string {
  const words = ['the', 'quiet', 'harbour', 'opened', 'at', 'dawn', 'and', 'boats', 'left', 'slowly'];
  let text = '';
  for (let index = 0; text.length < length; index += 1) text += `${words[index % words.length]} `;
  return text.slice(0, length);
}

/** Counts the RE2 searches (exec calls) `run` makes: the unit of work the caps bound. */
function searchesDuring(run: () => void): number {
  const exec = vi.spyOn(RE2.prototype, 'exec');
  try {
    run();
    return exec.mock.calls.length;
  } finally {
    exec.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('patterns that can match empty text at some positions', () => {
  it.each([
    ['an optional run between word boundaries', '\\b[A-Z]*\\b'],
    ['an optional character after a boundary', '\\bx?'],
    ['an empty alternative', 'PRJ-\\d+|\\b'],
    ['a line start with multiline', '(?m)^(?:\\d+|\\b)'],
    ['an optional group at the end of the text', '(?:end)?\\b$'],
    ['a repeated boundary', '(?:\\b|a){2,}'],
  ])('are refused when added (%s), naming a place where they match empty text', (_name, pattern) => {
    const message = validationMessage(() => validateNewCustomRule(regexRule(pattern)));
    expect(message).toMatch(/^pattern: can match empty text \(at position \d+ of ".*"\)/);
    expect(message).toContain('+ instead of *');
    expect(message).not.toContain(pattern);
    // A stored rule is not re-checked, so a rule saved before this check keeps working.
    expect(() => validateCustomRule(regexRule(pattern))).not.toThrow();
  });

  it('are accepted when every match is at least one character, however the pattern is written', () => {
    for (const pattern of [
      '\\b[A-Z]+\\b',
      'PRJ-\\d{4}',
      '(?i)\\bticket #?\\d+',
      '\\b(?:ab|abc)?x',
      '(?m)^#\\s',
      '[^\\s]+@corp',
      'a*b',
      '\\Bing\\b',
      '(?:a|\\bb)+',
    ]) {
      expect(() => validateNewCustomRule(regexRule(pattern)), pattern).not.toThrow();
    }
  });

  it('cost at most the search cap when stored before the check: 1 MiB of prose, 20 such rules', () => {
    const custom = Array.from({ length: 20 }, (_, index) => regexRule('\\b[A-Z]*\\b', { rule_id: `custom.rule-${index}` }));
    const sanitiser = createSanitiser({ custom, overrides: [] });
    const text = prose(1_048_576);
    // Before: one uncounted RE2 search per word boundary, about 0.8 s per rule.
    const searches = searchesDuring(() => sanitiser.scan(text));
    expect(searches).toBeLessThanOrEqual(20 * MAX_SEARCHES_PER_CUSTOM_RULE);
  });
});

describe('the search cap', () => {
  it(`bounds a rule at ${MAX_SEARCHES_PER_CUSTOM_RULE} RE2 searches per scan, counting empty matches`, () => {
    const compiled = compileCustomRule(validateCustomRule(regexRule('\\bx?')));
    const text = prose(100_000);
    expect(searchesDuring(() => compiled.find(text))).toBe(MAX_SEARCHES_PER_CUSTOM_RULE);
  });

  it('counts keyword matches rejected as parts of longer words', () => {
    // A keyword ending in a non-ASCII letter has no RE2 guard: each occurrence inside a longer
    // word is a rejected match. Before: one uncounted search each (5,000 here).
    const compiled = compileCustomRule(validateCustomRule(keywordRule(['café'])));
    const text = 'cafés '.repeat(5_000);
    let found: unknown = null;
    expect(searchesDuring(() => (found = compiled.find(text)))).toBeLessThanOrEqual(MAX_SEARCHES_PER_CUSTOM_RULE);
    // The budget ran out before the end: nothing found, and the rule says it did not read it all.
    expect(found).toEqual({ matches: [], complete: false });
  });

  it('guards k and s edges too, ignoring case, so thousands of in-word hits cannot hide a match', () => {
    // RE2 folds k to the Kelvin sign and s to the long s, which its \b does not know; those two
    // are matched unguarded beside the guarded ASCII letter.
    const text = `${'topsecrets '.repeat(2_100)}the secrets`;
    expect(matches(keywordRule(['secrets']), text)).toEqual(['secrets']);
    expect(matches(keywordRule(['secrets']), 'the \u017Fecret\u017F, topsecrets')).toEqual(['\u017Fecret\u017F']);
    expect(matches(keywordRule(['kit']), 'kit \u212Ait akit toolkit')).toEqual(['kit', '\u212Ait']);
  });

  it('lets RE2 skip keyword occurrences inside longer words where \\b can guard them', () => {
    // Before: each "e" inside a word was a search of its own, rejected afterwards.
    const compiled = compileCustomRule(validateCustomRule(keywordRule(['e', 'ai'])));
    const text = `${prose(100_000)} e`;
    let found: { matches: readonly { start: number; end: number }[]; complete: boolean } = { matches: [], complete: false };
    expect(searchesDuring(() => (found = compiled.find(text)))).toBeLessThan(5);
    expect(found.matches.map((match) => text.slice(match.start, match.end))).toEqual(['e']);
    expect(found.complete).toBe(true);
  });

  it('keeps whole-word keyword matching exact where \\b cannot decide (non-ASCII letters, Kelvin sign, emoji)', () => {
    expect(matches(keywordRule(['ai']), 'éai ai aié AI')).toEqual(['ai', 'AI']);
    expect(matches(keywordRule(['kit']), 'kit \u212Ait akit')).toEqual(['kit', '\u212Ait']);
    expect(matches(keywordRule(['🦅', 'Falcon X', 'Falcon']), '🦅🦅 Falcon Xylophone, falcon x')).toEqual(['🦅', '🦅', 'Falcon', 'falcon x']);
  });

  it(`still caps kept matches at ${MAX_MATCHES_PER_CUSTOM_RULE}`, () => {
    const found = compileCustomRule(validateCustomRule(regexRule('\\bx*'))).find('x '.repeat(5_000));
    expect(found.matches).toHaveLength(MAX_MATCHES_PER_CUSTOM_RULE);
    expect(found.complete).toBe(false);
  });

  it('reads a text to its end when no cap is reached', () => {
    expect(compileCustomRule(validateCustomRule(keywordRule(['bluebird']))).find('a bluebird, two bluebirds')).toEqual({
      matches: [{ start: 2, end: 10 }],
      complete: true,
    });
  });
});

describe('which regex constructs are refused', () => {
  it('accepts what RE2 runs, however much it looks like an unsupported construct', () => {
    expect(matches(regexRule('\\p{Lu}+'), 'abc DEF')).toEqual(['DEF']);
    expect(matches(regexRule('\\x{41}+'), 'xAAx')).toEqual(['AA']);
    expect(matches(regexRule('\\++\\d+'), 'a ++42')).toEqual(['++42']);
    expect(matches(regexRule('[(?=]abc'), '(abc =abc abc')).toEqual(['(abc', '=abc']);
    expect(matches(regexRule('x\\\\1'), 'x\\1')).toEqual(['x\\1']);
    expect(matches(regexRule('\\Q(?=a)\\E+'), '(?=a))')).toEqual(['(?=a))']);
    expect(matches(regexRule('[*+]+\\?'), 'a*+?')).toEqual(['*+?']);
  });

  it('refuses lookaround, backreferences, possessive quantifiers and atomic groups, naming them', () => {
    const refusal = (pattern: string): string => validationMessage(() => validateCustomRule(regexRule(pattern)));
    for (const pattern of ['foo(?=bar)', 'foo(?!bar)', '(?<=x)y', '(?<!x)y', '[a](?=b)']) {
      expect(refusal(pattern), pattern).toMatch(/^pattern: lookahead and lookbehind .* are not supported\. Custom regexes run on RE2, a linear-time engine/);
    }
    for (const pattern of ['(a)\\1', '(a)\\9', '(?<n>a)\\k<n>', '(?P<n>a)(?P=n)'])
      expect(refusal(pattern), pattern).toMatch(/^pattern: backreferences .* are not supported/);
    for (const pattern of ['a*+', 'a++', 'a?+', 'a{2}+', 'a{2,}+'])
      expect(refusal(pattern), pattern).toMatch(/^pattern: possessive quantifiers .* are not supported/);
    expect(refusal('(?>ab)')).toMatch(/^pattern: atomic groups .* are not supported/);
  });

  it('refuses to add \\C, which matches one byte and so part of a character (regression: offsets past the text), unless escaped or quoted', () => {
    const refusal = (pattern: string): string => validationMessage(() => validateNewCustomRule(regexRule(pattern)));
    for (const pattern of ['\\Cq', 'a\\C+', '\\\\\\C']) expect(refusal(pattern), pattern).toMatch(/^pattern: \\C \(any single byte\) is not supported/);
    expect(validateNewCustomRule(regexRule('\\\\Cq')).kind).toBe('regex');
    expect(validateNewCustomRule(regexRule('\\Q\\C\\E')).kind).toBe('regex');
  });

  it('names the RE2 error otherwise, never echoing the pattern', () => {
    expect(validationMessage(() => validateCustomRule(regexRule('SECRET\\Z')))).toBe(
      'pattern: not a valid RE2 regular expression (invalid escape sequence \\Z).',
    );
    expect(validationMessage(() => validateCustomRule(regexRule('a**')))).toBe('pattern: not a valid RE2 regular expression (bad repetition operator).');
    const unclosed = validationMessage(() => validateCustomRule(regexRule('[SECRET')));
    expect(unclosed).toMatch(/^pattern: not a valid RE2 regular expression \(missing \]\)/);
    expect(unclosed).not.toContain('SECRET');
    expect(validationMessage(() => validateCustomRule(regexRule('(?=SECRET)')))).not.toContain('SECRET');
  });
});

describe('overrides of built-in rules', () => {
  it('name the command that lists the built-in rules, not a code constant', () => {
    const unknown = validationMessage(() => validateOverride({ rule_id: 'pii.shoe_size', enabled: false }));
    expect(unknown).toBe(
      'rule_id: "pii.shoe_size" is not a built-in rule: a custom rule\'s id is "custom." and a slug in lower case (custom.project-names), and an override names one of the built-in rules that "porch sanitiser builtins" lists.',
    );
    expect(validationMessage(() => validateOverride({ rule_id: 'custom.x', enabled: false }))).toMatch(/"custom\.x" is a custom rule, not a built-in one/);
    expect(unknown).not.toContain('BUILT_IN_RULES');
  });

  it('tell a custom rule without the custom. prefix what its id lacks (regression: "override: Unrecognized keys")', () => {
    for (const ruleId of ['foo', 'Custom.Upper', 'mycustom.x']) {
      const message = validationMessage(() => validateOverride({ rule_id: ruleId, label: 'Projects', kind: 'keywords', keywords: ['bluebird'] }));
      expect(message).toContain(`"${ruleId}" is not a built-in rule: a custom rule's id is "custom."`);
      expect(message).not.toContain('Unrecognized keys');
    }
  });
});

describe('the sanitiser service behind `porch sanitiser rule`', () => {
  let application: CoreHarness;
  let organisationId: string;
  const missingOrganisation = '0190a4b0-0000-7000-8000-000000000000';

  beforeAll(async () => {
    application = await createCoreHarness();
    const account = await application.core.accounts.createAccount({ email: 'rules@example.com', plan: 'expert', credits: 0 });
    organisationId = account.organisation_id;
  });
  afterAll(() => application.close());

  async function failure(action: Promise<unknown>): Promise<{ code: string; message: string }> {
    try {
      await action;
    } catch (err) {
      if (isPorchError(err)) return { code: err.code, message: err.message };
      throw err;
    }
    throw new Error('expected a PorchError');
  }

  it('refuses to add a regex that can match empty text, and still switches off one stored before the check', async () => {
    const sanitiser = application.core.sanitiser;
    expect(await failure(sanitiser.addCustomRule(organisationId, regexRule('\\b[A-Z]*\\b', { rule_id: 'custom.caps' })))).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await application.store.sanitiserRules.upsert({
      id: '0190a4b0-0000-7000-8000-0000000000aa',
      organisationId,
      ruleId: 'custom.caps',
      kind: 'custom',
      definition: regexRule('\\b[A-Z]*\\b', { rule_id: 'custom.caps' }),
      createdAt: 0,
      updatedAt: 0,
    });
    expect((await sanitiser.scan(organisationId, 'ship it to NASA')).findings.map((finding) => finding.match)).toEqual(['NASA']);
    await sanitiser.updateCustomRule(organisationId, 'custom.caps', { enabled: false });
    expect((await sanitiser.scan(organisationId, 'ship it to NASA')).findings).toEqual([]);
    await sanitiser.removeRule(organisationId, 'custom.caps');
  });

  it('switches a custom rule off and on and changes its severity, keeping the rest of it', async () => {
    const sanitiser = application.core.sanitiser;
    await sanitiser.addCustomRule(organisationId, keywordRule(['bluebird'], { rule_id: 'custom.codename', case_sensitive: true }));
    const off = await sanitiser.updateCustomRule(organisationId, 'custom.codename', { enabled: false });
    expect(off.definition).toMatchObject({ enabled: false, severity: 'warn', keywords: ['bluebird'], case_sensitive: true });
    expect((await sanitiser.scan(organisationId, 'bluebird')).findings).toEqual([]);
    await sanitiser.updateCustomRule(organisationId, 'custom.codename', { enabled: true, severity: 'block' });
    expect(await sanitiser.scan(organisationId, 'bluebird')).toMatchObject({ severity: 'block', findings: [{ rule_id: 'custom.codename' }] });
  });

  it('refuses to change a custom rule the organisation does not have, or to change nothing', async () => {
    const sanitiser = application.core.sanitiser;
    expect(await failure(sanitiser.updateCustomRule(organisationId, 'custom.nothing', { enabled: false }))).toEqual({
      code: 'RESOURCE_NOT_FOUND',
      message: 'The organisation has no custom rule "custom.nothing"; "porch sanitiser rule add" adds one.',
    });
    expect((await failure(sanitiser.updateCustomRule(organisationId, 'custom.codename', {}))).code).toBe('VALIDATION_ERROR');
    expect((await failure(sanitiser.updateCustomRule(organisationId, 'custom.codename', { severity: 'loud' }))).message).toMatch(/severity/);
  });

  it('keeps the cap on custom rules when rules are added at once (regression: each add checked the rules as they were before the others)', async () => {
    const sanitiser = application.core.sanitiser;
    const account = await application.core.accounts.createAccount({ email: 'rules-at-once@example.com', plan: 'expert', credits: 0 });
    const organisation = account.organisation_id;
    const rule = (index: number) => keywordRule([`codename${index}`], { rule_id: `custom.codename-${index}` });
    for (let index = 0; index < MAX_CUSTOM_RULES - 4; index += 1) await sanitiser.addCustomRule(organisation, rule(index));

    // Three adds at once within the cap: each whose check an earlier write overtook checks again, and all land.
    const within = await Promise.allSettled([1, 2, 3].map((offset) => sanitiser.addCustomRule(organisation, rule(MAX_CUSTOM_RULES + offset))));
    expect(within.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);

    // One place left and two adds at once: one lands, the other is refused.
    const over = await Promise.allSettled([4, 5].map((offset) => sanitiser.addCustomRule(organisation, rule(MAX_CUSTOM_RULES + offset))));
    expect(over.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = over.find((outcome) => outcome.status === 'rejected');
    expect(await failure(Promise.reject(refused?.reason))).toEqual({
      code: 'VALIDATION_ERROR',
      message: `An organisation may have at most ${MAX_CUSTOM_RULES} custom rules.`,
    });
    expect((await sanitiser.listRules(organisation)).filter((listed) => listed.kind === 'custom')).toHaveLength(MAX_CUSTOM_RULES);
  });

  it('does not bring back a rule removed while it was being changed (review: a change racing a remove and an add made 201 rules)', async () => {
    const sanitiser = application.core.sanitiser;
    const account = await application.core.accounts.createAccount({ email: 'rules-changed-meanwhile@example.com', plan: 'expert', credits: 0 });
    const organisation = account.organisation_id;
    const rule = (index: number) => keywordRule([`codename${index}`], { rule_id: `custom.codename-${index}` });
    for (let index = 0; index < MAX_CUSTOM_RULES; index += 1) await sanitiser.addCustomRule(organisation, rule(index));
    // Another admin removes the rule and adds another between this change's read and its write.
    const rules = application.store.sanitiserRules;
    const list = rules.list.bind(rules);
    let meanwhile = true;
    rules.list = async (organisationId) => {
      const listed = await list(organisationId);
      if (meanwhile) {
        meanwhile = false;
        await sanitiser.removeRule(organisation, 'custom.codename-0');
        await sanitiser.addCustomRule(organisation, rule(MAX_CUSTOM_RULES));
      }
      return listed;
    };
    try {
      expect(await failure(sanitiser.setRule(organisation, 'custom.codename-0', { severity: 'block' }))).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    } finally {
      rules.list = list;
    }
    const custom = (await sanitiser.listRules(organisation)).filter((listed) => listed.kind === 'custom');
    expect(custom).toHaveLength(MAX_CUSTOM_RULES);
    expect(custom.map((listed) => listed.rule_id)).not.toContain('custom.codename-0');
    expect((await sanitiser.scan(organisation, `hello codename${MAX_CUSTOM_RULES}`)).findings).toHaveLength(1);
  });

  it('says that an organisation does not exist rather than that it has no such rule', async () => {
    const sanitiser = application.core.sanitiser;
    expect(await failure(sanitiser.removeRule(missingOrganisation, 'custom.codename'))).toEqual({
      code: 'RESOURCE_NOT_FOUND',
      message: `No organisation with id ${missingOrganisation}.`,
    });
    expect((await failure(sanitiser.updateCustomRule(missingOrganisation, 'custom.codename', { enabled: false }))).message).toBe(
      `No organisation with id ${missingOrganisation}.`,
    );
    expect((await failure(sanitiser.removeRule(organisationId, 'custom.nothing'))).message).toBe('The organisation has no rule or override "custom.nothing".');
  });
});
