/**
 * Redaction: a copy of the text with every finding replaced by a typed placeholder such as
 * `[EMAIL_1]`. The placeholder's type comes from the rule id, so a reader (or a model) still knows
 * what kind of value stood there; its number is stable within one text (and across the messages
 * of one model call), so the same value always gets the same placeholder and a model can still
 * tell "the same address twice" from "two addresses".
 */
import type { Finding } from './types.js';

/** What a placeholder looks like, to find those a text already holds. */
const PLACEHOLDER_LIKE = /\[[A-Z0-9_]+_\d+\]/g;

/**
 * A placeholder as redaction writes one, with its type captured (`NPM_TOKEN` of
 * `[NPM_TOKEN_1]`): its number has at most five digits, as redaction numbers no more values
 * than a scan's MAX_FINDINGS_PER_SCAN findings, so a value written as the number
 * (`[EMAIL_4111111111111111]`) is no placeholder (second review).
 */
const WRITTEN_PLACEHOLDER = String.raw`\[([A-Z0-9_]+)_[1-9]\d{0,4}\]`;
/** WRITTEN_PLACEHOLDER tried at one position. */
const PLACEHOLDER_AT = new RegExp(WRITTEN_PLACEHOLDER, 'y');
/** WRITTEN_PLACEHOLDER everywhere in a short string. */
const PLACEHOLDERS_IN = new RegExp(WRITTEN_PLACEHOLDER, 'g');

/**
 * Where the placeholder that starts at `index` (at its `[`) ends, or -1 when none starts there.
 * Only a placeholder of one of `types` (those a rule of the sanitiser makes) counts: anything
 * written in the shape, `[DE89370400440532013000_1]`, is not one (review: such text was read as
 * redacted, and a guardrail let the IBAN inside through).
 */
export function placeholderEndAt(text: string, index: number, types: ReadonlySet<string>): number {
  PLACEHOLDER_AT.lastIndex = index;
  const match = PLACEHOLDER_AT.exec(text);
  return match !== null && types.has(match[1] ?? '') ? PLACEHOLDER_AT.lastIndex : -1;
}

/** Whether `value` holds a placeholder of one of `types` (`https://oauth2:[GITLAB_TOKEN_1]@...`). */
export function holdsPlaceholder(value: string, types: ReadonlySet<string>): boolean {
  if (!value.includes('[')) return false;
  for (const match of value.matchAll(PLACEHOLDERS_IN)) if (types.has(match[1] ?? '')) return true;
  return false;
}

/** `pii.email` → `EMAIL`, `secret.github_token` → `GITHUB_TOKEN`, `custom.code-names` → `CODE_NAMES`. */
export function placeholderType(ruleId: string): string {
  const name = ruleId.slice(ruleId.indexOf('.') + 1);
  const type = name.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return type.length === 0 ? 'REDACTED' : type.toUpperCase();
}

/**
 * Personal data is mostly written with formatting that says nothing: `DE89 3704 0044 0532 0130 00`
 * is the IBAN `DE89370400440532013000`, `4111-1111-1111-1111` the card `4111 1111 1111 1111`. Those
 * values are compared by letters and digits alone (upper-cased), so each gets one placeholder
 * however it is written. These rules' values are compared as written: emails, URLs and IP
 * addresses, and the ids whose separator is part of the value (a Finnish HETU's and a Swedish
 * personnummer's `-` or `+` gives the century: `010190-123A` and `010190+123A` are two people,
 * review). So are secrets, whose every character counts.
 */
const COMPARED_AS_WRITTEN: ReadonlySet<string> = new Set(['pii.email', 'pii.url', 'pii.ip_address', 'pii.fi_hetu', 'pii.se_personnummer']);

/** The value a placeholder is keyed on: what makes two findings of `ruleId` the same value. */
function comparableValue(ruleId: string, value: string): string {
  if (!ruleId.startsWith('pii.') || COMPARED_AS_WRITTEN.has(ruleId)) return value;
  return value.replace(/[^\p{L}\p{N}]+/gu, '').toUpperCase();
}

/** Replaces findings by placeholders, numbered across every text it redacts. */
export interface Redactor {
  redact(text: string, findings: readonly Pick<Finding, 'rule_id' | 'start' | 'end'>[]): string;
}

/**
 * A redactor for `texts`, which share one numbering: the messages of one model call, so a value
 * in two messages gets one placeholder and two values never get the same one. A placeholder any
 * of the texts already holds ("see [EMAIL_1]") is not handed out again.
 */
export function createRedactor(texts: readonly string[]): Redactor {
  const numberByValue = new Map<string, number>();
  const countByType = new Map<string, number>();
  const taken = new Set<string>();
  for (const text of texts) for (const placeholder of text.match(PLACEHOLDER_LIKE) ?? []) taken.add(placeholder);

  function placeholderOf(ruleId: string, value: string): string {
    const type = placeholderType(ruleId);
    const key = `${type}\u0000${comparableValue(ruleId, value)}`;
    let number = numberByValue.get(key);
    if (number === undefined) {
      number = (countByType.get(type) ?? 0) + 1;
      while (taken.has(`[${type}_${number}]`)) number += 1;
      countByType.set(type, number);
      numberByValue.set(key, number);
    }
    return `[${type}_${number}]`;
  }

  return {
    /**
     * Replaces each finding in `text` by its placeholder; offsets refer to `text`, in any order.
     * Findings that overlap (an organisation rule inside a longer built-in finding, overlap.ts)
     * are replaced as one span, typed by the widest of them and numbered by the whole span's
     * text, so none of them is left in part and two different spans never read alike.
     */
    redact(text, findings) {
      if (findings.length === 0) return text;
      const ordered = [...findings].sort((left, right) => left.start - right.start || right.end - left.end);
      const parts: string[] = [];
      let cursor = 0;
      let span: { start: number; end: number; widest: (typeof ordered)[number] } | null = null;
      const replaceSpan = (): void => {
        if (span === null) return;
        parts.push(text.slice(cursor, span.start), placeholderOf(span.widest.rule_id, text.slice(span.start, span.end)));
        cursor = span.end;
      };
      for (const finding of ordered) {
        if (span !== null && finding.start < span.end) {
          if (finding.end - finding.start > span.widest.end - span.widest.start) span.widest = finding;
          span.end = Math.max(span.end, finding.end);
          continue;
        }
        replaceSpan();
        span = { start: finding.start, end: finding.end, widest: finding };
      }
      replaceSpan();
      parts.push(text.slice(cursor));
      return parts.join('');
    },
  };
}

/** `text` with each finding replaced by its placeholder, numbered within this text alone. */
export function redactText(text: string, findings: readonly Pick<Finding, 'rule_id' | 'start' | 'end'>[]): string {
  return findings.length === 0 ? text : createRedactor([text]).redact(text, findings);
}
