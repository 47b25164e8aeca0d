/**
 * Saves from an editor that never undo someone else's (docs/versions-and-labels.md: "Updates
 * never lose each other"). An editor's form sends every field, so sending it whole as an update
 * would also write back the fields the author never touched, undoing what another tab or client
 * saved to them since the page was opened. The form therefore carries a digest of each field as
 * it was opened (its base); a save sends only the fields whose text differs from the base, and is
 * refused, naming them, when a field it changes was changed by someone else too: the three-way
 * merge a version control system makes, field by field. The update carries the version the merge
 * was made against, so a save landing between the merge and the write is merged again, not undone.
 */
import { createHash } from 'node:crypto';

/**
 * How many times a save merges afresh when another save lands between its read of the item and
 * its update (the update names the version it merged against, `expected_version`, and is refused
 * with 409 otherwise). Two people saving the same item within milliseconds of each other, three
 * times running, is no longer a race to win but a conflict to show.
 */
export const MERGE_ATTEMPTS = 3;

/** The hidden form field holding the base digests. */
export const BASE_FIELD = 'base';

/** A form's fields as text, by the name the merge reports them under. */
export type FieldTexts = Readonly<Record<string, string>>;

/** A digest of each field's text. */
export type Digests = Readonly<Record<string, string>>;

/**
 * A digest of each field's text, line endings aside: a browser sends a textarea's line breaks as
 * CRLF whatever the text held, so a field stored with CRLF (or LF) and sent back untouched must
 * count as the same text (regression: saving an untouched template rewrote its CRLFs, and
 * "nothing changed" wrote a version).
 */
export function digestsOf(texts: FieldTexts): Digests {
  return Object.fromEntries(
    Object.entries(texts).map(([name, text]) => [name, createHash('sha256').update(text.replace(/\r\n?/g, '\n')).digest('base64url').slice(0, 22)]),
  );
}

/**
 * The address an editor's form is sent to, marked with its base. A browser going back to an
 * editor (Back, Forward) loads the page again and puts back what was typed in its visible fields,
 * but never a hidden field's value: the typed text would be sent with the base of the page just
 * loaded, which may be of a newer version, and the merge would take the typed (older) text for
 * the author's change, silently undoing the newer save (regression). Chromium (as WebKit, whose
 * form-state code it shares) puts typed text back only into a form of the same signature, which
 * includes its action with its fragment, so a fragment naming the base lets the typed text come
 * back exactly when it was typed over this same base; otherwise the page shows the fields as
 * saved (test/console/editor-history.browser.ts). A textarea hidden with `hidden` is no help: a
 * browser restores only what the author changed. `autocomplete="off"` would be, but would also
 * lose the typed text when nobody saved, which the 401 and 413 pages promise Back brings back.
 * The fragment never reaches the server.
 */
export function actionFor(path: string, base: Digests | null | undefined): string {
  if (base === null || base === undefined) return path;
  return `${path}#base-${createHash('sha256').update(encodeBase(base)).digest('base64url').slice(0, 16)}`;
}

/** The base digests as the hidden field's value. */
export function encodeBase(digests: Digests): string {
  return JSON.stringify(digests);
}

/** The base a form sent; null when it sent none, or one that is not a map of digests. */
export function parseBase(value: string | undefined): Digests | null {
  if (value === undefined || value === '') return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    return entries.every(([, digest]) => typeof digest === 'string') ? (Object.fromEntries(entries) as Digests) : null;
  } catch {
    return null;
  }
}

/**
 * The fields the author left as they were opened: after a refused save, the form shows these as
 * they are now (someone else's change included), and the author's own edits for the rest, so the
 * next save sends only what the author changed (regression: it sent back the old text of untouched
 * fields, undoing the other change it had just reported).
 */
export function untouchedFields(base: Digests | null, mine: FieldTexts): Set<string> {
  if (base === null) return new Set();
  const mineDigests = digestsOf(mine);
  return new Set(Object.keys(mine).filter((name) => mineDigests[name] === base[name]));
}

export type MergeOutcome =
  /**
   * Nothing to save: no field differs from the base, or each that does already holds that text
   * (someone else made the same change). The item may still differ from the base (savedSinceBase).
   */
  | { kind: 'unchanged' }
  /** The fields to send: those the author changed, none of which anyone else changed differently. */
  | { kind: 'changes'; fields: string[] }
  /** Fields the author changed that were also changed, differently, since the base. */
  | { kind: 'conflict'; fields: string[] };

/**
 * What saving `mine` over `current` (the item as it is now) does, given the `base` the form was
 * opened with. Without a base (a form from an earlier release) every field counts as changed.
 */
export function mergeEdit(base: Digests | null, mine: FieldTexts, current: FieldTexts): MergeOutcome {
  const names = Object.keys(mine);
  if (base === null) return { kind: 'changes', fields: names };
  const mineDigests = digestsOf(mine);
  const currentDigests = digestsOf(current);
  const changed = names.filter((name) => mineDigests[name] !== base[name]);
  if (changed.every((name) => mineDigests[name] === currentDigests[name])) return { kind: 'unchanged' };
  const conflicts = changed.filter((name) => currentDigests[name] !== base[name] && currentDigests[name] !== mineDigests[name]);
  return conflicts.length > 0 ? { kind: 'conflict', fields: conflicts } : { kind: 'changes', fields: changed };
}

/**
 * Whether the item as it is now differs from the base its form was opened with: someone else saved
 * it meanwhile. A save that then writes nothing shows the item as it is now, never the older text
 * the form held (regression: "Nothing changed since version 2" above version 1's Description).
 */
export function savedSinceBase(base: Digests | null, current: FieldTexts): boolean {
  if (base === null) return false;
  const currentDigests = digestsOf(current);
  return [...new Set([...Object.keys(base), ...Object.keys(currentDigests)])].some((name) => currentDigests[name] !== base[name]);
}
