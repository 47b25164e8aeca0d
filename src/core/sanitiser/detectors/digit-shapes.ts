/**
 * The digit shapes whose presence decides whether the numbers and national-id detectors run at
 * all, and the one test both share. Each detector's own presence test reads the whole of a text
 * in which its shape does not occur, prose above all; the shared test reads it once for both,
 * and their own tests run only when it matches (see `presenceGate` in detector.ts).
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
