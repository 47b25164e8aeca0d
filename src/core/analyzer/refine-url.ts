/**
 * The link from an analysis back into Porch, where the author continues refining the prompt.
 */

/**
 * Prompts longer than this many code points are cut before going into the link. Two thousand
 * keeps the URL within what browsers, proxies and chat clients pass through unchanged (about
 * 6 KB for ASCII text once percent-encoded, a little more for other scripts), and is enough to
 * carry any prompt a person would refine by hand.
 */
export const REFINE_PROMPT_MAX_CODE_POINTS = 2_000;

/**
 * The link's prompt is also cut at this many bytes once percent-encoded: what the longest ASCII
 * prompt takes at most (three bytes a character), so ASCII prompts are cut by characters alone.
 * Other scripts take six to twelve bytes a character, and two thousand of them would pass the
 * 16 KiB of request headers Node (Porch itself included) accepts: the link would not open.
 */
export const REFINE_PROMPT_MAX_ENCODED_BYTES = 6_000;

/**
 * The goal, when the analysis had one, rides along cut at these bounds: a sentence or two is
 * whole, and the longest link stays well within the request headers a server accepts.
 */
export const REFINE_GOAL_MAX_CODE_POINTS = 500;
export const REFINE_GOAL_MAX_ENCODED_BYTES = 1_500;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The first `maxCodePoints` code points, so a surrogate pair is never split in two. */
export function truncateToCodePoints(text: string, maxCodePoints: number): string {
  // A string never has more code points than UTF-16 code units: short strings need no walk.
  if (text.length <= maxCodePoints) return text;
  let count = 0;
  let end = 0;
  for (const codePoint of text) {
    if (count === maxCodePoints) return text.slice(0, end);
    count += 1;
    end += codePoint.length;
  }
  return text;
}

/** `text` percent-encoded, cut after the last whole code point that fits in `maxBytes`, and whether it was cut. */
function encodeWithin(text: string, maxBytes: number): { encoded: string; cut: boolean } {
  const whole = encodeURIComponent(text);
  if (whole.length <= maxBytes) return { encoded: whole, cut: false };
  let encoded = '';
  for (const codePoint of text) {
    const next = encodeURIComponent(codePoint);
    if (encoded.length + next.length > maxBytes) break;
    encoded += next;
  }
  return { encoded, cut: true };
}

/**
 * The query parameter that marks a link whose prompt was cut: the whole prompt's length in
 * characters (code points), so the page can say that its scores are of the first part only.
 */
export const REFINE_SHORTENED_FROM_PARAMETER = 'shortened_from';

function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * `text` cut at both bounds and percent-encoded, its lone surrogates replaced with U+FFFD, and
 * whether the cut left anything out.
 */
function linkParameter(text: string, maxCodePoints: number, maxEncodedBytes: number): { encoded: string; cut: boolean } {
  const kept = truncateToCodePoints(text, maxCodePoints);
  const { encoded, cut } = encodeWithin(kept.replace(LONE_SURROGATE, '\uFFFD'), maxEncodedBytes);
  return { encoded, cut: cut || kept.length < text.length };
}

/**
 * `{siteUrl}/refine?prompt=...`, with `&goal=...` when there is a goal, so the page shows the
 * analysis the caller got. A prompt too long for the link is cut, and the link then says so
 * (`&shortened_from=<the prompt's length>`): the page analyses only what the link carries, and
 * without the mark it would show other scores than the caller's without saying why (regression).
 * Lone surrogates (which `encodeURIComponent` rejects with a URIError) are replaced with U+FFFD,
 * the replacement character, so any string yields a link.
 */
export function buildRefineUrl(siteUrl: string, prompt: string, goal?: string): string {
  const base = siteUrl.replace(/\/+$/, '');
  const carried = linkParameter(prompt, REFINE_PROMPT_MAX_CODE_POINTS, REFINE_PROMPT_MAX_ENCODED_BYTES);
  const shortened = carried.cut ? `&${REFINE_SHORTENED_FROM_PARAMETER}=${codePointCount(prompt)}` : '';
  const link = `${base}/refine?prompt=${carried.encoded}${shortened}`;
  const carriedGoal = goal === undefined || goal.trim() === '' ? '' : linkParameter(goal, REFINE_GOAL_MAX_CODE_POINTS, REFINE_GOAL_MAX_ENCODED_BYTES).encoded;
  return carriedGoal === '' ? link : `${link}&goal=${carriedGoal}`;
}
