/**
 * What the numbers and national-id detectors share: the digit shapes whose presence decides
 * whether they run at all, with the one test both make (see `presenceGate` in detector.ts), and
 * the one search of the text for runs of digits both read (`digitRuns`). Each would otherwise read
 * every digit of the text itself, and logs are full of them.
 */

/** A run of at least seven digits and separators: the shortest card, SSN, IP or phone number (numbers.ts). */
export const NUMBER_RUN_PRESENT_SOURCE = String.raw`\d[\d\-. ()/\t]{5,}\d`;

/**
 * A piece every standalone national-id format holds, at most a few characters after its start,
 * each opening with two digits: six digits in a row (NRIC, HETU, Chinese id, unspaced NINO), a
 * spaced NINO's `12 34 56 C`, a NIR's `79 05 ` (after its `1 `), a Belgian `dd.dd.dd-`, an AHV
 * `756.dddd` (any three digits: a wider hint only costs a few more tries). Neither dotted digit
 * pairs alone (IPv4 addresses) nor the `4821 200 18` of an access log's path, status and latency
 * are a hint: logs hold thousands of them, and each hint costs the national-id detector a few
 * sticky searches (national-ids.ts). The shared leading `\d\d` is factored out because V8 then
 * skips ahead on the two digits: the search reads mixed text a third faster than with five
 * alternatives that each start with a digit (bench/sanitiser-bench-notes.md).
 */
export const NATIONAL_ID_HINT_SOURCE = String.raw`\d\d(?:\d{4}| ?\d\d ?\d\d ?[A-D]| [01]\d |\.[01]\d\.[0-3]\d-|\d\.\d{4})`;

/** Matches wherever either shape above occurs: when it does not, neither detector runs. */
export const DIGIT_SHAPES_PRESENT = new RegExp(`${NUMBER_RUN_PRESENT_SOURCE}|${NATIONAL_ID_HINT_SOURCE}`);

/**
 * A run of digits and separators: after at most two `+` or `(` (a dialling prefix, an opening
 * parenthesis), a digit, four to forty digits or separators, a digit. Six characters is the
 * fewest a standalone national id's digits take (an unspaced NINO's `123456`, a HETU's before its
 * `+`); the numbers detector reads the runs of seven and more (numbers.ts). The bound keeps a
 * megabyte of digits linear.
 */
const DIGIT_RUN = /[+(]{0,2}\d[\d\-. ()/\t]{4,40}\d/g;

export interface DigitRuns {
  /** Where each run starts (a `+` or `(` before its first digit included), ascending. */
  readonly starts: readonly number[];
  /** Where each run ends (exclusive); a run ends before the next one starts. */
  readonly ends: readonly number[];
}

/** Every run, as DIGIT_RUN finds them one after another from the start. A search for DetectorContext.shared. */
export function digitRuns(text: string): DigitRuns {
  const starts: number[] = [];
  const ends: number[] = [];
  DIGIT_RUN.lastIndex = 0;
  for (let match = DIGIT_RUN.exec(text); match !== null; match = DIGIT_RUN.exec(text)) {
    starts.push(match.index);
    ends.push(match.index + match[0].length);
  }
  return { starts, ends };
}

/** Whether a code unit may follow a run's first digit inside it (`[\d\-. ()/\t]`). */
export function isRunCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 45 || code === 46 || code === 32 || code === 40 || code === 41 || code === 47 || code === 9;
}
