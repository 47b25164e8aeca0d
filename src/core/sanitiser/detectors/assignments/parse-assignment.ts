/**
 * Parses `name <operator> value` around a keyword: the name the keyword sits in, the operator
 * or form that joins it to a value (`=`, `:`, `=>`, comparisons, XML `key=... value=...`, call
 * arguments, CLI flags, a string pair), and where the value starts and ends. Judging the name and
 * the value is left to the detector.
 */
import {
  AMPERSAND,
  APOSTROPHE,
  BACKSLASH,
  BACKTICK,
  CARRIAGE_RETURN,
  COLON,
  COMMA,
  DOUBLE_QUOTE,
  EQUALS,
  EXCLAMATION_MARK,
  FULL_STOP,
  GREATER_THAN,
  HYPHEN,
  LEFT_PARENTHESIS,
  LESS_THAN,
  LOWER_I,
  LOWER_V,
  QUESTION_MARK,
  RIGHT_CURLY_BRACKET,
  RIGHT_PARENTHESIS,
  RIGHT_SQUARE_BRACKET,
  SEMICOLON,
  SPACE,
  UNDERSCORE,
} from '../chars.js';
import { codeAt, isAsciiAlphanumeric, isWordCode, skipBlanks } from '../text-boundaries.js';
import { MAX_NAME_LENGTH } from './classify-name.js';

/** Values longer than this are data blobs, not credentials (signed tokens reach about 1,500). */
const MAX_VALUE_LENGTH = 2_048;
/** Enough text after a name for blanks, then `value =` or `is` and blanks, then a quote. */
const WORD_AFTER_NAME_WINDOW = 32;

export type Form = 'operator' | 'comparison' | 'whitespace' | 'glued' | 'flag' | 'call' | 'pair';

export interface Assignment {
  readonly name: string;
  readonly nameStart: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly value: string;
  readonly quoted: boolean;
  /** Longer than any credential: judged as nothing, but its text need not be read again. */
  readonly overlong: boolean;
  readonly form: Form;
}

function isNameCode(code: number): boolean {
  return isWordCode(code) || code === FULL_STOP || code === HYPHEN;
}

const OPERATORS: readonly { text: string; form: Form }[] = [
  { text: ':=', form: 'operator' },
  { text: '=>', form: 'operator' },
  { text: '===', form: 'comparison' },
  { text: '!==', form: 'comparison' },
  { text: '==', form: 'comparison' },
  { text: '!=', form: 'comparison' },
  { text: '?=', form: 'operator' },
  { text: '=', form: 'operator' },
  { text: ':', form: 'operator' },
  { text: '->', form: 'operator' },
];

function isQuote(code: number): boolean {
  return code === DOUBLE_QUOTE || code === APOSTROPHE || code === BACKTICK;
}

/** Characters that end an unquoted value: controls, blanks, quotes, code and markup delimiters. */
function endsUnquotedValue(code: number): boolean {
  return (
    code <= SPACE ||
    isQuote(code) ||
    code === COMMA ||
    code === SEMICOLON ||
    code === RIGHT_PARENTHESIS ||
    code === RIGHT_CURLY_BRACKET ||
    code === RIGHT_SQUARE_BRACKET ||
    code === LESS_THAN ||
    code === GREATER_THAN
  );
}

/**
 * Whether the `&` at `at` ends an unquoted value: one that separates URL query parameters
 * (`&name=`, also written `&amp;name=` in markup), a shell's `&&` or `& `, or the end. Any other
 * `&` is part of the value (regression: `DB_PASSWORD=Tr0ub4dor&3xyzQ` was redacted up to the `&`,
 * and the rest of the password reached the model).
 */
const SEPARATING_AMPERSAND = /^&(?:amp;)?(?:[A-Za-z_][\w.[\]-]*=|&|\s|$)/;

function endsAtAmpersand(text: string, at: number): boolean {
  return SEPARATING_AMPERSAND.test(text.slice(at, at + 80));
}

/**
 * The value starting at `start`. An over-long value is still returned (flagged) so that the
 * caller can skip the keywords inside the text it has already read: repeated `password=` stays
 * linear instead of rereading up to MAX_VALUE_LENGTH characters per keyword.
 */
function readValue(text: string, start: number): { start: number; end: number; quoted: boolean; overlong: boolean } | null {
  // A quote escaped inside a string literal ("{\"key\":\"value\"}") still delimits the value.
  const escaped = codeAt(text, start) === BACKSLASH && isQuote(codeAt(text, start + 1));
  const open = escaped ? start + 1 : start;
  if (isQuote(codeAt(text, open))) {
    const quote = text[open] ?? '';
    let close = text.indexOf(quote, open + 1);
    const newline = text.indexOf('\n', open + 1);
    if (close === -1 || (newline !== -1 && newline < close)) return readUnclosedValue(text, open + 1, newline === -1 ? text.length : newline);
    if (close - open > MAX_VALUE_LENGTH) return null;
    if (escaped && text.charCodeAt(close - 1) === BACKSLASH) close -= 1;
    return { start: open + 1, end: close, quoted: true, overlong: false };
  }
  let end = start;
  for (; end < text.length && end - start <= MAX_VALUE_LENGTH; end += 1) {
    const code = text.charCodeAt(end);
    if (endsUnquotedValue(code)) break;
    if (code === AMPERSAND) {
      if (endsAtAmpersand(text, end)) break;
      // `&amp;` inside a value is its `&` written for markup: its `;` does not end the value.
      if (text.startsWith('&amp;', end)) end += 4;
    }
  }
  while (end > start && text.charCodeAt(end - 1) === BACKSLASH) end -= 1; // a line continuation or escape
  if (end === start) return null;
  return { start, end, quoted: false, overlong: end - start > MAX_VALUE_LENGTH };
}

/**
 * A string that does not close on its line: text cut off after the value (a pasted fragment, a
 * truncated log line). The rest of the line is the value when it is one bare word; a string
 * spanning lines, or holding words, is not read.
 */
function readUnclosedValue(text: string, start: number, lineEnd: number): { start: number; end: number; quoted: boolean; overlong: boolean } | null {
  let end = lineEnd;
  if (codeAt(text, end - 1) === CARRIAGE_RETURN) end -= 1;
  if (end === start || end - start > MAX_VALUE_LENGTH) return null;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= SPACE || isQuote(code) || code === BACKSLASH) return null;
  }
  return { start, end, quoted: false, overlong: false };
}

/** The last string literal among a call's first arguments: NetworkCredential("user", "pass"). */
function readCallPassword(text: string, openParen: number): { start: number; end: number } | null {
  const close = text.indexOf(')', openParen);
  if (close === -1 || close - openParen > MAX_VALUE_LENGTH) return null;
  const literals = [...text.slice(openParen + 1, close).matchAll(/(["'])((?:(?!\1)[^\n])*)\1/g)];
  const last = literals[literals.length - 1];
  if (literals.length < 2 || last === undefined) return null;
  const start = openParen + 1 + last.index + 1;
  return { start, end: start + (last[2] ?? '').length };
}

/**
 * The second of two string literals separated by a comma, after a quoted secret name:
 * `config.set('api_key', 'v')`, `buildConfigField 'String', 'API_KEY', '"v"'` (a literal holding
 * a quoted literal, as Gradle wants), `("SECRET_KEY", "v")`.
 */
function readPairValue(text: string, afterNameQuote: number): { start: number; end: number } | null {
  let cursor = skipBlanks(text, afterNameQuote);
  if (codeAt(text, cursor) !== COMMA) return null;
  cursor = skipBlanks(text, cursor + 1);
  if (!isQuote(codeAt(text, cursor))) return null;
  const value = readValue(text, cursor);
  if (value === null || !value.quoted) return null;
  let { start, end } = value;
  if (end - start >= 2 && codeAt(text, start) === DOUBLE_QUOTE && codeAt(text, end - 1) === DOUBLE_QUOTE) {
    start += 1;
    end -= 1;
  }
  return { start, end };
}

/**
 * A string literal that opens with a connection-string segment (`"Password=s3cr3t;..."`, and
 * `"...; " & "Password =s3cr3t;"` when the string is built in pieces): `=` follows the name and
 * the value is a bare word that ends the segment. `"password=" + pw` opens no value.
 */
function opensConnectionStringSegment(text: string, afterName: number): boolean {
  const operator = skipBlanks(text, afterName);
  if (codeAt(text, operator) !== EQUALS) return false;
  const next = codeAt(text, operator + 1);
  return next !== EQUALS && next !== GREATER_THAN && !isQuote(codeAt(text, skipBlanks(text, operator + 1)));
}

export function parseAssignment(text: string, keywordStart: number, keywordEnd: number): Assignment | null {
  let nameStart = keywordStart;
  while (nameStart > 0 && keywordStart - nameStart < MAX_NAME_LENGTH && isNameCode(text.charCodeAt(nameStart - 1))) nameStart -= 1;
  while (nameStart < keywordStart && !isAsciiAlphanumeric(text.charCodeAt(nameStart)) && text.charCodeAt(nameStart) !== UNDERSCORE) nameStart += 1;
  let nameEnd = keywordEnd;
  while (nameEnd < text.length && nameEnd - nameStart < MAX_NAME_LENGTH && isWordCode(text.charCodeAt(nameEnd))) nameEnd += 1;
  // "secret-key = v", "client.secret: v": a '-' or '.' continues the name when an operator follows
  // the next segment; otherwise it glues a value to the name ("cloudplanSECRET-ABCD1234").
  // Bounded by MAX_NAME_LENGTH like the scans above (regression: in "key-key-key-...", every
  // occurrence followed the segments to the end of the text, quadratic time; figures in
  // bench/sanitiser-bench-notes.md).
  while (nameEnd - nameStart < MAX_NAME_LENGTH) {
    const separator = codeAt(text, nameEnd);
    if (separator !== HYPHEN && separator !== FULL_STOP) break;
    let segmentEnd = nameEnd + 1;
    while (segmentEnd < text.length && segmentEnd - nameStart < MAX_NAME_LENGTH && isWordCode(text.charCodeAt(segmentEnd))) segmentEnd += 1;
    const afterSegment = codeAt(text, skipBlanks(text, segmentEnd));
    const segmentIsName = segmentEnd > nameEnd + 1 && /^[A-Za-z_]+$/.test(text.slice(nameEnd + 1, segmentEnd));
    if (
      !segmentIsName ||
      !(afterSegment === EQUALS || afterSegment === COLON || isQuote(afterSegment) || afterSegment === HYPHEN || afterSegment === FULL_STOP)
    )
      break;
    nameEnd = segmentEnd;
  }
  const name = text.slice(nameStart, nameEnd);
  let cursor = nameEnd;
  // A quoted name must close right after itself: in "Password:" the colon is part of a string.
  const escapedQuoteBefore = codeAt(text, nameStart - 1) === DOUBLE_QUOTE && codeAt(text, nameStart - 2) === BACKSLASH;
  const nameQuote = codeAt(text, nameStart - 1);
  if (isQuote(nameQuote)) {
    if (escapedQuoteBefore && codeAt(text, cursor) === BACKSLASH) cursor += 1;
    if (codeAt(text, cursor) === nameQuote) {
      cursor += 1;
      const pair = readPairValue(text, cursor);
      if (pair !== null)
        return {
          name,
          nameStart,
          valueStart: pair.start,
          valueEnd: pair.end,
          value: text.slice(pair.start, pair.end),
          quoted: true,
          overlong: false,
          form: 'pair',
        };
    } else if (codeAt(text, cursor) === COLON && codeAt(text, cursor + 1) === SPACE && name.includes('-')) {
      // A whole HTTP header in one string ('X-Api-Key: v', "Private-Token: v"): the value runs
      // to the closing quote. Header names are hyphenated; "Password: " in prose is not one.
      const header = readValue(text, skipBlanks(text, cursor + 1));
      if (header === null || header.quoted || codeAt(text, header.end) !== nameQuote) return null;
      return {
        name,
        nameStart,
        valueStart: header.start,
        valueEnd: header.end,
        value: text.slice(header.start, header.end),
        quoted: false,
        overlong: header.overlong,
        form: 'operator',
      };
    } else if (!opensConnectionStringSegment(text, cursor)) {
      return null;
    }
  }
  if (codeAt(text, cursor) === RIGHT_SQUARE_BRACKET) cursor += 1; // d["password"] = ...
  const afterName = cursor;
  cursor = skipBlanks(text, cursor);
  let form: Form | null = null;
  const operatorStart = codeAt(text, cursor);
  // Operators start with one of = : ! ? - ; checking the character first skips the list for
  // the common case of a keyword inside a word or a sentence.
  if (
    operatorStart === EQUALS ||
    operatorStart === COLON ||
    operatorStart === EXCLAMATION_MARK ||
    operatorStart === QUESTION_MARK ||
    operatorStart === HYPHEN
  ) {
    for (const operator of OPERATORS) {
      if (text.startsWith(operator.text, cursor)) {
        form = operator.form;
        cursor += operator.text.length;
        break;
      }
    }
  }
  if (form === null) {
    const next = codeAt(text, afterName);
    if (next === LEFT_PARENTHESIS) {
      const literal = readCallPassword(text, afterName);
      if (literal === null) return null;
      return {
        name,
        nameStart,
        valueStart: literal.start,
        valueEnd: literal.end,
        value: text.slice(literal.start, literal.end),
        quoted: true,
        overlong: false,
        form: 'call',
      };
    }
    if (cursor === nameEnd && (next === HYPHEN || next === UNDERSCORE)) {
      form = 'glued';
      cursor += 1;
    } else if (cursor > afterName) {
      // The word after the name may be `value` of an XML attribute pair (after a quoted name) or
      // `is` of a sentence (after a bare one); its first letter rules both out cheaply.
      const word = codeAt(text, cursor);
      if ((word === LOWER_I || word === LOWER_V) && isQuote(nameQuote) === (word === LOWER_V)) {
        const ahead = text.slice(afterName, afterName + WORD_AFTER_NAME_WINDOW);
        const xmlValue = word === LOWER_V ? /^\s+value\s*=\s*/.exec(ahead) : null;
        const isClause = word === LOWER_I ? /^\s+is\s+(?=["'`])/.exec(ahead) : null;
        if (xmlValue !== null) {
          // <add key="DbPassword" value="..."/>
          form = 'operator';
          cursor = afterName + xmlValue[0].length;
        } else if (isClause !== null) {
          // "the password is 'hunter22'"
          form = 'comparison';
          cursor = afterName + isClause[0].length;
        }
      }
      if (form === null && afterName === nameEnd) form = codeAt(text, nameStart - 1) === HYPHEN ? 'flag' : 'whitespace';
      if (form === null) return null;
    } else {
      return null;
    }
  }
  if (form === 'operator' && text.charCodeAt(cursor - 1) === COLON && codeAt(text, cursor) === COLON) return null; // a::b
  cursor = skipBlanks(text, cursor);
  const value = readValue(text, cursor);
  if (value === null) return null;
  return {
    name,
    nameStart,
    valueStart: value.start,
    valueEnd: value.end,
    value: text.slice(value.start, value.end),
    quoted: value.quoted,
    overlong: value.overlong,
    form,
  };
}
