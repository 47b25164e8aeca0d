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

/**
 * `{siteUrl}/refine?prompt=...`. Lone surrogates (which `encodeURIComponent` rejects with a
 * URIError) are replaced with U+FFFD, the replacement character, so any string yields a link.
 */
export function buildRefineUrl(siteUrl: string, prompt: string): string {
  const base = siteUrl.replace(/\/+$/, '');
  const wellFormed = truncateToCodePoints(prompt, REFINE_PROMPT_MAX_CODE_POINTS).replace(LONE_SURROGATE, '\uFFFD');
  return `${base}/refine?prompt=${encodeURIComponent(wellFormed)}`;
}
