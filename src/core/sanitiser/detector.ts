/**
 * A detector finds candidates for one family of built-in rules. It declares the keywords that
 * must occur for it to have anything to find; the prefilter runs one pass for all keywords and
 * only the detectors whose keywords occur run at all.
 *
 * It also declares every rule id it can emit, and the types hold it to that list: a detector is
 * skipped when all of its declared rules are disabled, so a finding of an undeclared rule would
 * vanish whenever the declared ones were switched off. Define detectors with defineDetector.
 */
import type { BuiltInRuleId } from './rule-catalog.js';

export interface Detector<RuleId extends BuiltInRuleId = BuiltInRuleId> {
  readonly name: string;
  /** Rule ids the detector can emit; it is skipped when all of them are disabled. */
  readonly ruleIds: readonly RuleId[];
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
   * match: the detector runs when it matches. A RegExp, or any cheaper test of the whole text.
   */
  readonly presenceTest?: { test(text: string): boolean };
  /**
   * A test several detectors share, run at most once per scan and before their presenceTest,
   * which is skipped when it fails: it must match wherever presenceTest does. Where none of
   * their shapes occur (prose), one pass over the text answers for all of them instead of one
   * pass each (detectors/digit-shapes.ts).
   */
  readonly presenceGate?: { test(text: string): boolean };
  /**
   * A function-typed property, not a method, so that its parameter is checked strictly; NoInfer
   * makes defineDetector take the ids from `ruleIds` alone, never from this function's type.
   */
  readonly detect: (context: DetectorContext<NoInfer<RuleId>>) => void;
}

/**
 * The scan as one detector sees it: it may emit, and ask about, only the rule ids it declares.
 * Function-typed properties rather than methods, so that a wider id type is not accepted.
 */
export interface DetectorScan<RuleId extends BuiltInRuleId> {
  readonly emit: (ruleId: RuleId, start: number, end: number) => void;
  readonly isEnabled: (ruleId: RuleId) => boolean;
}

/** What a detector sees: the scan context plus which of its keywords occur. */
export interface DetectorContext<RuleId extends BuiltInRuleId = BuiltInRuleId> {
  readonly scan: DetectorScan<RuleId>;
  readonly text: string;
  /** Positions of a keyword of this detector, or [] when the prefilter did not see it. */
  positions(keyword: string): readonly number[];
  /** Whether one of this detector's pattern triggers matched somewhere in the text. */
  patternPresent(pattern: string): boolean;
  /** Where a pattern trigger's matches start (a consumed boundary character included). */
  patternPositions(pattern: string): readonly number[];
  /**
   * `search`'s result on this scan's text, computed once however many detectors ask for it: a
   * pass over the text that several detectors need (digit-shapes.ts). Results are kept by the
   * function itself, so pass one defined once (a module's export), never a new closure.
   */
  shared<T>(search: (text: string) => T): T;
}

/**
 * Defines a detector whose rule ids are exactly those listed in `ruleIds`: `detect` cannot emit
 * an id the list lacks, and an id that is not in the rule catalog does not compile.
 */
export function defineDetector<const RuleId extends BuiltInRuleId>(detector: Detector<RuleId>): Detector<RuleId> {
  return detector;
}
