/**
 * Organisation rules: validation (with messages safe to show the user) and compilation. Custom
 * regexes run on RE2, whose matching time is linear in the text for every pattern, so no pattern
 * can stall a scan; the caps below bound the work and output of one scan on top of that.
 */
import RE2 from 're2';
import type { z } from 'zod';
import { PorchError } from '../errors.js';
import { isBuiltInRuleId } from './rule-catalog.js';
import { customRuleDefinitionSchema, ruleOverrideSchema } from './schemas.js';
import type { CustomRuleDefinition, FindingSeverity, RuleOverride } from './types.js';

/**
 * Most matches one custom rule reports per scan. A rule matching more is matching noise; the
 * first thousand already show it, and the cap bounds the findings a pathological rule (".")
 * can add to a 1 MiB text.
 */
export const MAX_MATCHES_PER_CUSTOM_RULE = 1_000;

/** Most custom rules an organisation may apply: each adds one linear pass over the text. */
export const MAX_CUSTOM_RULES = 200;

/** RE2 memory budget per compiled pattern; larger programs are refused as too complex. */
const RE2_MAX_PROGRAM_SIZE_ERROR = /pattern too large|program too big|compile failed/i;

function describeIssues(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : prefix;
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Syntax RE2 deliberately lacks because it needs backtracking (exponential time in the worst case). */
function unsupportedSyntax(pattern: string): string | null {
  if (/\(\?<?[=!]/.test(pattern)) return 'lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...))';
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences (\\1, \\k<name>)';
  if (/[*+?}]\+/.test(pattern)) return 'possessive quantifiers (*+, ++, ?+)';
  if (/\(\?>/.test(pattern)) return 'atomic groups ((?>...))';
  return null;
}

function compileRegex(pattern: string, flags: string): RE2 {
  const blocked = unsupportedSyntax(pattern);
  if (blocked !== null) {
    throw new PorchError(
      'VALIDATION_ERROR',
      `pattern: ${blocked} are not supported. Custom regexes run on RE2, a linear-time engine, so that no pattern can stall a scan; rewrite the pattern without them.`,
    );
  }
  try {
    return new RE2(pattern, `g${flags}`);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split(':')[0] ?? 'invalid syntax' : 'invalid syntax';
    if (RE2_MAX_PROGRAM_SIZE_ERROR.test(reason)) {
      throw new PorchError('VALIDATION_ERROR', 'pattern: the pattern is too complex to compile; split it into several rules.', {}, { cause: err });
    }
    throw new PorchError('VALIDATION_ERROR', `pattern: not a valid RE2 regular expression (${reason}).`, {}, { cause: err });
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
    throw new PorchError('VALIDATION_ERROR', `Invalid custom rule: ${describeIssues(parsed.error, 'rule')}.`);
  }
  const rule = parsed.data;
  if (rule.kind === 'regex') {
    if (rule.pattern === undefined) throw new PorchError('VALIDATION_ERROR', 'pattern: required when kind is "regex".');
    if (rule.keywords !== undefined || rule.case_sensitive !== undefined) {
      throw new PorchError('VALIDATION_ERROR', 'keywords and case_sensitive apply to kind "keywords" only; a regex rule uses pattern and flags.');
    }
    const compiled = compileRegex(rule.pattern, rule.flags ?? '');
    if (compiled.test('')) {
      throw new PorchError('VALIDATION_ERROR', 'pattern: matches the empty string, so it would report empty findings everywhere; require at least one character.');
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

/** Parses and checks one override of a built-in rule; unknown rule ids are refused. */
export function validateOverride(input: unknown): RuleOverride {
  const parsed = ruleOverrideSchema.safeParse(input);
  if (!parsed.success) {
    throw new PorchError('VALIDATION_ERROR', `Invalid rule override: ${describeIssues(parsed.error, 'override')}.`);
  }
  const override = parsed.data;
  if (!isBuiltInRuleId(override.rule_id)) {
    throw new PorchError('VALIDATION_ERROR', `rule_id: "${override.rule_id.slice(0, 80)}" is not a built-in rule; see BUILT_IN_RULES for the ids that can be overridden.`);
  }
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
// Compiled rules

export interface CustomMatch {
  readonly start: number;
  readonly end: number;
}

export interface CompiledCustomRule {
  readonly ruleId: string;
  readonly label: string;
  readonly severity: FindingSeverity;
  /** Matches in `text`, at most MAX_MATCHES_PER_CUSTOM_RULE, never empty. */
  find(text: string): CustomMatch[];
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

/** `settle` answers the end of an acceptable match starting at `start`, or -1 to reject it. */
function collectMatches(pattern: RE2, text: string, settle: (start: number, end: number) => number): CustomMatch[] {
  const matches: CustomMatch[] = [];
  pattern.lastIndex = 0;
  while (matches.length < MAX_MATCHES_PER_CUSTOM_RULE) {
    const match = pattern.exec(text);
    if (match === null) break;
    const start = match.index;
    const end = start + match[0].length;
    if (end === start) {
      // An empty match (possible with \b or ^ inside a longer pattern): step over it.
      pattern.lastIndex = end + 1;
      if (pattern.lastIndex > text.length) break;
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
  return matches;
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
  const pattern = new RE2(keywords.map(escapeForRe2).join('|'), caseSensitive ? 'g' : 'gi');
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
