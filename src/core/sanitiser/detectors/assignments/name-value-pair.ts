/**
 * A setting written as a name/value pair rather than `NAME=value`: a Kubernetes or Helm env
 * entry (`- name: JWT_SECRET` with `value: ...` on one of the next three lines), an ECS task
 * definition or any JSON `{"name": "DB_PASSWORD", "value": "..."}`. The pair is returned as the
 * assignment `NAME: value` would be, so that the name is classified and the value judged exactly
 * as for one (detector.ts): a secret name's value as a generic secret, a password name's as a
 * password, AWS_SECRET_ACCESS_KEY's by its own format. Pairs are found from the secret words in
 * their names (the detector's keywords) rather than from `name:`, which YAML holds on every
 * other line: as a prefilter keyword it cost every scan of code (bench/sanitiser-bench-notes.md,
 * `PASSWORD_NAME_WORDS`, the name this reading had in password-contexts.ts).
 */
import { APOSTROPHE, COLON, DOUBLE_QUOTE, SPACE, TAB } from '../chars.js';
import { codeAt, isWordCode } from '../text-boundaries.js';
import { MAX_NAME_LENGTH } from './classify-name.js';
import type { Assignment } from './parse-assignment.js';

/**
 * `name: X` and `value: ...` on one of the next three lines, other keys or comments between
 * (Helm values, Pod env). `valueFrom:` is no `value:`: a reference to a Secret holds no value.
 */
const YAML_PAIR =
  /(?:name|Name):[ \t]{0,10}["']?([A-Za-z_][\w.-]{0,79})["']?[ \t]{0,10}\r?\n(?:[ \t]{0,40}(?:[\w-]{1,40}:|#)[^\r\n]{0,200}\r?\n){0,2}?[ \t]{0,40}(?:value|Value):[ \t]{0,10}(["']?)([^\s"'#][^\r\n"']{0,199}?)\2[ \t]{0,10}(?:#[^\r\n]{0,200})?(?=\r?\n|$)/y;

/** `"name": "X", "value": "..."` in JSON (an ECS task definition, a Pod in JSON), also single-quoted. */
const JSON_PAIR =
  /(["'])(?:name|Name)\1[ \t]{0,10}:[ \t]{0,10}(["'])([A-Za-z_][\w.-]{0,79})\2[ \t]{0,10},\s{0,200}(["'])(?:value|Value)\4[ \t]{0,10}:[ \t]{0,10}(?:"([^"\\\r\n]{1,2048})"|'([^'\\\r\n]{1,2048})')/y;

/** The most blanks taken between `name:` and the name. */
const NAME_KEY_BLANKS = 10;

/** Whether a code unit may be in a name of a pair (`[\w.-]`). */
function isNameCode(code: number): boolean {
  return isWordCode(code) || code === 46 || code === 45;
}

function isQuoteCode(code: number): boolean {
  return code === DOUBLE_QUOTE || code === APOSTROPHE;
}

/** Steps back over at most ten blanks (spaces and tabs) before `from`. */
function blanksBefore(text: string, from: number): number {
  let cursor = from;
  for (let blanks = 0; blanks < NAME_KEY_BLANKS && (codeAt(text, cursor - 1) === SPACE || codeAt(text, cursor - 1) === TAB); blanks += 1) cursor -= 1;
  return cursor;
}

/**
 * Where the colon after the key of the name holding the keyword at `keywordStart` is, read
 * backwards: the name's characters, an optional quote, at most ten blanks, `:`. Where the keyword
 * is in no such value (`password = ...`, most of them in code), the walk stops within a few
 * characters; -1 then.
 */
function colonBeforeName(text: string, keywordStart: number): number {
  let cursor = keywordStart;
  while (cursor > 0 && keywordStart - cursor <= MAX_NAME_LENGTH && isNameCode(text.charCodeAt(cursor - 1))) cursor -= 1;
  if (keywordStart - cursor > MAX_NAME_LENGTH) return -1;
  if (isQuoteCode(codeAt(text, cursor - 1))) cursor -= 1;
  cursor = blanksBefore(text, cursor);
  return codeAt(text, cursor - 1) === COLON ? cursor - 1 : -1;
}

/** Where the key `name` (YAML) or `"name"` (JSON) before `colon` starts, and which it is. */
function nameKeyBefore(text: string, colon: number): { keyStart: number; json: boolean } | null {
  if (text.startsWith('name', colon - 4) || text.startsWith('Name', colon - 4)) {
    // `hostname:`, `container-name:` and `.name:` are other keys; `"name":` is JSON's.
    const before = codeAt(text, colon - 5);
    return isNameCode(before) || isQuoteCode(before) ? null : { keyStart: colon - 4, json: false };
  }
  const keyEnd = blanksBefore(text, colon);
  const quote = codeAt(text, keyEnd - 1);
  if (!isQuoteCode(quote) || codeAt(text, keyEnd - 6) !== quote) return null;
  const key = text.slice(keyEnd - 5, keyEnd - 1);
  return key === 'name' || key === 'Name' ? { keyStart: keyEnd - 6, json: true } : null;
}

/**
 * The name/value pair whose name holds the keyword at [keywordStart, keywordEnd), as an
 * assignment of the operator form; null when the keyword is in no pair's name.
 */
export function readNameValuePair(text: string, keywordStart: number, keywordEnd: number): Assignment | null {
  const colon = colonBeforeName(text, keywordStart);
  const key = colon === -1 ? null : nameKeyBefore(text, colon);
  if (key === null) return null;
  const pattern = key.json ? JSON_PAIR : YAML_PAIR;
  pattern.lastIndex = key.keyStart;
  const match = pattern.exec(text);
  if (match === null) return null;
  const name = (key.json ? match[3] : match[1]) ?? '';
  const value = (key.json ? (match[5] ?? match[6]) : match[3]) ?? '';
  // The name starts right after the colon's blanks and optional quote: the walk found it there.
  const nameStart = text.indexOf(name, colon);
  if (name === '' || value === '' || nameStart > keywordStart || nameStart + name.length < keywordEnd) return null;
  const valueStart = key.json ? match.index + match[0].length - 1 - value.length : match.index + match[0].lastIndexOf(value);
  const quoted = key.json || (match[2] ?? '') !== '';
  return { name, nameStart, valueStart, valueEnd: valueStart + value.length, value, quoted, overlong: false, form: 'operator' };
}
