/**
 * Redaction: a copy of the text with every finding replaced by a typed placeholder such as
 * `[EMAIL_1]`. The placeholder's type comes from the rule id, so a reader (or a model) still knows
 * what kind of value stood there; its number is stable within one text, so the same value always
 * gets the same placeholder and a model can still tell "the same address twice" from "two addresses".
 */
import type { Finding } from './types.js';

/** What a placeholder looks like, to find those a text already holds. */
const PLACEHOLDER_LIKE = /\[[A-Z0-9_]+_\d+\]/g;

/** `pii.email` → `EMAIL`, `secret.github_token` → `GITHUB_TOKEN`, `custom.code-names` → `CODE_NAMES`. */
export function placeholderType(ruleId: string): string {
  const name = ruleId.slice(ruleId.indexOf('.') + 1);
  const type = name.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return type.length === 0 ? 'REDACTED' : type.toUpperCase();
}

/**
 * Replaces each finding in `text` by its placeholder. Findings never overlap (the overlap policy
 * keeps one per group) and their offsets refer to `text`; they may come in any order.
 */
export function redactText(text: string, findings: readonly Pick<Finding, 'rule_id' | 'start' | 'end'>[]): string {
  if (findings.length === 0) return text;
  const ordered = [...findings].sort((left, right) => left.start - right.start || right.end - left.end);
  const numberByValue = new Map<string, number>();
  const countByType = new Map<string, number>();
  // A placeholder the text already holds ("see [EMAIL_1]") is not handed out again: two different
  // values must not read alike.
  const taken = new Set(text.match(PLACEHOLDER_LIKE));
  const parts: string[] = [];
  let cursor = 0;
  for (const finding of ordered) {
    // A finding inside one already replaced adds nothing (findings do not overlap, but a caller
    // may pass its own list).
    if (finding.start < cursor) continue;
    const type = placeholderType(finding.rule_id);
    const value = text.slice(finding.start, finding.end);
    const key = `${type}\u0000${value}`;
    let number = numberByValue.get(key);
    if (number === undefined) {
      number = (countByType.get(type) ?? 0) + 1;
      while (taken.has(`[${type}_${number}]`)) number += 1;
      countByType.set(type, number);
      numberByValue.set(key, number);
    }
    parts.push(text.slice(cursor, finding.start), `[${type}_${number}]`);
    cursor = finding.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}
