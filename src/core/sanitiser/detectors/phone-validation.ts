/**
 * Phone number validation with libphonenumber-js, memoised by the part of a number its answer
 * depends on. The library's parser is slow enough per call that calling it for every number would
 * alone cap the throughput on phone-dense text (bench/sanitiser-bench-notes.md); its "possible"
 * answer depends only on the calling code and the length of the national number, and US/Canada
 * validity only on the area code and the exchange's first digit, so one call per (prefix,
 * length) or per area code answers every later number of that shape. The memo holds library
 * answers about number shapes, never the scanned numbers, and is bounded by the number of shapes
 * (at most a few tens of thousands of keys).
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** Regions tried for a national number found next to a phone word. */
const NATIONAL_REGIONS: readonly CountryCode[] = [
  'US',
  'GB',
  'DE',
  'FR',
  'IT',
  'ES',
  'NL',
  'BE',
  'CH',
  'AT',
  'SE',
  'DK',
  'NO',
  'FI',
  'PL',
  'PT',
  'IE',
  'AU',
  'NZ',
  'CA',
  'BR',
  'IN',
  'IL',
  'HU',
  'CZ',
  'ZA',
  'MX',
  'JP',
];

/** Upper bound on memo entries, far above the shapes real text produces. */
const MAX_MEMO_ENTRIES = 50_000;

class Memo {
  private readonly answers = new Map<string, boolean>();

  get(key: string, compute: () => boolean): boolean {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const answer = compute();
    if (this.answers.size >= MAX_MEMO_ENTRIES) this.answers.clear();
    this.answers.set(key, answer);
    return answer;
  }
}

const internationalMemo = new Memo();
const nanpMemo = new Memo();
const nationalMemo = new Memo();

/**
 * `digits` is an international number without '+' (country code first). Possible means the
 * national part has a length the country's numbering plan allows (libphonenumber isPossible).
 * Calling codes have 1-3 digits and some plans vary by the leading digit, so the key is the
 * first four digits plus the total length.
 */
export function isPossibleInternational(digits: string): boolean {
  return internationalMemo.get(`${digits.slice(0, 4)}|${digits.length}`, () => parsePhoneNumberFromString(`+${digits}`)?.isPossible() === true);
}

/** A 10-digit US/Canada number (area code + exchange + line): a valid area code and exchange. */
export function isValidNanp(digits: string): boolean {
  if (digits.length !== 10) return false;
  const exchange = digits.slice(3, 6);
  // N11 exchanges are service codes, and exchanges never start with 0 or 1.
  if (!/^[2-9]/.test(exchange) || exchange.endsWith('11')) return false;
  // Validity of the area code, asked with a representative exchange and line number.
  return nanpMemo.get(digits.slice(0, 3), () => {
    const sample = `${digits.slice(0, 3)}2345678`;
    return parsePhoneNumberFromString(sample, 'US')?.isValid() === true || parsePhoneNumberFromString(sample, 'CA')?.isValid() === true;
  });
}

/** A national number (with trunk prefix) that at least one common region's plan allows. */
export function isPossibleNational(digits: string): boolean {
  return nationalMemo.get(`${digits.slice(0, 2)}|${digits.length}`, () =>
    NATIONAL_REGIONS.some((region) => parsePhoneNumberFromString(digits, region)?.isPossible() === true),
  );
}
