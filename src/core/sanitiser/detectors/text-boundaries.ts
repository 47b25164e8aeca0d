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
