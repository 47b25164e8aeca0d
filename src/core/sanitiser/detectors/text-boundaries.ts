/** Character tests shared by the detectors (ASCII only: token alphabets are ASCII). */
import { SPACE, TAB } from './chars.js';

export function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export function isAsciiAlphanumeric(code: number): boolean {
  return isAsciiLetter(code) || isAsciiDigit(code);
}

/** Letters, digits and `_`: the characters of an identifier. */
export function isWordCode(code: number): boolean {
  return isAsciiAlphanumeric(code) || code === 95;
}

/** Whether a code unit is white space to a regex's `\s` (ASCII answered without the regex). */
export function isRegexSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return NON_ASCII_SPACE.test(String.fromCharCode(code));
}
const NON_ASCII_SPACE = /\s/;

/** charCodeAt that answers NaN outside the text, which every test above treats as "no". */
export function codeAt(text: string, index: number): number {
  return index >= 0 && index < text.length ? text.charCodeAt(index) : Number.NaN;
}

/** The index of the first character at or after `index` that is not a space or a tab. */
export function skipBlanks(text: string, index: number): number {
  let cursor = index;
  while (cursor < text.length && (text.charCodeAt(cursor) === SPACE || text.charCodeAt(cursor) === TAB)) cursor += 1;
  return cursor;
}

/**
 * The end of the line holding `from` (the index of its line feed, or the end of the text), but
 * at most `maxCharacters` on: a detector that looks at "the rest of the line" once per keyword
 * would otherwise read a megabyte-long line once per keyword on it.
 */
export function lineEndWithin(text: string, from: number, maxCharacters: number): number {
  const limit = Math.min(text.length, from + maxCharacters);
  for (let index = from; index < limit; index += 1) if (text.charCodeAt(index) === 10) return index;
  return limit;
}

/** The start of the line holding `from`, looking back at most `maxCharacters`; -1 when no line start is that close. */
export function lineStartWithin(text: string, from: number, maxCharacters: number): number {
  const limit = Math.max(0, from - maxCharacters);
  for (let index = from - 1; index >= limit; index -= 1) if (text.charCodeAt(index) === 10) return index + 1;
  return limit === 0 ? 0 : -1;
}
