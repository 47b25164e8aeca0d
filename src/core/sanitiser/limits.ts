/** Limits of a scan that modules outside the rule engine need too (the engine loads lazily). */

/**
 * Most findings one scan returns. A 1 MiB text full of addresses could otherwise produce tens
 * of thousands; past this the response is no more useful to a caller deciding what to do with
 * the text. The overall severity still accounts for every finding, including those cut off.
 */
export const MAX_FINDINGS_PER_SCAN = 10_000;
