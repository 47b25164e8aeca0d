/** Small helpers shared by the dimension scorers. */

export function clampScore(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.round(Math.min(100, Math.max(0, value)));
}

/** Distinct lower-cased matches of a global regex, in order of first appearance, at most `limit`. */
export function distinctMatches(pattern: RegExp, text: string, limit: number): string[] {
  pattern.lastIndex = 0;
  const found: string[] = [];
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    const value = match[0].toLowerCase();
    if (!found.includes(value)) {
      found.push(value);
      if (found.length >= limit) break;
    }
    // A zero-length match would loop forever; the patterns here never match empty, but be safe.
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  return found;
}

export interface MatchSummary {
  /** Number of matches. */
  readonly count: number;
  /** Distinct lower-cased matches in order of first appearance, at most the limit given. */
  readonly distinct: readonly string[];
}

/** Counts and lists matches of a global regex in one pass over the text. */
export function summariseMatches(pattern: RegExp, text: string, limit: number): MatchSummary {
  pattern.lastIndex = 0;
  const distinct: string[] = [];
  let count = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    count += 1;
    const value = match[0].toLowerCase();
    if (distinct.length < limit && !distinct.includes(value)) distinct.push(value);
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  return { count, distinct };
}
