/**
 * Test fixtures. Fake credentials are assembled at run time from a seeded generator so that no
 * literal token sits in the repository for other secret scanners (or push protection) to flag.
 */
import { isPorchError } from '../../../src/core/errors.js';
import { createSanitiser, type CustomRuleDefinition, type Finding, type ScanResult } from '../../../src/core/sanitiser/index.js';

export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';
export const BASE64 = `${ALPHANUMERIC}+/`;

/** Deterministic pseudo-random string (mulberry32) over `alphabet`. */
export function randomText(alphabet: string, length: number, seed = 7): string {
  let state = seed >>> 0;
  let result = '';
  for (let index = 0; index < length; index += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    result += alphabet[((value ^ (value >>> 14)) >>> 0) % alphabet.length];
  }
  return result;
}

/** `prefix` (given in pieces, so the source never spells it) followed by random characters. */
export function fakeToken(prefixParts: readonly string[], alphabet: string, length: number, seed = 7): string {
  return prefixParts.join('') + randomText(alphabet, length, seed);
}

export function pemBlock(kind: string, lines = 8, seed = 11): string {
  const body = Array.from({ length: lines }, (_, index) => randomText(BASE64, 64, seed + index)).join('\n');
  const dashes = '-'.repeat(5);
  return `${dashes}BEGIN ${kind}${dashes}\n${body}\n${dashes}END ${kind}${dashes}`;
}

const defaultSanitiser = createSanitiser();

export function scan(text: string): ScanResult {
  return defaultSanitiser.scan(text);
}

export function findingsOf(text: string, ruleId?: string): Finding[] {
  const findings = defaultSanitiser.scan(text).findings;
  return ruleId === undefined ? findings : findings.filter((finding) => finding.rule_id === ruleId);
}

/** The matched strings of one rule, for compact assertions. */
export function matchesOf(text: string, ruleId: string): string[] {
  return findingsOf(text, ruleId).map((finding) => finding.match);
}

/** Describes findings for assertion messages. */
export function summarise(findings: readonly Finding[]): string {
  return JSON.stringify(findings.map((finding) => `${finding.rule_id}:${finding.match}`));
}

/** A custom regex rule with defaults for everything but the pattern. */
export function regexRule(pattern: string, extra: Partial<CustomRuleDefinition> = {}): CustomRuleDefinition {
  return { rule_id: 'custom.test', label: 'Test rule', severity: 'warn', enabled: true, kind: 'regex', pattern, ...extra };
}

/** The message of the VALIDATION_ERROR `action` throws; fails when it throws nothing or something else. */
export function validationMessage(action: () => unknown): string {
  try {
    action();
  } catch (err) {
    if (isPorchError(err) && err.code === 'VALIDATION_ERROR') return err.message;
    throw err;
  }
  throw new Error('expected a VALIDATION_ERROR');
}
