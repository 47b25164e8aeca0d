/**
 * Digit-shaped personal data: payment cards, US SSNs, national ids with checksums, IPv4
 * addresses and phone numbers. One regex finds runs of digits and separators; each run is
 * classified once, most specific shape first, with checksums and libphonenumber-js as validators.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { isValidBrazilCpf, isValidUsSsn, passesLuhn, passesVerhoeff } from '../validators.js';
import { DIGIT_SHAPES_PRESENT, type DigitRuns, digitRuns, isRunCharacter, NUMBER_RUN_PRESENT_SOURCE } from './digit-shapes.js';
import { isPossibleInternational, isPossibleNational, isValidNanp } from './phone-validation.js';
import { CJK_PHONE_LABELS, PHONE_LABEL_WORDS, PHONE_PROSE_WORDS } from './phone-words.js';
import { codeAt, isAsciiAlphanumeric, isAsciiDigit, isRegexSpace, isWordCode } from './text-boundaries.js';

/**
 * A run of digits joined by separators, with an optional leading '+' or '(' and a phone
 * extension (its one capturing group). At least 7 characters: nothing shorter is a card, SSN, IP or phone
 * number; at most 42 from its first digit: nothing longer is one either, and the bound keeps a
 * megabyte of digits linear. A run the bound cuts is read whole instead, as numbers written one
 * after another (forEachNumberRun). The detector reads its matches from the digit runs it shares
 * with the national-id detector; this regex defines them, and searches itself where the runs
 * cannot say. Exported for the test that the two agree.
 */
export const NUMBER_RUN = /[+(]{0,2}\d[\d\-. ()/\t]{5,40}\d(\s?(?:x|ext\.?|#)\s?\d{1,6})?/g;
/** NUMBER_RUN's extension, tried where a run ends. */
const EXTENSION_AFTER_RUN = /\s?(?:x|ext\.?|#)\s?\d{1,6}/y;
/** The fewest characters from a run's first digit to its last that NUMBER_RUN takes. */
const MIN_RUN_CHARACTERS = 7;
/** The most characters from a run's first digit to its last that NUMBER_RUN takes: a longer part of a long run is no number either. */
const MAX_RUN_CHARACTERS = 42;
/** The same shape without the extension, tested once per scan to decide whether to run at all. */
const NUMBER_RUN_PRESENT = new RegExp(NUMBER_RUN_PRESENT_SOURCE);

/**
 * Words that make a national number a phone number when they come before it (phone-words.ts).
 * `\b` takes `é` for no letter, so a word must not run on into one (`tél` in `télévision`).
 */
const PHONE_CONTEXT_BEFORE = new RegExp(`\\b(?:${[...PHONE_LABEL_WORDS, ...PHONE_PROSE_WORDS].join('|')})(?![à-ÿ])\\b`, 'i');
/** Chinese, Japanese and Korean phone labels (`手机：`, `电话`, `手机号`, `携帯`, `전화`): no `\b` between ideographs. */
const CJK_PHONE_CONTEXT_BEFORE = new RegExp(CJK_PHONE_LABELS.join('|'));
/**
 * Turkish `Cep:` (mobile) before a number of ten or more digits: Brazil's CEP is a postal code of
 * eight (`CEP: 01310-100`), which some plans would call a possible phone number.
 */
const TURKISH_MOBILE_LABEL = /\bcep\b/i;
const MIN_TURKISH_MOBILE_DIGITS = 10;
/** A label after the number, on its line ("555 0100 (office)"); a word on the next line is another line's label. */
const PHONE_CONTEXT_AFTER = /^[ \t]*[-–(/]?[ \t]*(?:office|fax|mobile|cell|home|work|tel|phone|landline|direct)\b/i;
/** How far before a number a context word counts (a label such as "Mobile:" or "call me on"). */
const PHONE_CONTEXT_BEFORE_CHARACTERS = 48;
const PHONE_CONTEXT_AFTER_CHARACTERS = 16;
/** ITU-T E.164: at most 15 digits; the shortest subscriber numbers in use have 7. */
const MIN_PHONE_DIGITS = 7;
const MAX_PHONE_DIGITS = 15;

const SSN_CONTEXT = /\b(?:ssn|ss#|social security|soc\.? sec)/i;
const SIN_CONTEXT = /\b(?:sin|social insurance|nas|assurance sociale)\b/i;
const CPF_CONTEXT = /\bcpf\b/i;
const AADHAAR_CONTEXT = /\b(?:aadhaar|aadhar|uidai)\b/i;
const ID_CONTEXT_CHARACTERS = 40;
const VERSION_CONTEXT = /(?:\bv|version|release|build|ver\.?)\s*[:=]?\s*$/i;
/** Words after which a dotted quad is a version of software, not an address ("kernel 5.15.0.105"). */
const SOFTWARE_WORD_BEFORE =
  /\b(?:kernel|firmware|sdk|runtime|framework|package|update|patch|revision|fileversion|productversion|assemblyversion)\s*[:=]?\s*$/i;
/** A PascalCase dotted name right before ("System.Memory 4.5.5.0", "Newtonsoft.Json 13.0.3.0"): a package and its version. */
const PACKAGE_NAME_BEFORE = /(?:^|\s)[A-Z]\w*(?:\.[A-Z]\w*)+ $/;

/** Last characters of the words VERSION_CONTEXT looks for ("v", "version", "release", "build", "ver."). */
function mayEndVersionWord(code: number): boolean {
  const lower = code | 32;
  return lower === 118 || lower === 110 || lower === 101 || lower === 100 || lower === 114 || code === 46;
}

function isAsciiBlank(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * VERSION_CONTEXT on the 12 characters before `start`, skipping the regex when the character
 * before the optional separator cannot end one of its words: most IP addresses in logs follow
 * "client=" or a space, and this test runs once per address.
 */
function followsVersionWord(text: string, start: number): boolean {
  const windowStart = Math.max(0, start - 12);
  let cursor = start - 1;
  while (cursor >= windowStart && isAsciiBlank(text.charCodeAt(cursor))) cursor -= 1;
  if (cursor >= windowStart && (text.charCodeAt(cursor) === 58 || text.charCodeAt(cursor) === 61)) cursor -= 1;
  while (cursor >= windowStart && isAsciiBlank(text.charCodeAt(cursor))) cursor -= 1;
  // Other Unicode white space also counts as \s: leave such windows to the regex.
  if (cursor >= windowStart && !mayEndVersionWord(text.charCodeAt(cursor)) && text.charCodeAt(cursor) < 128) return false;
  return VERSION_CONTEXT.test(text.slice(windowStart, start));
}

/** Last letters of the words SOFTWARE_WORD_BEFORE looks for (kernel, firmware, sdk, patch, revision...). */
function mayEndSoftwareWord(code: number): boolean {
  const lower = code | 32;
  return lower === 108 || lower === 101 || lower === 107 || lower === 104 || lower === 110;
}

/** Whether the token right before the blank at `start - 1` is dotted and starts with a capital: the only tokens PACKAGE_NAME_BEFORE accepts. */
function mayFollowPackageName(text: string, start: number, windowStart: number): boolean {
  let dotted = false;
  let cursor = start - 2;
  for (; cursor >= windowStart; cursor -= 1) {
    const code = text.charCodeAt(cursor);
    if (code === 46) dotted = true;
    else if (!isWordCode(code)) break;
  }
  const first = text.charCodeAt(cursor + 1);
  return dotted && first >= 65 && first <= 90;
}

/**
 * SOFTWARE_WORD_BEFORE or PACKAGE_NAME_BEFORE on the 40 characters before `start`, after a blank,
 * `:` or `=` only. Like followsVersionWord, the regexes run only when the word before could be
 * one they accept: this runs once per IPv4 address, and logs hold thousands ("client 203.0.113.7").
 */
function followsSoftwareName(text: string, start: number): boolean {
  const previous = text.charCodeAt(start - 1);
  if (previous !== 32 && previous !== 58 && previous !== 61) return false;
  const windowStart = Math.max(0, start - 40);
  let cursor = start - 1;
  while (cursor >= windowStart && isAsciiBlank(text.charCodeAt(cursor))) cursor -= 1;
  if (cursor >= windowStart && (text.charCodeAt(cursor) === 58 || text.charCodeAt(cursor) === 61)) cursor -= 1;
  while (cursor >= windowStart && isAsciiBlank(text.charCodeAt(cursor))) cursor -= 1;
  const last = text.charCodeAt(cursor);
  // Other Unicode white space also counts as \s: leave such windows to the regexes.
  const mayBeWord = cursor < windowStart || last >= 128 || mayEndSoftwareWord(last);
  if (!mayBeWord && !(previous === 32 && mayFollowPackageName(text, start, windowStart))) return false;
  const window = text.slice(windowStart, start);
  return SOFTWARE_WORD_BEFORE.test(window) || PACKAGE_NAME_BEFORE.test(window);
}

/** How far back a window's start is moved to take in the whole word it cuts ("Helpdesk", not "desk"). */
const MAX_CUT_WORD_CHARACTERS = 32;

/**
 * Where a window of `length` characters before `start` begins: moved back to the start of a word
 * it would cut, so that the tail of a longer word ("desk" of "Helpdesk", "tel" of "Intel", "ring"
 * of "during") never passes a context word's `\b`; a word longer than MAX_CUT_WORD_CHARACTERS is
 * left out instead.
 */
function windowStartBefore(text: string, start: number, length: number): number {
  let windowStart = Math.max(0, start - length);
  const floor = Math.max(0, windowStart - MAX_CUT_WORD_CHARACTERS);
  while (windowStart > floor && isWordCode(text.charCodeAt(windowStart - 1))) windowStart -= 1;
  if (windowStart > 0 && isWordCode(text.charCodeAt(windowStart - 1))) {
    while (windowStart < start && isWordCode(text.charCodeAt(windowStart))) windowStart += 1;
  }
  return windowStart;
}

function windowBefore(text: string, start: number, length: number): string {
  const window = text.slice(windowStartBefore(text, start, length), start);
  // A blank line ends the sentence the context word would belong to.
  const paragraph = window.lastIndexOf('\n\n');
  return paragraph === -1 ? window : window.slice(paragraph + 2);
}

function contextBefore(text: string, start: number, pattern: RegExp): boolean {
  return pattern.test(windowBefore(text, start, ID_CONTEXT_CHARACTERS));
}

/** The shape of a run computed in one pass: its digits and which separators it uses. */
interface RunShape {
  /** The run's digits, in order. */
  readonly digits: string;
  readonly dots: number;
  readonly dashes: number;
  readonly spaces: number;
  readonly slashes: number;
  readonly parentheses: number;
  readonly plus: boolean;
}

function shapeOf(run: string): RunShape {
  let digits = '';
  let dots = 0;
  let dashes = 0;
  let spaces = 0;
  let slashes = 0;
  let parentheses = 0;
  for (let index = 0; index < run.length; index += 1) {
    const code = run.charCodeAt(index);
    if (code >= 48 && code <= 57) digits += run[index];
    else if (code === 46) dots += 1;
    else if (code === 45) dashes += 1;
    else if (code === 32 || code === 9) spaces += 1;
    else if (code === 47) slashes += 1;
    else if (code === 40 || code === 41) parentheses += 1;
  }
  return { digits, dots, dashes, spaces, slashes, parentheses, plus: run.charCodeAt(0) === 43 };
}

const DATE = /^(\d{4}|\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{1,2})(?:[ T]\d{1,2})?$/;

function isDate(run: string): boolean {
  const match = DATE.exec(run);
  if (match === null) return false;
  const first = Number(match[1]);
  const second = Number(match[2]);
  const third = Number(match[3]);
  if ((match[1] ?? '').length === 4) return second >= 1 && second <= 12 && third >= 1 && third <= 31 && (match[3] ?? '').length <= 2;
  const dayMonth = first >= 1 && first <= 31 && second >= 1 && second <= 12;
  const monthDay = first >= 1 && first <= 12 && second >= 1 && second <= 31;
  return dayMonth || monthDay;
}

/**
 * The first octet of a dotted-quad address, or -1 when `run` is not one: four decimal octets
 * of at most 255, without leading zeros ("01.84.17.61" is phone or date notation).
 */
function ipv4FirstOctet(run: string): number {
  let first = -1;
  let octets = 0;
  let value = 0;
  let digits = 0;
  let leadingZero = false;
  for (let index = 0; index <= run.length; index += 1) {
    const code = index < run.length ? run.charCodeAt(index) : 46;
    if (code >= 48 && code <= 57) {
      if (digits === 0) leadingZero = code === 48;
      else if (leadingZero) return -1;
      value = value * 10 + (code - 48);
      digits += 1;
      if (digits > 3 || value > 255) return -1;
    } else if (code === 46 && digits > 0) {
      if (octets === 0) first = value;
      octets += 1;
      value = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  return octets === 4 ? first : -1;
}

/** Loopback (127/8), "this network" (0/8) and broadcast or netmasks (255.x) identify no one. */
function isReportableIpv4(firstOctet: number): boolean {
  return firstOctet !== 127 && firstOctet !== 255 && firstOctet !== 0;
}

const CARD_GROUPING = /^\d{4}(?:([ -])\d{4,6})(?:\1\d{1,5}){0,3}$/;
/** Four groups of four split by dots: a card as some forms print it, never a version or an address. */
const DOTTED_CARD = /^\d{4}\.\d{4}\.\d{4}\.\d{4}$/;

/** The value of `digits`' first four digits. */
function firstFourDigits(digits: string): number {
  return (digits.charCodeAt(0) - 48) * 1000 + (digits.charCodeAt(1) - 48) * 100 + (digits.charCodeAt(2) - 48) * 10 + (digits.charCodeAt(3) - 48);
}

/**
 * Whether a number of the 2- and 3-series starts in an issuer's range: Mir 2200-2204,
 * Mastercard 2221-2720, old JCB 2131; Diners 30, 36, 38, 39, JCB 35, Amex 34 and 37. No card
 * starts 20, 21, 2205-2220, 2721-2999, 31, 32 or 33: such Luhn numbers are order or account
 * numbers (one in ten of any numbers passes Luhn).
 */
function isIssuerRange(digits: string): boolean {
  const first = digits.charCodeAt(0) - 48;
  if (first === 3) return digits.charCodeAt(1) - 48 !== 1 && digits.charCodeAt(1) - 48 !== 2 && digits.charCodeAt(1) - 48 !== 3;
  if (first !== 2) return true;
  const prefix = firstFourDigits(digits);
  return (prefix >= 2200 && prefix <= 2204) || (prefix >= 2221 && prefix <= 2720) || prefix === 2131;
}

/** GS1's check digit (EAN-8, UPC-A, EAN-13, GTIN-14): weights 3 and 1 from the right. */
function passesGs1Check(digits: string): boolean {
  let sum = 0;
  for (let index = digits.length - 2, weight = 3; index >= 0; index -= 1, weight = 4 - weight) sum += (digits.charCodeAt(index) - 48) * weight;
  return (10 - (sum % 10)) % 10 === digits.charCodeAt(digits.length - 1) - 48;
}

/** A label naming a product's barcode (`EAN:`, `GTIN`, `Barcode`, `UPC`). */
const BARCODE_CONTEXT = /\b(?:ean(?:-?1[34]|-?8)?|gtin(?:-?1[234]|-?8)?|barcode|upc)\b/i;
/** German GS1 prefixes (400-440): the EAN-13s of German product lists. */
const GERMAN_GS1_PREFIX = /^4[0-4]/;
/** Characters that delimit a cell of a CSV, TSV, `;`- or `|`-separated row, or a quoted cell. */
function delimitsCell(code: number): boolean {
  return Number.isNaN(code) || code === 44 || code === 59 || code === 9 || code === 124 || code === 10 || code === 13 || code === 34;
}

/**
 * Whether a Luhn-valid number is a product's barcode instead of a card: a GS1 number after a
 * barcode label, or a German EAN-13 (40-44...) alone in a cell of a delimited row, where a 13-digit
 * card (an old Visa) would hardly be.
 */
function isBarcode(text: string, start: number, end: number, run: string, digits: string): boolean {
  if (!passesGs1Check(digits)) return false;
  if (contextBefore(text, start, BARCODE_CONTEXT)) return true;
  return digits.length === 13 && run === digits && GERMAN_GS1_PREFIX.test(digits) && delimitsCell(codeAt(text, start - 1)) && delimitsCell(codeAt(text, end));
}

function isCardNumber(run: string, shape: RunShape): boolean {
  const digits = shape.digits;
  if (digits.length < 12 || digits.length > 19 || shape.slashes + shape.parentheses > 0 || shape.plus) return false;
  // Either unseparated, or groups split by one kind of separator (4-4-4-4, 4-6-5 for Amex).
  if (shape.dots > 0 ? !DOTTED_CARD.test(run) : digits.length !== run.length && !CARD_GROUPING.test(run)) return false;
  const first = digits.charCodeAt(0) - 48;
  // Issuer identification: major industry identifiers 1-6 are cards. Numbers starting with 1
  // are only UATP and old JCB cards, both 15 digits (13-digit millisecond timestamps are not).
  if (first < 1 || first > 6 || (first === 1 && digits.length !== 15)) return false;
  // 15-digit cards are American Express (34, 37), UATP (1) and old JCB (1800, 2131). Any other
  // 15-digit Luhn number is more likely a device's IMEI (35..., 86...), whose check digit is Luhn too.
  if (digits.length === 15 && !/^(?:3[47]|1|1800|2131)/.test(digits)) return false;
  if (!isIssuerRange(digits)) return false;
  if (/^(\d)\1+$/.test(digits)) return false;
  return passesLuhn(digits);
}

const EXTENSION = /\s?(?:x|ext\.?|#)\s?\d{1,6}$/;
const NANP_FORMAT = /^(?:1[-. ])?(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4}$/;

const NUMBER_RULE_IDS = ['pii.payment_card', 'pii.us_ssn', 'pii.br_cpf', 'pii.in_aadhaar', 'pii.ca_sin', 'pii.ip_address', 'pii.phone'] as const;
type NumberRuleId = (typeof NUMBER_RULE_IDS)[number];

/** Whether the window before a national number of `digitCount` digits holds a phone label. */
function hasPhoneWordBefore(window: string, digitCount: number): boolean {
  if (PHONE_CONTEXT_BEFORE.test(window)) return true;
  // Most texts are ASCII: the CJK labels need a character above it.
  if (hasCharacterAbove127(window) && CJK_PHONE_CONTEXT_BEFORE.test(window)) return true;
  return digitCount >= MIN_TURKISH_MOBILE_DIGITS && TURKISH_MOBILE_LABEL.test(window);
}

function hasCharacterAbove127(window: string): boolean {
  for (let index = 0; index < window.length; index += 1) if (window.charCodeAt(index) > 127) return true;
  return false;
}

function emitPhoneIfValid(context: DetectorContext<NumberRuleId>, run: string, start: number, end: number): boolean {
  const { text, scan } = context;
  const extension = EXTENSION.exec(run);
  const main = extension === null ? run : run.slice(0, extension.index);
  const shape = extension === null ? shapeOf(run) : shapeOf(main);
  const digits = shape.digits;
  if (digits.length < MIN_PHONE_DIGITS || digits.length > MAX_PHONE_DIGITS || shape.slashes > 0) return false;
  if (/^\d{5}-\d{4}$/.test(main)) return false; // US ZIP+4
  if (shape.plus || main.startsWith('00')) {
    // "+41 (0)96 ...": the (0) trunk prefix is not dialled from abroad. Only a number written
    // with "(0)" can lose a digit, so the others skip the replacement (a callback per number).
    const dialled = shape.plus ? digits : digits.slice(2);
    const international = main.includes('(0)') ? dialled.replace(/^(\d{1,3})0(?=\d{6})/, '$1') : dialled;
    if (!isPossibleInternational(international)) return false;
    scan.emit('pii.phone', start, end);
    return true;
  }
  if (NANP_FORMAT.test(main) && isValidNanp(digits.length === 11 ? digits.slice(1) : digits)) {
    scan.emit('pii.phone', start, end);
    return true;
  }
  // A bug or issue number (`Closes: #1019510`), or digits of an address or a message id
  // (`<5457439.4060000@host>`), is no phone number, whatever word is near (regression: found
  // beside "messages" and "Message-ID").
  if (text.charCodeAt(start - 1) === 35 || /^[\w.+-]*@/.test(text.slice(end, end + 64))) return false;
  const hasContext =
    hasPhoneWordBefore(windowBefore(text, start, PHONE_CONTEXT_BEFORE_CHARACTERS), digits.length) ||
    PHONE_CONTEXT_AFTER.test(text.slice(end, end + PHONE_CONTEXT_AFTER_CHARACTERS));
  if (!hasContext || !isPossibleNational(digits)) return false;
  scan.emit('pii.phone', start, end);
  return true;
}

/** Classifies one run; answers whether it was recognised (emitted or deliberately ignored). */
function classifyRun(context: DetectorContext<NumberRuleId>, start: number, end: number): boolean {
  const { text, scan } = context;
  const run = text.slice(start, end);
  // Dotted quads are the most frequent runs in logs: recognised before the run's shape is
  // built (ipv4FirstOctet accepts only four dot-separated octets, so three dots and at most
  // twelve digits hold whenever it answers).
  const firstOctet = ipv4FirstOctet(run);
  if (firstOctet !== -1) {
    if (isReportableIpv4(firstOctet) && !followsVersionWord(text, start) && !followsSoftwareName(text, start)) {
      scan.emit('pii.ip_address', start, end);
    }
    return true;
  }
  const shape = shapeOf(run);
  const digits = shape.digits;
  if (digits.length < MIN_PHONE_DIGITS) return false;
  if (shape.dashes + shape.dots + shape.slashes === 2 && isDate(run)) return true;
  if (digits.length === 9) {
    const ssnShape = /^\d{3}-\d{2}-\d{4}$/.test(run) || ((/^\d{3} \d{2} \d{4}$/.test(run) || run === digits) && contextBefore(text, start, SSN_CONTEXT));
    if (ssnShape && isValidUsSsn(digits)) {
      scan.emit('pii.us_ssn', start, end);
      return true;
    }
    if (/^[1-79]\d{2}([ -]?)\d{3}\1\d{3}$/.test(run) && contextBefore(text, start, SIN_CONTEXT) && passesLuhn(digits)) {
      scan.emit('pii.ca_sin', start, end);
      return true;
    }
  }
  if (
    digits.length === 11 &&
    (/^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(run) || (run === digits && contextBefore(text, start, CPF_CONTEXT))) &&
    isValidBrazilCpf(digits)
  ) {
    scan.emit('pii.br_cpf', start, end);
    return true;
  }
  if (isCardNumber(run, shape) && !isBarcode(text, start, end, run, digits)) {
    scan.emit('pii.payment_card', start, end);
    return true;
  }
  if (
    digits.length === 12 &&
    (/^[2-9]\d{3}([ -])\d{4}\1\d{4}$/.test(run) || (run === digits && contextBefore(text, start, AADHAAR_CONTEXT))) &&
    passesVerhoeff(digits)
  ) {
    scan.emit('pii.in_aadhaar', start, end);
    return true;
  }
  return emitPhoneIfValid(context, run, start, end);
}

/** Whether an extension may start with this code unit (`x`, `ext`, `#`). */
function mayOpenExtension(code: number): boolean {
  return code === 120 || code === 101 || code === 35;
}

/**
 * Where NUMBER_RUN's match ends when its run ends at `runEnd`: after the extension when one
 * follows. Most runs are followed by neither an extension's letter nor a blank and one, so the
 * regex runs only when the next character or the one after a blank could open one.
 */
function extensionEnd(text: string, runEnd: number): number {
  const next = text.charCodeAt(runEnd);
  if (!mayOpenExtension(next) && !(isRegexSpace(next) && mayOpenExtension(text.charCodeAt(runEnd + 1)))) return runEnd;
  EXTENSION_AFTER_RUN.lastIndex = runEnd;
  return EXTENSION_AFTER_RUN.test(text) ? EXTENSION_AFTER_RUN.lastIndex : runEnd;
}

/**
 * Where the digits and separators that go on from `end`, a run's end, stop: after the last digit
 * they reach, or `end` itself when they reach none. A run that goes on was cut by NUMBER_RUN's
 * bound: its digits would have been taken otherwise.
 */
function runOnEnd(text: string, end: number): number {
  let last = end;
  for (let index = end; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (!isRunCharacter(code)) break;
    if (isAsciiDigit(code)) last = index + 1;
  }
  return last;
}

/**
 * NUMBER_RUN's matches one after another, read from the shared digit runs (digit-shapes.ts)
 * rather than searched for, except that a match the bound cuts is visited together with the rest
 * of its run, once, to the run's last digit, with `long` set. NUMBER_RUN's matches inside such a
 * run are pieces of at most 42 characters, cut wherever the count falls, inside a number as
 * often as not, and the detector dropped a piece glued to the next digit: three cards written in
 * groups on one line made such a run, and none was found (regression). Walking the rest of the
 * run once and going on after it keeps a megabyte of digits linear.
 *
 * `resume` is where NUMBER_RUN's own search would go on from; a run that starts there or later is
 * the first place it could match, and a run of seven characters or more from its first digit is
 * its match (both take the longest run), with the extension NUMBER_RUN would take after it. A
 * shorter run is none, and nothing inside it is one when the run's characters stop where it ends.
 * Where the runs cannot say what NUMBER_RUN finds next (a run that starts before `resume`, inside
 * an extension just taken; a short run followed by more separators, where a longer run may start
 * a character on), NUMBER_RUN searches for its next match itself, and the runs take over again
 * after it.
 */
export function forEachNumberRun(text: string, runs: DigitRuns, visit: (start: number, end: number, long: boolean) => void): void {
  const { starts, ends } = runs;
  let resume = 0;
  /** Visits the match from `start` whose digits end at `runEnd`, with the rest of its run when the bound cut it. */
  const visitMatch = (start: number, runEnd: number): void => {
    const end = runOnEnd(text, runEnd);
    resume = extensionEnd(text, end);
    visit(start, resume, end !== runEnd);
  };
  /** NUMBER_RUN's next match from `from`; false when there is none. */
  const searchFrom = (from: number): boolean => {
    NUMBER_RUN.lastIndex = from;
    const match = NUMBER_RUN.exec(text);
    if (match === null) return false;
    visitMatch(match.index, match.index + match[0].length - (match[1]?.length ?? 0));
    return true;
  };
  for (let index = 0; index < starts.length; ) {
    const start = starts[index] ?? 0;
    const runEnd = ends[index] ?? 0;
    if (runEnd <= resume) {
      index += 1;
    } else if (start < resume) {
      // Looked at again once NUMBER_RUN has matched past `resume`.
      if (!searchFrom(resume)) return;
    } else {
      let firstDigit = start;
      while (!isAsciiDigit(text.charCodeAt(firstDigit))) firstDigit += 1;
      if (runEnd - firstDigit >= MIN_RUN_CHARACTERS) {
        visitMatch(start, runEnd);
      } else if (!isRunCharacter(text.charCodeAt(runEnd))) {
        resume = runEnd;
      } else if (!searchFrom(start + 1)) {
        return;
      }
      index += 1;
    }
  }
}

/** Whether `text` holds a `)` in [from, to). */
function closesWithin(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) if (text.charCodeAt(index) === 41) return true;
  return false;
}

function detectNumbers(context: DetectorContext<NumberRuleId>): void {
  const { text } = context;
  forEachNumberRun(text, context.shared(digitRuns), (matchStart, end, long) => {
    let start = matchStart;
    // Parentheses belong to the number only when balanced ("(37) 788-063", not "f(1234567").
    while (text.charCodeAt(start) === 40 && !closesWithin(text, start, end)) start += 1;
    const previous = codeAt(text, start - 1);
    const next = codeAt(text, end);
    // Glued to a word, a version or a path ("abc1234567", "v1.2.3.4", "/12345678"): not a number of its own.
    if (isWordCode(previous) || previous === 46 || previous === 45 || previous === 47 || previous === 43 || previous === 58) return;
    if (isAsciiAlphanumeric(next) || next === 95 || (next === 46 && isAsciiAlphanumeric(codeAt(text, end + 1)))) return;
    // A run longer than NUMBER_RUN's bound is no number as a whole, only numbers side by side.
    if (!long && classifyRun(context, start, end)) return;
    // Several numbers separated by spaces ("192.168.0.1 255.255.255.0", two phone numbers).
    const run = text.slice(start, end);
    if (run.indexOf(' ') === -1 && run.indexOf('\t') === -1) return;
    const cards = groupedCards(context, start, run);
    // Parts and cards both come in order: a card that ends before a part is behind every later
    // part too, so a long run of cards is read once, not once per part.
    let nextCard = 0;
    const partPattern = /[^ \t]+/g;
    for (let part = partPattern.exec(run); part !== null; part = partPattern.exec(run)) {
      const partStart = start + part.index;
      const partEnd = partStart + part[0].length;
      let card = cards[nextCard];
      while (card !== undefined && card.end <= partStart) {
        nextCard += 1;
        card = cards[nextCard];
      }
      if (card !== undefined && card.start < partEnd) continue;
      if (part[0].length >= MIN_RUN_CHARACTERS && part[0].length <= MAX_RUN_CHARACTERS) classifyRun(context, partStart, partEnd);
    }
  });
}

/** The most characters a card in groups takes: 19 digits in five groups. */
const MAX_GROUPED_CARD_CHARACTERS = 23;
/** A card's expiry written after it, and the space after that (`12/27 `, `1/2027 `). */
const EXPIRY_AFTER_CARD = /\d{1,2}\/\d{2}(?:\d{2})? /y;
/** A card's security code written after it (or after its expiry), and the space after that. */
const SECURITY_CODE_AFTER_CARD = /\d{3} /y;
/** American Express cards (34..., 37...) carry a security code of four digits, other cards one of three. */
const AMEX_CARD = /^3[47]/;
const AMEX_SECURITY_CODE_AFTER_CARD = /\d{4} /y;

/**
 * Where in `run` the next of several cards on one line may start when none starts at `from`,
 * right after `card`: after the card's expiry, its security code or both, as a list of cards on
 * file gives them; `from` when neither is there.
 */
function afterCardDetails(run: string, from: number, card: string): number {
  EXPIRY_AFTER_CARD.lastIndex = from;
  const afterExpiry = EXPIRY_AFTER_CARD.test(run) ? EXPIRY_AFTER_CARD.lastIndex : from;
  const securityCode = AMEX_CARD.test(card) ? AMEX_SECURITY_CODE_AFTER_CARD : SECURITY_CODE_AFTER_CARD;
  securityCode.lastIndex = afterExpiry;
  return securityCode.test(run) ? securityCode.lastIndex : afterExpiry;
}

/**
 * A card written in space-separated groups runs on into a number written after it with a space
 * (its expiry and security code: "4111 1111 1111 1111 12/27 737", or another card: cards on one
 * line, regressions: only the first of two was found; none of three, nor of two with an expiry
 * or a security code between them) or before it ("exp 12/27 4111 1111 1111 1111"), and such a
 * run as a whole is no card. Takes the cards the run starts with, one after another, each the
 * longest its groups make (a 19-digit card ends in a group of three, as a security code does),
 * the next starting right after a card or after its expiry and security code; failing any, the
 * card it ends with. Emits each card found and answers where they are, in order.
 */
function groupedCards(context: DetectorContext<NumberRuleId>, start: number, run: string): Array<{ start: number; end: number }> {
  const { text, scan } = context;
  const isCardAt = (from: number, to: number): boolean => {
    const candidate = run.slice(from, to);
    const shape = shapeOf(candidate);
    return shape.spaces > 0 && isCardNumber(candidate, shape) && !isBarcode(text, start + from, start + to, candidate, shape.digits);
  };
  const cards: Array<{ start: number; end: number }> = [];
  /** The end of the longest card starting at `from`, or -1. */
  const cardFrom = (from: number): number => {
    for (let cut = Math.min(run.length, from + MAX_GROUPED_CARD_CHARACTERS); cut > from; cut -= 1) {
      if ((cut === run.length || run.charCodeAt(cut) === 32) && isCardAt(from, cut)) return cut;
    }
    return -1;
  };
  let from = 0;
  for (let end = cardFrom(from); end !== -1; ) {
    cards.push({ start: start + from, end: start + end });
    const card = run.slice(from, end);
    from = end + 1;
    end = cardFrom(from);
    if (end === -1) {
      from = afterCardDetails(run, from, card);
      end = cardFrom(from);
    }
  }
  if (cards.length === 0) {
    for (let cut = Math.max(0, run.length - MAX_GROUPED_CARD_CHARACTERS - 1); cut < run.length; cut += 1) {
      if (run.charCodeAt(cut) === 32 && isCardAt(cut + 1, run.length)) {
        cards.push({ start: start + cut + 1, end: start + run.length });
        break;
      }
    }
  }
  for (const card of cards) scan.emit('pii.payment_card', card.start, card.end);
  return cards;
}

export const numberDetector = defineDetector({
  name: 'numbers',
  ruleIds: NUMBER_RULE_IDS,
  presenceGate: DIGIT_SHAPES_PRESENT,
  presenceTest: NUMBER_RUN_PRESENT,
  detect: detectNumbers,
});
