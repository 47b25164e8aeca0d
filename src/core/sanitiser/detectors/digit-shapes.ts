/**
 * The digit shapes whose presence decides whether the numbers and national-id detectors run at
 * all, and the one test both share. Each detector's own presence test reads the whole of a text
 * in which its shape does not occur, prose above all; the shared test reads it once for both,
 * and their own tests run only when it matches (see `presenceGate` in detector.ts).
 */

/** A run of at least seven digits and separators: the shortest card, SSN, IP or phone number (numbers.ts). */
export const NUMBER_RUN_PRESENT_SOURCE = String.raw`\d[\d\-. ()/\t]{5,}\d`;

/**
 * A piece every standalone national-id format holds, at most a few characters after its start:
 * three digit pairs with optional single spaces (`12 34 56` of a NINO, `79 05 74` of a NIR, six
 * of the digits of the others), a NIR's `1 79 05 ` (also for Corsica's `2A`), a Belgian
 * `dd.dd.dd-`, an AHV `756.dddd`. Dotted digit pairs alone (IPv4 addresses, thousands of them in
 * logs) are no hint (national-ids.ts).
 */
export const NATIONAL_ID_HINT_SOURCE = String.raw`\d\d ?\d\d ?\d\d|[12] \d\d [01]\d |\d\d\.[01]\d\.[0-3]\d-|756\.\d{4}`;

/** Matches wherever either shape above occurs: when it does not, neither detector runs. */
export const DIGIT_SHAPES_PRESENT = new RegExp(`${NUMBER_RUN_PRESENT_SOURCE}|${NATIONAL_ID_HINT_SOURCE}`);
