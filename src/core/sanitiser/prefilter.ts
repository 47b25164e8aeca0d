/**
 * The keyword prefilter: one RE2 pass over the text with every detector's keywords and pattern
 * triggers in a single alternation. RE2 runs it as a DFA, so the pass costs about the same for
 * 10 or 200 keywords; a V8 alternation of that size tries every alternative at every position and
 * measured several times slower on prose (bench/sanitiser-bench-notes.md).
 *
 * RE2 reports the matched strings in text order but not where they are. Every alternative is
 * context-free (no \b, no anchors), so the first occurrence of a match at or after the end of the
 * previous one is that match: one sweep over the gaps recovers every position in a single linear
 * pass. The sweep looks for each match's rarest character (indexFrom), which V8 skips to with a
 * memchr-like scan; looking for the whole match stopped at every occurrence of its first
 * character, a common letter for most keywords ("p" of "private"). A leftmost-first pass reports
 * one match per position, so a keyword inside or overlapping another keyword's match ("key" in
 * "key-") is not reported; those positions are derived from each reported match with precomputed
 * offsets, filed by the character past the match (HiddenLiterals).
 *
 * The pass itself is most of the prefilter's time, and most of it is RE2 reading the text
 * through an automaton of this size. Alternatives measured and not taken (figures in
 * bench/sanitiser-bench-notes.md): a JavaScript Aho-Corasick automaton (a table lookup per
 * character) read the text more slowly than RE2 does; a second RE2 pass for the pattern triggers
 * costs more than they add to this one.
 *
 * Keywords without letters ("@", "://") are left out of the alternation and found with one
 * indexOf sweep each: they need no case folding, V8 finds their (rare) first character with a
 * memchr-like scan, and they are among the most frequent matches in ordinary text. Each match
 * node-re2 reports has a cost of its own (the start is found by a second, reverse pass and the
 * match is copied into a JS string), so on mixed text with many addresses and URLs the sweeps
 * save more than they cost (bench/sanitiser-bench-notes.md).
 */
import RE2 from 're2';
import type { Detector } from './detector.js';

/** Key under which a keyword is recorded as present. */
export function keywordKey(keyword: string, caseSensitive: boolean): string {
  return caseSensitive ? `s:${keyword}` : `i:${keyword.toLowerCase()}`;
}

/** Key under which a pattern trigger is recorded as present. */
export function patternKey(pattern: string): string {
  return `p:${pattern}`;
}

function escapeForRegex(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\\-/]/g, '\\$&');
}

interface Literal {
  readonly key: string;
  /** The keyword, lower-cased when case-insensitive. */
  readonly text: string;
  readonly caseSensitive: boolean;
  /** Whether an occurrence right after a letter or digit is of any use to its detector. */
  readonly usefulAfterWordCharacter: boolean;
}

/** Where, relative to a match of one literal, another literal may start hidden inside or across it. */
interface HiddenOffset {
  readonly literal: Literal;
  readonly offset: number;
}

/**
 * The literals hidden in or across one match text. Those running past its end are filed by
 * their first character past it (ASCII lower case): the characters inside are the match's own,
 * so that one character rules out all but a few, read once per match instead of once per literal.
 */
interface HiddenLiterals {
  /** Literals that lie within the match. */
  readonly inside: readonly HiddenOffset[];
  /** Literals running past the match's end, by the folded code of their first character past it. */
  readonly pastEnd: ReadonlyMap<number, readonly HiddenOffset[]>;
}

/** A code unit with ASCII upper case folded to lower case. */
function foldAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function fileHidden(outerLength: number, hidden: readonly HiddenOffset[]): HiddenLiterals | null {
  if (hidden.length === 0) return null;
  const inside: HiddenOffset[] = [];
  const pastEnd = new Map<number, HiddenOffset[]>();
  for (const entry of hidden) {
    const pastIndex = outerLength - entry.offset;
    if (entry.literal.text.length <= pastIndex) {
      inside.push(entry);
      continue;
    }
    const code = foldAscii(entry.literal.text.charCodeAt(pastIndex));
    pastEnd.set(code, [...(pastEnd.get(code) ?? []), entry]);
  }
  return { inside, pastEnd };
}

/**
 * The key under which literals are filed by their first two characters (`length` 2) or their one
 * character (`length` 1): the folded code of the first times 65,536 plus that of the second.
 * Case-sensitive literals are filed folded too, and occursAt compares them exactly.
 */
function leadingPairKey(text: string, at: number, length = Math.min(2, text.length - at)): number {
  const first = foldAscii(text.charCodeAt(at));
  return length < 2 ? first * 65_536 + 65_535 : first * 65_536 + foldAscii(text.charCodeAt(at + 1));
}

/** Does `literal` occur in `text` at `position` (ASCII case folding for case-insensitive ones)? */
function occursAt(text: string, position: number, literal: Literal): boolean {
  const keyword = literal.text;
  if (position + keyword.length > text.length) return false;
  for (let index = 0; index < keyword.length; index += 1) {
    let code = text.charCodeAt(position + index);
    if (!literal.caseSensitive && code >= 65 && code <= 90) code += 32;
    if (code !== keyword.charCodeAt(index)) return false;
  }
  return true;
}

/**
 * Offsets k in `outer` where `inner` could start: inside it, at its start, or running past its
 * end. An offset right after a letter or digit of `outer` is skipped when the inner keyword's
 * detector ignores such occurrences anyway.
 */
function hiddenOffsets(outer: string, inner: Literal): number[] {
  const offsets: number[] = [];
  const innerText = inner.text.toLowerCase();
  for (let offset = 0; offset < outer.length; offset += 1) {
    const rest = outer.slice(offset);
    if (offset === 0 && rest === innerText) continue;
    if (!rest.startsWith(innerText) && !innerText.startsWith(rest)) continue;
    if (offset > 0 && !inner.usefulAfterWordCharacter && /[a-z0-9]/.test(outer[offset - 1] ?? '')) continue;
    offsets.push(offset);
  }
  return offsets;
}

/**
 * Characters from most to least frequent in English prose and code (the lower case ones; an
 * upper-case letter counts as rarer than any of them): where a match is looked for again in the
 * text, its rarest character is searched for, as V8 skips to a single character with a memchr
 * and stops at each occurrence of it.
 */
const FREQUENT_FIRST = ' etaoinshrdlcumwfgypbvkjxqz';

/**
 * rarity() of every ASCII code, computed once: a pattern trigger's matches (IBANs, national ids)
 * are mostly distinct texts, so each is ranked character by character on every scan.
 */
const ASCII_RARITY: Float64Array = (() => {
  const table = new Float64Array(128);
  for (let code = 0; code < 128; code += 1) {
    const lower = foldAscii(code);
    const rank = FREQUENT_FIRST.indexOf(String.fromCharCode(lower));
    table[code] = rank === -1 ? FREQUENT_FIRST.length / 2 : lower === code ? rank : FREQUENT_FIRST.length + rank;
  }
  return table;
})();

function rarity(code: number): number {
  // Outside ASCII, foldAscii changes nothing and no character is in FREQUENT_FIRST.
  return code < 128 ? (ASCII_RARITY[code] ?? 0) : FREQUENT_FIRST.length / 2;
}

/** The offset of a text's rarest character (the first of equals). */
function rarestOffset(text: string): number {
  let best = 0;
  let bestRarity = rarity(text.charCodeAt(0));
  for (let offset = 1; offset < text.length; offset += 1) {
    const current = rarity(text.charCodeAt(offset));
    if (current > bestRarity) {
      best = offset;
      bestRarity = current;
    }
  }
  return best;
}

/**
 * The first occurrence of `match` at or after `from`, as text.indexOf(match, from) finds it, by
 * way of the occurrences of its character at `anchorOffset`: each occurrence of `match` holds
 * one, so the first candidate that holds `match` is the first occurrence.
 */
function indexFrom(text: string, match: string, anchorOffset: number, from: number): number {
  const anchor = match.charAt(anchorOffset);
  for (let at = text.indexOf(anchor, from + anchorOffset); at !== -1; at = text.indexOf(anchor, at + 1)) {
    if (text.startsWith(match, at - anchorOffset)) return at - anchorOffset;
  }
  return -1;
}

export interface PrefilterResult {
  /** Keys (keywordKey, patternKey) of everything present. */
  readonly present: ReadonlySet<string>;
  /** Ascending start positions of every keyword occurrence, by keywordKey. */
  readonly positions: ReadonlyMap<string, readonly number[]>;
}

export class Prefilter {
  private readonly combined: RE2 | null;
  private readonly literalsByText = new Map<string, Literal[]>();
  private readonly hiddenByKey = new Map<string, readonly HiddenOffset[]>();
  /**
   * `whole` reads the text by code points, like RE2: a consumed boundary character may be
   * outside the BMP (an emoji right before an IBAN), one character to RE2 but two UTF-16 units to
   * a V8 regex without the `u` flag (regression: `😀GR1348941` reported nothing). It is a V8
   * regex with `u` rather than RE2: it runs once per distinct pattern match and pattern, and the
   * fixed cost of an RE2 call added up to a noticeable share of the whole prefilter on mixed text
   * (bench/sanitiser-bench-notes.md).
   */
  private readonly patterns: { key: string; whole: RegExp; hasLetters: boolean }[] = [];
  private readonly literals: Literal[] = [];
  /** Keywords without letters, found by an indexOf sweep each instead of the RE2 pass. */
  private readonly sweptLiterals: Literal[] = [];
  /**
   * Literals by their first two characters, ASCII-folded (the code of the first times 65,536 plus
   * the code of the second; a one-character literal under its only code): for the keyword search
   * inside pattern matches, which looks at every offset of each match. Filed by one character, a
   * common letter held 10 to 20 candidates per offset, each compared with the text.
   */
  private readonly literalsByLeadingPair = new Map<number, Literal[]>();
  /** Whether any literal is a single character (then every offset also looks up its one-code key). */
  private readonly hasSingleCharacterLiteral: boolean;

  constructor(detectors: readonly Detector[]) {
    const insensitive = new Set<string>();
    const sensitive = new Set<string>();
    const afterWordCharacters = new Set<string>();
    const patternSources: string[] = [];
    for (const detector of detectors) {
      for (const keyword of detector.keywords ?? []) insensitive.add(keyword.toLowerCase());
      for (const keyword of detector.caseSensitiveKeywords ?? []) sensitive.add(keyword);
      for (const keyword of detector.keywordsAfterWordCharacters ?? []) afterWordCharacters.add(keyword);
      for (const pattern of detector.patternTriggers ?? []) if (!patternSources.includes(pattern)) patternSources.push(pattern);
    }
    // Case-insensitive keywords are words inside identifiers ("dbPassword"): always useful.
    for (const keyword of insensitive) {
      const literal: Literal = { key: keywordKey(keyword, false), text: keyword, caseSensitive: false, usefulAfterWordCharacter: true };
      if (/[a-z]/.test(keyword)) this.literals.push(literal);
      else this.sweptLiterals.push(literal);
    }
    for (const keyword of sensitive) {
      this.literals.push({ key: keywordKey(keyword, true), text: keyword, caseSensitive: true, usefulAfterWordCharacter: afterWordCharacters.has(keyword) });
    }
    for (const literal of this.literals) {
      const folded = literal.text.toLowerCase();
      this.literalsByText.set(folded, [...(this.literalsByText.get(folded) ?? []), literal]);
      const pair = leadingPairKey(literal.text, 0);
      this.literalsByLeadingPair.set(pair, [...(this.literalsByLeadingPair.get(pair) ?? []), literal]);
    }
    this.hasSingleCharacterLiteral = this.literals.some((literal) => literal.text.length === 1);
    for (const outer of this.literals) {
      const hidden: HiddenOffset[] = [];
      for (const inner of this.literals) {
        if (inner === outer) continue;
        for (const offset of hiddenOffsets(outer.text.toLowerCase(), inner)) hidden.push({ literal: inner, offset });
      }
      if (hidden.length > 0) this.hiddenByKey.set(outer.key, hidden);
    }
    for (const source of patternSources) {
      this.patterns.push({
        key: patternKey(source),
        whole: new RegExp(`^(?:${source})$`, 'iu'),
        hasLetters: /[A-Za-z]/.test(source.replace(/\\[A-Za-z]|\{[^}]*\}/g, '')),
      });
    }
    // Identifying a pattern's match tests the patterns in turn; the detectors list the most
    // general (and most frequent) last, so test from the end.
    this.patterns.reverse();
    // Patterns go first: where a pattern and a keyword start at the same position ("SK31..." is
    // a Slovak IBAN and a Twilio prefix) the pattern wins, and the keyword is recovered below.
    const alternatives: string[] = patternSources.map((source) => `(?i:${source})`);
    const folded = this.literals.filter((literal) => !literal.caseSensitive).map((literal) => escapeForRegex(literal.text));
    if (folded.length > 0) alternatives.push(`(?i:${folded.join('|')})`);
    for (const keyword of sensitive) alternatives.push(escapeForRegex(keyword));
    this.combined = alternatives.length > 0 ? new RE2(alternatives.join('|'), 'g') : null;
  }

  run(text: string): PrefilterResult {
    const present = new Set<string>();
    const positions = new Map<string, number[]>();
    if (text.length === 0) return { present, positions };
    for (const literal of this.sweptLiterals) {
      let position = text.indexOf(literal.text);
      if (position === -1) continue;
      const list: number[] = [];
      // Every occurrence, overlapping ones included, as a naive search reports them.
      for (; position !== -1; position = text.indexOf(literal.text, position + 1)) list.push(position);
      positions.set(literal.key, list);
      present.add(literal.key);
    }
    if (this.combined === null) return { present, positions };
    const matches = this.combined.match(text);
    if (matches === null) return { present, positions };
    const listFor = (key: string): number[] => {
      let list = positions.get(key);
      if (list === undefined) {
        list = [];
        positions.set(key, list);
        present.add(key);
      }
      return list;
    };
    // Per distinct match text, resolved once: the position lists of the keywords it is, or the
    // pattern it belongs to.
    interface Resolution {
      readonly lists: number[][];
      readonly hidden: HiddenLiterals | null;
      readonly patternKey: string | null;
      readonly patternHasLetters: boolean;
    }
    // Per distinct match text: the offset of its rarest character, by which it is found again,
    // and its resolution once it has been placed. One entry, so each match costs one lookup.
    interface Distinct {
      readonly anchorOffset: number;
      resolution: Resolution | undefined;
    }
    const distinct = new Map<string, Distinct>();
    let cursor = 0;
    // Lists that received a position at or before their last one (keywords found inside
    // another match): only these need sorting and de-duplicating at the end.
    const unordered = new Set<number[]>();
    const pushHidden = (list: number[], position: number): void => {
      const last = list[list.length - 1];
      if (last !== undefined && last >= position) unordered.add(list);
      list.push(position);
    };
    for (const match of matches) {
      let entry = distinct.get(match);
      if (entry === undefined) {
        entry = { anchorOffset: rarestOffset(match), resolution: undefined };
        distinct.set(match, entry);
      }
      const position = indexFrom(text, match, entry.anchorOffset, cursor);
      if (position === -1) continue;
      cursor = position + match.length;
      let resolution = entry.resolution;
      if (resolution === undefined) {
        const literals = (this.literalsByText.get(match.toLowerCase()) ?? []).filter((literal) => !literal.caseSensitive || literal.text === match);
        const pattern = literals.length === 0 ? this.patternOf(match) : null;
        resolution = {
          lists: literals.map((literal) => listFor(literal.key)),
          hidden: fileHidden(
            match.length,
            literals.flatMap((literal) => this.hiddenByKey.get(literal.key) ?? []),
          ),
          patternKey: pattern?.key ?? null,
          patternHasLetters: pattern?.hasLetters ?? false,
        };
        entry.resolution = resolution;
      }
      if (resolution.patternKey !== null) {
        pushHidden(listFor(resolution.patternKey), position);
        if (resolution.patternHasLetters) {
          // A pattern made of letters may cover keywords; look for them at every offset.
          for (let offset = 0; offset < match.length; offset += 1) {
            const at = position + offset;
            // Every literal starting here has its first two characters at `at` (a one-character
            // literal only its first), so these lists hold all that may occur here, in the order
            // the literals were filed; occursAt decides as before.
            if (this.hasSingleCharacterLiteral) this.pushOccurring(text, at, this.literalsByLeadingPair.get(leadingPairKey(text, at, 1)), listFor, pushHidden);
            if (at + 1 < text.length) this.pushOccurring(text, at, this.literalsByLeadingPair.get(leadingPairKey(text, at)), listFor, pushHidden);
          }
        }
        continue;
      }
      for (const list of resolution.lists) pushHidden(list, position);
      const hidden = resolution.hidden;
      if (hidden === null) continue;
      for (const entry of hidden.inside) {
        if (occursAt(text, position + entry.offset, entry.literal)) pushHidden(listFor(entry.literal.key), position + entry.offset);
      }
      const pastEnd = hidden.pastEnd.get(foldAscii(text.charCodeAt(position + match.length)));
      if (pastEnd === undefined) continue;
      for (const entry of pastEnd) {
        if (occursAt(text, position + entry.offset, entry.literal)) pushHidden(listFor(entry.literal.key), position + entry.offset);
      }
    }
    for (const [key, list] of positions) {
      if (unordered.has(list))
        positions.set(
          key,
          [...new Set(list)].sort((left, right) => left - right),
        );
    }
    return { present, positions };
  }

  /** Records, for each of `candidates` that occurs at `at`, the position under its key. */
  private pushOccurring(
    text: string,
    at: number,
    candidates: readonly Literal[] | undefined,
    listFor: (key: string) => number[],
    pushHidden: (list: number[], position: number) => void,
  ): void {
    if (candidates === undefined) return;
    for (const literal of candidates) {
      if (occursAt(text, at, literal)) pushHidden(listFor(literal.key), at);
    }
  }

  /** The pattern a match that is no keyword belongs to. */
  private patternOf(match: string): { key: string; hasLetters: boolean } | null {
    for (const pattern of this.patterns) {
      if (pattern.whole.test(match)) return pattern;
    }
    return null;
  }
}
