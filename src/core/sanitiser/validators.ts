/**
 * Cheap validators that turn a shape match into a finding: checksums (Luhn, mod-97, Verhoeff,
 * mod-11, mod-23), Shannon entropy and placeholder detection. Each is O(length of the candidate).
 */

function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The digits of `value`, ignoring every other character (spaces, dashes, dots...). */
export function digitsOf(value: string): string {
  let digits = '';
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (isAsciiDigit(code)) digits += value[index];
  }
  return digits;
}

/** Luhn (mod-10) check used by payment cards and the Canadian SIN. */
export function passesLuhn(digits: string): boolean {
  if (digits.length < 2) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return false;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

const VERHOEFF_MULTIPLICATION: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];

const VERHOEFF_PERMUTATION: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** Verhoeff check used by India's Aadhaar number. */
export function passesVerhoeff(digits: string): boolean {
  let check = 0;
  for (let index = 0; index < digits.length; index += 1) {
    const digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (digit < 0 || digit > 9) return false;
    const permuted = VERHOEFF_PERMUTATION[index % 8]?.[digit] ?? 0;
    check = VERHOEFF_MULTIPLICATION[check]?.[permuted] ?? 0;
  }
  return check === 0;
}

/**
 * IBAN lengths by country (ISO 13616 registry). A candidate must have its country's exact length
 * before the mod-97 check, which alone would accept 1 in 97 random strings.
 */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HN: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** ISO 13616 mod-97 check of a compact, upper-case IBAN (letters count as 10..35). */
export function passesIbanChecksum(compactUpper: string): boolean {
  const expectedLength = IBAN_LENGTHS[compactUpper.slice(0, 2)];
  if (expectedLength === undefined || compactUpper.length !== expectedLength) return false;
  const rearranged = compactUpper.slice(4) + compactUpper.slice(0, 4);
  let remainder = 0;
  for (let index = 0; index < rearranged.length; index += 1) {
    const code = rearranged.charCodeAt(index);
    if (isAsciiDigit(code)) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else if (code >= 65 && code <= 90) {
      remainder = (remainder * 100 + (code - 55)) % 97;
    } else {
      return false;
    }
  }
  return remainder === 1;
}

/**
 * US SSN validity: area 000, 666 and 900-999 are never issued, nor group 00 or serial 0000.
 * Since 2011 every other area is assignable, so 7xx and 8xx are valid.
 */
export function isValidUsSsn(digits: string): boolean {
  if (digits.length !== 9) return false;
  const area = Number(digits.slice(0, 3));
  const group = Number(digits.slice(3, 5));
  const serial = Number(digits.slice(5));
  if (area === 0 || area === 666 || area >= 900) return false;
  if (group === 0 || serial === 0) return false;
  // Numbers the SSA published as examples and that were misused for years (Woolworth's wallet card).
  if (digits === '078051120' || digits === '219099999') return false;
  return true;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spain: DNI (8 digits + letter) and NIE (X/Y/Z + 7 digits + letter), letter = number mod 23. */
export function isValidSpanishId(compactUpper: string): boolean {
  const match = /^([XYZ]?)(\d{7,8})([A-Z])$/.exec(compactUpper);
  if (match === null) return false;
  const prefix = match[1] ?? '';
  const digits = match[2] ?? '';
  const letter = match[3] ?? '';
  if (prefix === '' && digits.length !== 8) return false;
  if (prefix !== '' && digits.length !== 7) return false;
  const prefixDigit = prefix === '' ? '' : String('XYZ'.indexOf(prefix));
  const number = Number(prefixDigit + digits);
  return DNI_LETTERS[number % 23] === letter;
}

/** Brazil CPF: 11 digits with two mod-11 check digits; repeated digits are invalid. */
export function isValidBrazilCpf(digits: string): boolean {
  if (digits.length !== 11 || /^(\d)\1{10}$/.test(digits)) return false;
  for (const checkPosition of [9, 10]) {
    let sum = 0;
    for (let index = 0; index < checkPosition; index += 1) {
      sum += (digits.charCodeAt(index) - 48) * (checkPosition + 1 - index);
    }
    const expected = ((sum * 10) % 11) % 10;
    if (expected !== digits.charCodeAt(checkPosition) - 48) return false;
  }
  return true;
}

const CODICE_FISCALE_ODD: Readonly<Record<string, number>> = {
  '0': 1,
  '1': 0,
  '2': 5,
  '3': 7,
  '4': 9,
  '5': 13,
  '6': 15,
  '7': 17,
  '8': 19,
  '9': 21,
  A: 1,
  B: 0,
  C: 5,
  D: 7,
  E: 9,
  F: 13,
  G: 15,
  H: 17,
  I: 19,
  J: 21,
  K: 2,
  L: 4,
  M: 18,
  N: 20,
  O: 11,
  P: 3,
  Q: 6,
  R: 8,
  S: 12,
  T: 14,
  U: 16,
  V: 10,
  W: 22,
  X: 25,
  Y: 24,
  Z: 23,
};

/** Italy codice fiscale: 16 characters, the last a check letter over the first 15. */
export function isValidItalianFiscalCode(compactUpper: string): boolean {
  if (!/^[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]$/.test(compactUpper)) {
    return false;
  }
  let sum = 0;
  for (let index = 0; index < 15; index += 1) {
    const character = compactUpper[index] ?? '';
    if ((index + 1) % 2 === 1) {
      sum += CODICE_FISCALE_ODD[character] ?? 0;
    } else {
      const code = character.charCodeAt(0);
      sum += isAsciiDigit(code) ? code - 48 : code - 65;
    }
  }
  return String.fromCharCode(65 + (sum % 26)) === compactUpper[15];
}

/** Per-character counts for shannonEntropy, reused across calls (ASCII; other characters use a Map). */
const asciiCounts = new Int32Array(128);

/** Shannon entropy of `value` in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  // Distinct characters in order of first occurrence: the sum below adds the terms in that
  // order, as iterating a Map of counts would, so the result is the same to the last bit.
  const distinct: number[] = [];
  let others: Map<number, number> | undefined;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 128) {
      if (asciiCounts[code] === 0) distinct.push(code);
      asciiCounts[code] = (asciiCounts[code] ?? 0) + 1;
    } else {
      others ??= new Map();
      const count = others.get(code);
      if (count === undefined) distinct.push(code);
      others.set(code, (count ?? 0) + 1);
    }
  }
  let entropy = 0;
  for (const code of distinct) {
    let count: number;
    if (code < 128) {
      count = asciiCounts[code] ?? 0;
      asciiCounts[code] = 0;
    } else {
      count = others?.get(code) ?? 0;
    }
    const probability = count / value.length;
    entropy -= probability * Math.log2(probability);
  }
  return entropy;
}

/** How many of lower-case letters, upper-case letters and digits occur in `value` (0-3). */
export function characterClassCount(value: string): number {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code >= 97 && code <= 122) lower = 1;
    else if (code >= 65 && code <= 90) upper = 1;
    else if (isAsciiDigit(code)) digit = 1;
  }
  return lower + upper + digit;
}

/**
 * Words that mark a value as a stand-in rather than a real credential. A value containing one of
 * them (case-insensitive) is skipped by the context rules (assignments, URL credentials).
 */
export const PLACEHOLDER_WORDS: readonly string[] = [
  'changeme',
  'change_me',
  'change-me',
  'changeit',
  'placeholder',
  'example',
  'sample',
  'dummy',
  'redacted',
  'replace',
  'your_',
  'your-',
  'yourpass',
  'yoursecret',
  'yourtoken',
  'yourkey',
  'insert',
  'enter_',
  'enter-',
  'fixme',
  'todo',
  'xxxx',
  'password',
  'passwd',
  'notasecret',
  'not_a_real',
  'not-a-real',
  'notreal',
  'fake',
  'foobar',
  'lorem',
  'secret_here',
  'key_here',
  'token_here',
  '****',
  '....',
  '{{',
  '}}',
  '${',
  '#{',
  '%(',
  '%s',
];

/**
 * A slot to fill in: `<token>`, `sk-<your key>`, `&lt;key&gt;`. A lone `<` or `>` is not one:
 * generated passwords use them like any other symbol.
 */
const PLACEHOLDER_SLOT = /<[^<>]*>|&lt;|&gt;/;

/** Whole values that are placeholders or language literals rather than credentials. */
export const PLACEHOLDER_VALUES: ReadonlySet<string> = new Set([
  'mysecret',
  'pwd',
  'token',
  'apikey',
  'api_key',
  'key',
  'test',
  'testing',
  'admin',
  'user',
  'username',
  'root',
  'default',
  'none',
  'null',
  'nil',
  'undefined',
  'true',
  'false',
  'empty',
  'hidden',
  'masked',
  'unknown',
  'string',
  'str',
  // JavaScript's typeof answers (`typeof key === 'function'`), as 'string' and 'object' above.
  'function',
  'symbol',
  // Type names: `password: number` declares a field, it sets none (regression: blocked as a password).
  'number',
  'boolean',
  'bool',
  'int',
  'integer',
  'float',
  'double',
  'bigint',
  'object',
  'buffer',
  'bytes',
  'secretstr',
  'value',
  'required',
  'optional',
  'abc',
  'abc123',
  'qwerty',
  'letmein',
  'guest',
  'demo',
  'foo',
  'bar',
  'baz',
  'env',
  'os.environ',
  'process.env',
]);

const PLACEHOLDER_WORD_PATTERN = new RegExp(PLACEHOLDER_WORDS.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

/** True when the value is a placeholder, an empty or repeated-character stand-in, or a template. */
export function isPlaceholderValue(value: string): boolean {
  const lower = value.toLowerCase();
  return PLACEHOLDER_VALUES.has(lower) || /^(.)\1*$/.test(value) || PLACEHOLDER_WORD_PATTERN.test(lower) || PLACEHOLDER_SLOT.test(lower);
}

/**
 * True when `value` is standard base64 whose bytes are readable text with spaces (encoded prose
 * such as "dummy text data"), which is not key material however random the encoding looks.
 */
export function isBase64OfReadableText(value: string): boolean {
  if (value.length < 16 || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0) return false;
  let printable = 0;
  let spaces = 0;
  for (const byte of bytes) {
    if (byte === 32) spaces += 1;
    if ((byte >= 32 && byte < 127) || byte === 10 || byte === 13 || byte === 9) printable += 1;
  }
  return printable === bytes.length && spaces > 0;
}

/**
 * Eight identical characters in a row: about 62^-7 per position in a random base62 string, so a
 * value with such a run is a stand-in typed by hand (`tvly-xxxxxxxx...`, `aaaa...NRAL`,
 * `00aaaaaaaa...`), not a generated key.
 */
export function hasIdenticalRun(value: string): boolean {
  return /(.)\1{7}/.test(value);
}

/**
 * Whether a key body of 24 or more characters drawn from letters and digits looks generated: it
 * contains both (all digits has probability (10/62)^24 < 10^-19) and no long identical run. The
 * gate for formats whose published examples are often typed by hand.
 */
export function looksGenerated(body: string): boolean {
  return /[A-Za-z]/.test(body) && /\d/.test(body) && !hasIdenticalRun(body);
}

/**
 * Keys that vendors print in their own documentation, which readers paste into questions and
 * configuration examples; none of them grants access to anything.
 */
const DOCUMENTED_EXAMPLE_KEYS: ReadonlySet<string> = new Set([
  // AWS documentation (IAM user guide, CLI configuration).
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'AKIAI44QH8DHBEXAMPLE',
  'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
  // Stripe API reference and quick starts.
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'pk_test_TYooMQauvdEDq54NiTphI7jx',
  'sk_test_BQokikJOvBiI2HlWgH4olfQ2',
  // The token jwt.io's debugger opens with, quoted in countless JWT tutorials and libraries' docs.
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  // The Azure Storage emulator's (Azurite's) fixed, published account key for devstoreaccount1.
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
]);

/**
 * A run this long of the characters people type over a key's random part (`ghp_xxxx...`,
 * `.../XXXXXXXX...`, `****`, `0000...`) is a stand-in: a generated key holds no such run. Runs
 * of other letters (`sk_live_AAAA...`) are left to each rule, as scanners' fixtures use them
 * for keys that must be found.
 */
const STAND_IN_RUN = /([xX*0])\1{15}/;

/** A vendor's documented example key, or a key whose random part is a run of one character. */
export function isDocumentationExample(value: string): boolean {
  return DOCUMENTED_EXAMPLE_KEYS.has(value) || STAND_IN_RUN.test(value);
}

/**
 * Card numbers that payment processors publish for their test modes, which developers paste into
 * questions, fixtures and integration docs; no live network accepts them. Kept by digits only,
 * so `4242 4242 4242 4242` and `4242-4242-4242-4242` are the same entry. `4111 1111 1111 1111`
 * (Adyen's and Braintree's Visa) is left out on purpose: it is the number people type as a
 * stand-in for a real card, and what a guardrail should treat as one; Porch's own examples use it
 * to show a card being found.
 */
const DOCUMENTED_TEST_CARDS: ReadonlySet<string> = new Set([
  // Stripe, docs.stripe.com/testing: one card per brand, then the declines and 3-D Secure cards.
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5200828282828210',
  '5105105105105100',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '6011000990139424',
  '3056930009020004',
  '36227206271667',
  '3566002020360505',
  '6200000000000005',
  '4000000000000002',
  '4000000000009995',
  '4000000000009987',
  '4000000000009979',
  '4000000000000069',
  '4000000000000127',
  '4000000000000119',
  '4000000000000077',
  '4000000000000341',
  '4000002500003155',
  '4000000000003220',
  '4000000000003063',
  '4000000000000259',
  // Braintree sandbox, developer.paypal.com/braintree/docs/reference/general/testing.
  '4005519200000004',
  '4009348888881881',
  '4012000033330026',
  '4012000077777777',
  '4012888888881881',
  '4217651111111119',
  '4500600000000061',
  '2223000048400011',
  '3530111333300000',
  '378734493671000',
  '38520000023237',
  '30569309025904',
  '4000111111111115',
  // Adyen, docs.adyen.com/development-resources/testing/test-card-numbers.
  '4988438843884305',
  '4166676667666746',
  '4646464646464644',
  '4444333322221111',
  '5555341244441115',
  '5577000055770004',
  '5136333333333335',
  '5585558555855583',
  '5555444433331111',
  '2222410740360010',
  '2222400070000005',
  '370000000000002',
  '36006666333344',
  '6011601160116611',
  '3569990010095841',
]);

/** Whether a payment card match is one of the processors' published test numbers (separators ignored). */
export function isDocumentedTestCard(value: string): boolean {
  return DOCUMENTED_TEST_CARDS.has(value.replace(/\D/g, ''));
}
