/**
 * A detector finds candidates for one family of built-in rules. It declares the keywords that
 * must occur for it to have anything to find; the prefilter runs one pass for all keywords and
 * only the detectors whose keywords occur run at all.
 */
import type { ScanContext } from './scan-context.js';

export interface Detector {
  readonly name: string;
  /** Rule ids the detector can emit; it is skipped when all of them are disabled. */
  readonly ruleIds: readonly string[];
  /** Literal keywords matched case-insensitively (ASCII). */
  readonly keywords?: readonly string[];
  /**
   * Literal keywords matched exactly (vendor token prefixes such as `ghp_`). The detector
   * ignores an occurrence that directly follows a letter or digit ("xghp_..."), unless the
   * keyword is also listed in `keywordsAfterWordCharacters`.
   */
  readonly caseSensitiveKeywords?: readonly string[];
  /** Case-sensitive keywords in the middle or at the end of a token (`AZDO`, `:AA`, `-us`). */
  readonly keywordsAfterWordCharacters?: readonly string[];
  /**
   * RE2-syntax patterns for detectors without a literal keyword (numbers, IBANs). A match only
   * says "run this detector"; the detector finds its own positions.
   */
  readonly patternTriggers?: readonly string[];
  /**
   * For shapes so common in ordinary text (runs of digits in logs and code) that reporting each
   * occurrence from the prefilter pass would cost more than this test, which stops at the first
   * match: the detector runs when it matches.
   */
  readonly presenceTest?: RegExp;
  detect(context: DetectorContext): void;
}

/** What a detector sees: the scan context plus which of its keywords occur. */
export interface DetectorContext {
  readonly scan: ScanContext;
  readonly text: string;
  /** Positions of a keyword of this detector, or [] when the prefilter did not see it. */
  positions(keyword: string): readonly number[];
  /** Whether one of this detector's pattern triggers matched somewhere in the text. */
  patternPresent(pattern: string): boolean;
  /** Where a pattern trigger's matches start (a consumed boundary character included). */
  patternPositions(pattern: string): readonly number[];
}
