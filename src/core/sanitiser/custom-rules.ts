/**
 * Organisation rules: validation (with messages safe to show the user) and compilation. Custom
 * regexes run on RE2, where one search takes time linear in the text for every pattern, so no
 * pattern backtracks; the caps below bound how many searches and matches one scan makes.
 */
import RE2 from 're2';
import { PorchError } from '../errors.js';
import { formatZodError } from '../validation.js';
import { isBuiltInRuleId } from './rule-catalog.js';
import { CUSTOM_RULE_ID_PATTERN, customRuleDefinitionSchema, ruleOverrideSchema } from './schemas.js';
import type { CustomRuleDefinition, FindingSeverity, RuleOverride } from './types.js';

/**
 * Most matches one custom rule reports per scan. A rule matching more is matching noise; the
 * first thousand already show it, and the cap bounds the findings a pathological rule (".")
 * can add to a 1 MiB text.
 */
export const MAX_MATCHES_PER_CUSTOM_RULE = 1_000;

/**
 * Most RE2 searches one custom rule makes per scan, counting those whose match is empty or is
 * rejected (a keyword inside a longer word) as well as those kept. Each search is a call into RE2;
 * without this cap a rule matching empty at every word boundary made one per word. Twice the
 * match cap leaves room for rejected matches; a scan makes at most MAX_CUSTOM_RULES times this.
 */
export const MAX_SEARCHES_PER_CUSTOM_RULE = 2 * MAX_MATCHES_PER_CUSTOM_RULE;

/** Most custom rules an organisation may apply: each adds one linear pass over the text. */
export const MAX_CUSTOM_RULES = 200;

/**
 * Most characters of keywords and patterns an organisation's custom rules may hold in all, checked
 * when a rule is added. The whole set is read from the database, copied to the scan worker and
 * listed on the event loop, where each megabyte costs milliseconds; on the worker a rule of a
 * thousand long keywords takes about 100 ms to compile and reads text at about 3.5 µs a character
 * (bench/RESULTS.md). Without it, 200 rules of 1,000 keywords of 200 characters (40 million) were
 * allowed. A million is five such rules, or fifty of a thousand 20-character names.
 */
export const MAX_CUSTOM_RULE_CHARACTERS = 1_000_000;

/** The characters of keywords or pattern a custom rule counts toward MAX_CUSTOM_RULE_CHARACTERS. */
export function customRuleCharacters(rule: CustomRuleDefinition): number {
  return (rule.pattern?.length ?? 0) + (rule.keywords ?? []).reduce((total, keyword) => total + keyword.length, 0);
}

/** RE2 memory budget per compiled pattern; larger programs are refused as too complex. */
const RE2_MAX_PROGRAM_SIZE_ERROR = /pattern too large|program too big|compile failed/i;

/**
 * Constructs RE2 deliberately lacks because they need backtracking (exponential time in the
 * worst case), told apart by RE2's own compile error: RE2 reads escapes, character classes and
 * \Q...\E itself, so `\++`, `[(?=]` or `x\\1` are never mistaken for them. Only the construct is
 * named, never the pattern text, which may hold what the rule is meant to find.
 */
function unsupportedConstruct(code: string, fragment: string, pattern: string): string | null {
  if (code === 'invalid perl operator') {
    if (/^\(\?<?[=!]/.test(fragment)) return 'lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...))';
    if (fragment.startsWith('(?>')) return 'atomic groups ((?>...))';
    if (fragment === '(?P' && pattern.includes('(?P=')) return 'backreferences (\\1, \\k<name>, (?P=name))';
    return null;
  }
  if (code === 'invalid escape sequence' && /^\\(?:[1-9]|k)$/.test(fragment)) return 'backreferences (\\1, \\k<name>, (?P=name))';
  if (code === 'bad repetition operator' && /^(?:[*+?]|\{\d+(?:,\d*)?\})\??\+$/.test(fragment)) return 'possessive quantifiers (*+, ++, ?+, {n}+)';
  return null;
}

/** RE2 compile errors read "<what went wrong>: <the part of the pattern concerned>". */
function describeCompileError(err: unknown, pattern: string): string {
  const message = err instanceof Error ? err.message : '';
  const separator = message.indexOf(': ');
  const code = (separator === -1 ? message : message.slice(0, separator)).trim();
  const fragment = separator === -1 ? '' : message.slice(separator + 2);
  const construct = unsupportedConstruct(code, fragment, pattern);
  if (construct !== null) {
    return `pattern: ${construct} are not supported. Custom regexes run on RE2, a linear-time engine, so that no pattern can stall a scan; rewrite the pattern without them.`;
  }
  if (RE2_MAX_PROGRAM_SIZE_ERROR.test(code)) return 'pattern: the pattern is too complex to compile; split it into several rules.';
  // An escape is two characters of syntax, not content: naming it says what to fix.
  const namedEscape = code === 'invalid escape sequence' && /^\\[\x21-\x7e]$/.test(fragment) ? ` ${fragment}` : '';
  return `pattern: not a valid RE2 regular expression (${code === '' ? 'invalid syntax' : code}${namedEscape}).`;
}

function compileRegex(pattern: string, flags: string): RE2 {
  try {
    return new RE2(pattern, `g${flags}`);
  } catch (err) {
    throw new PorchError('VALIDATION_ERROR', describeCompileError(err, pattern), {}, { cause: err });
  }
}

/**
 * Parses and checks one custom rule. Throws PorchError VALIDATION_ERROR with a message naming
 * the field: bad shape, a regex RE2 cannot compile (lookaround and backreferences are named as
 * such), a pattern that matches the empty string, an empty keyword list.
 */
export function validateCustomRule(input: unknown): CustomRuleDefinition {
  const parsed = customRuleDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    throw new PorchError('VALIDATION_ERROR', `Invalid custom rule: ${formatZodError(parsed.error, { whole: 'rule' })}.`);
  }
  const rule = parsed.data;
  if (rule.kind === 'regex') {
    if (rule.pattern === undefined) throw new PorchError('VALIDATION_ERROR', 'pattern: required when kind is "regex".');
    if (rule.keywords !== undefined || rule.case_sensitive !== undefined) {
      throw new PorchError('VALIDATION_ERROR', 'keywords and case_sensitive apply to kind "keywords" only; a regex rule uses pattern and flags.');
    }
    const compiled = compileRegex(rule.pattern, rule.flags ?? '');
    if (compiled.test('')) {
      throw new PorchError(
        'VALIDATION_ERROR',
        'pattern: matches the empty string, so it would report empty findings everywhere; require at least one character.',
      );
    }
    return {
      rule_id: rule.rule_id,
      label: rule.label,
      severity: rule.severity,
      enabled: rule.enabled,
      kind: 'regex',
      pattern: rule.pattern,
      ...(rule.flags === undefined ? {} : { flags: rule.flags }),
    };
  }
  if (rule.keywords === undefined) throw new PorchError('VALIDATION_ERROR', 'keywords: required (at least one) when kind is "keywords".');
  if (rule.pattern !== undefined || rule.flags !== undefined) {
    throw new PorchError('VALIDATION_ERROR', 'pattern and flags apply to kind "regex" only; a keyword rule uses keywords and case_sensitive.');
  }
  return {
    rule_id: rule.rule_id,
    label: rule.label,
    severity: rule.severity,
    enabled: rule.enabled,
    kind: 'keywords',
    keywords: [...new Set(rule.keywords)],
    case_sensitive: rule.case_sensitive ?? false,
  };
}

/**
 * Whether the pattern uses RE2's `\C` (one byte, not one character): a match could then start or
 * end inside a UTF-8 sequence, and its offsets would not map back to the text (regression: a
 * finding past the text's end, and a redaction that swallowed a character the pattern cannot
 * match). Text quoted with \Q...\E is literal; an escaped backslash (`\\C`) is not the escape.
 */
function matchesSingleBytes(pattern: string): boolean {
  const unquoted = pattern.replace(/\\Q[\s\S]*?(?:\\E|$)/g, '');
  return /(?:^|[^\\])(?:\\\\)*\\C/.test(unquoted);
}

/**
 * validateCustomRule, plus the checks only a rule being added gets: a regex that can match empty
 * text at some positions is refused (see emptyMatchExample). Stored rules are not re-checked, so
 * a rule saved before a check existed keeps working.
 */
export function validateNewCustomRule(input: unknown): CustomRuleDefinition {
  const rule = validateCustomRule(input);
  if (rule.kind === 'regex' && matchesSingleBytes(rule.pattern ?? '')) {
    throw new PorchError(
      'VALIDATION_ERROR',
      'pattern: \\C (any single byte) is not supported: it can match part of a character, so a finding would not start or end on one; use . instead.',
    );
  }
  if (rule.kind === 'regex') {
    const example = emptyMatchExample(rule.pattern ?? '', rule.flags ?? '');
    if (example !== null) {
      throw new PorchError(
        'VALIDATION_ERROR',
        `pattern: can match empty text (${example}), where it would report nothing and cost a search per position; require at least one character, e.g. + instead of *.`,
      );
    }
  }
  return rule;
}

/** Parses and checks one override of a built-in rule; unknown rule ids are refused. */
export function validateOverride(input: unknown): RuleOverride {
  // The id first: a custom rule whose id lacks the "custom." prefix would otherwise be told that
  // an override has no label, kind or keywords.
  const ruleId = typeof input === 'object' && input !== null && 'rule_id' in input && typeof input.rule_id === 'string' ? input.rule_id : undefined;
  if (ruleId !== undefined && !isBuiltInRuleId(ruleId)) {
    const kind = CUSTOM_RULE_ID_PATTERN.test(ruleId)
      ? 'a custom rule, not a built-in one; overrides apply to the built-in rules that "porch sanitiser builtins" lists'
      : 'not a built-in rule: a custom rule\'s id is "custom." and a slug in lower case (custom.project-names), and an override names one of the built-in rules that "porch sanitiser builtins" lists';
    throw new PorchError('VALIDATION_ERROR', `rule_id: "${ruleId.slice(0, 80)}" is ${kind}.`);
  }
  const parsed = ruleOverrideSchema.safeParse(input);
  if (!parsed.success) {
    throw new PorchError('VALIDATION_ERROR', `Invalid rule override: ${formatZodError(parsed.error, { whole: 'override' })}.`);
  }
  const override = parsed.data;
  if (override.enabled === undefined && override.severity === undefined) {
    throw new PorchError('VALIDATION_ERROR', 'An override must set enabled, severity or both.');
  }
  return {
    rule_id: override.rule_id,
    ...(override.enabled === undefined ? {} : { enabled: override.enabled }),
    ...(override.severity === undefined ? {} : { severity: override.severity }),
  };
}

// ---------------------------------------------------------------------------------------------
// Patterns that can match empty text

/**
 * Characters standing for every context a zero-width match depends on: RE2's assertions (^ $ \A
 * \z \b \B) look only at the characters on either side, and these cover ASCII word characters,
 * blanks, line breaks, punctuation and non-ASCII text.
 */
const CONTEXT_CHARACTERS = ['', 'a', 'Z', '7', '_', ' ', '\t', '\n', '\r', '.', ',', '-', '@', '/', '"', 'é', '€', '😀'];

/**
 * A place where the pattern finds an empty match, or null. A pattern refused for matching ''
 * itself can still match empty at some positions: `\b[A-Z]*\b` at every word boundary of
 * lower-case prose, `\bx?` before every word. Such a rule reports nothing there but costs an RE2
 * search per position, so new rules are refused. Each two-character context is tried, with the
 * empty match between the two and at either end. It finds only real empty matches, so a refusal
 * is never wrong; a pattern it misses is still bounded by MAX_SEARCHES_PER_CUSTOM_RULE.
 */
export function emptyMatchExample(pattern: string, flags = ''): string | null {
  const compiled = compileRegex(pattern, flags);
  for (const before of CONTEXT_CHARACTERS) {
    for (const after of CONTEXT_CHARACTERS) {
      const probe = before + after;
      compiled.lastIndex = 0;
      // Matches are never empty until the one returned, so each search moves past the last.
      for (let match = compiled.exec(probe); match !== null; match = compiled.exec(probe)) {
        if (match[0].length === 0) return `at position ${match.index} of ${JSON.stringify(probe)}`;
      }
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Compiled rules

export interface CustomMatch {
  readonly start: number;
  readonly end: number;
}

/**
 * A rule's matches in one text. `complete` is false when a cap stopped the rule before it had read
 * the whole text: what lies past its last search was not looked at.
 */
export interface CustomRuleMatches {
  readonly matches: readonly CustomMatch[];
  readonly complete: boolean;
}

export interface CompiledCustomRule {
  readonly ruleId: string;
  readonly label: string;
  readonly severity: FindingSeverity;
  /** Matches in `text`, never empty: at most MAX_MATCHES_PER_CUSTOM_RULE, from at most MAX_SEARCHES_PER_CUSTOM_RULE searches. */
  find(text: string): CustomRuleMatches;
}

function escapeForRe2(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\\-/]/g, '\\$&');
}

const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

function isWordAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  // A surrogate half is part of a non-BMP character: test the whole code point.
  if (code >= 0xd800 && code <= 0xdfff) {
    const pointStart = code >= 0xdc00 && index > 0 ? index - 1 : index;
    const point = text.codePointAt(pointStart);
    return point !== undefined && WORD_CHARACTER.test(String.fromCodePoint(point));
  }
  return WORD_CHARACTER.test(text[index] ?? '');
}

/**
 * Non-ASCII characters RE2 matches for an ASCII letter when case is ignored: the Kelvin sign for
 * k and the long s for s. RE2's \b knows only ASCII word characters, so these need a way round it.
 */
const NON_ASCII_CASE_FOLDS: Readonly<Record<string, string>> = { k: '\u212A', s: '\u017F' };

/**
 * A keyword's edge character with RE2's \b on the side(s) given, so RE2 skips the occurrences
 * inside longer words itself instead of handing each to the whole-word test (which still decides,
 * and each rejected occurrence costs one of the rule's searches). \b is a necessary condition of
 * the Unicode whole-word test only for an ASCII word character, so other edges go unguarded; a
 * k or s ignoring case also matches its non-ASCII fold, unguarded and exact.
 */
function guardedEdge(char: string, before: boolean, after: boolean, caseSensitive: boolean): string {
  const escaped = escapeForRe2(char);
  if (!/^[A-Za-z0-9_]$/.test(char)) return escaped;
  const guarded = `${before ? '\\b' : ''}${escaped}${after ? '\\b' : ''}`;
  const fold = caseSensitive ? undefined : NON_ASCII_CASE_FOLDS[char.toLowerCase()];
  // The fold is matched case-sensitively: ignoring case it would match the ASCII letter too.
  return fold === undefined ? guarded : `(?:${guarded}|(?-i:${fold}))`;
}

function keywordSource(keyword: string, caseSensitive: boolean): string {
  const characters = Array.from(keyword);
  const first = characters[0] ?? '';
  if (characters.length === 1) return guardedEdge(first, true, true, caseSensitive);
  const middle = characters.slice(1, -1).join('');
  return `${guardedEdge(first, true, false, caseSensitive)}${escapeForRe2(middle)}${guardedEdge(characters.at(-1) ?? '', false, true, caseSensitive)}`;
}

/**
 * `settle` answers the end of an acceptable match starting at `start`, or -1 to reject it. Every
 * search counts toward MAX_SEARCHES_PER_CUSTOM_RULE, whether its match is kept, empty or rejected.
 * Stopped by either cap, the rule has not read the rest of the text: the result says so, and a
 * guardrail must not take the text for clean (a run of rejected near-misses, "ébluebird" two
 * thousand times, would otherwise hide the "bluebird" after it).
 */
function collectMatches(pattern: RE2, text: string, settle: (start: number, end: number) => number): CustomRuleMatches {
  const matches: CustomMatch[] = [];
  pattern.lastIndex = 0;
  for (let searches = 0; ; searches += 1) {
    if (searches >= MAX_SEARCHES_PER_CUSTOM_RULE || matches.length >= MAX_MATCHES_PER_CUSTOM_RULE) return { matches, complete: false };
    const match = pattern.exec(text);
    if (match === null) return { matches, complete: true };
    const start = match.index;
    const end = start + match[0].length;
    if (end === start) {
      // An empty match (a pattern emptyMatchExample does not catch, or a rule stored before it
      // was refused on adding): step over it.
      pattern.lastIndex = end + 1;
      if (pattern.lastIndex > text.length) return { matches, complete: true };
      continue;
    }
    const settledEnd = settle(start, end);
    if (settledEnd > start) {
      matches.push({ start, end: settledEnd });
      pattern.lastIndex = settledEnd;
    } else {
      pattern.lastIndex = start + 1;
    }
  }
}

export function compileCustomRule(rule: CustomRuleDefinition): CompiledCustomRule {
  if (rule.kind === 'regex') {
    const pattern = compileRegex(rule.pattern ?? '', rule.flags ?? '');
    return {
      ruleId: rule.rule_id,
      label: rule.label,
      severity: rule.severity,
      find: (text) => collectMatches(pattern, text, (_start, end) => end),
    };
  }
  const caseSensitive = rule.case_sensitive === true;
  const keywords = [...(rule.keywords ?? [])].sort((left, right) => right.length - left.length);
  const foldedKeywords = keywords.map((keyword) => (caseSensitive ? keyword : keyword.toLowerCase()));
  // RE2 runs the alternation as one automaton, so a thousand keywords cost one pass.
  const pattern = new RE2(keywords.map((keyword) => keywordSource(keyword, caseSensitive)).join('|'), caseSensitive ? 'g' : 'gi');
  const isWholeWord = (text: string, start: number, end: number): boolean =>
    (!isWordAt(text, start) || !isWordAt(text, start - 1)) && (!isWordAt(text, end - 1) || !isWordAt(text, end));
  return {
    ruleId: rule.rule_id,
    label: rule.label,
    severity: rule.severity,
    // Whole words only: "Falcon" must not match inside "Falconry". The boundary applies on a
    // side only where the keyword itself starts or ends with a word character. When the longest
    // keyword at a position fails it, a shorter one at the same position may still fit.
    find: (text) =>
      collectMatches(pattern, text, (start, end) => {
        if (isWholeWord(text, start, end)) return end;
        for (const keyword of foldedKeywords) {
          const candidateEnd = start + keyword.length;
          if (candidateEnd >= end || candidateEnd > text.length) continue;
          const slice = text.slice(start, candidateEnd);
          if ((caseSensitive ? slice : slice.toLowerCase()) === keyword && isWholeWord(text, start, candidateEnd)) return candidateEnd;
        }
        return -1;
      }),
  };
}
