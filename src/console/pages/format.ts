/** How the console writes numbers and times: one place, so every page reads the same. */

/** `2026-11-27 21:05 UTC`: timestamps are stored and shown in UTC, as the API reports them. */
export function dateTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function wholeNumber(value: number): string {
  return Math.round(value).toLocaleString('en');
}

/** Credits with at most three decimals (1 credit = 1,000 tokens). */
export function credits(value: number): string {
  return value.toLocaleString('en', { maximumFractionDigits: 3 });
}

/**
 * A textarea's content as rendered. HTML drops a line break right after `<textarea>`, so one is
 * put there: a text that starts with a line break keeps it (regression: every save of an editor
 * dropped a leading blank line of a template nobody had touched).
 */
export function textareaContent(value: string): string {
  return `\n${value}`;
}
