/**
 * Stored and file-system-supplied text as the CLI shows it to people. Apart from `output.ts`, so
 * that `context.ts`, which `output.ts` imports, can escape what it writes too.
 */

/**
 * Characters that act on the operator's terminal instead of showing: the C0 and C1 controls and
 * DEL (`\p{Cc}`: a line break forges a table row, an ESC sequence recolours, clears or retitles
 * the terminal), the bidirectional controls (U+202E and its kin reorder the text after them) and
 * Unicode's line and paragraph separators. Account holders and API callers choose the names,
 * descriptions, labels and URLs the CLI prints, and whoever made a folder names its files, so none
 * of these may reach the terminal as they are.
 */
const UNSHOWABLE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu;

/** The escapes people know for the usual controls; every other one is written `\uXXXX`. */
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with each unshowable character written as its escape (`\n`, `\u001b`, `\u202e`), so the
 * operator sees what is stored (regression: a key named with a line break and ESC codes printed a
 * forged row in `porch key list` and recoloured the terminal). Every table cell goes through it,
 * and so does every line of human output (`print`), but for the line breaks the CLI writes itself.
 */
export function visible(text: string): string {
  return text.replace(UNSHOWABLE, (character) => NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `visible`, line by line: the line breaks the CLI writes between lines stay, any other control is escaped. */
export function visibleLines(text: string): string {
  return text.split('\n').map(visible).join('\n');
}
