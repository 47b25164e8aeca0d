/**
 * State of one scan shared by the detectors: the text, the keyword positions the prefilter
 * found, and the candidates the detectors emit before the overlap policy picks the findings.
 */
import { keywordKey, patternKey, type PrefilterResult } from './prefilter.js';
import type { BuiltInRuleId } from './rule-catalog.js';

export interface Candidate {
  readonly ruleId: BuiltInRuleId;
  readonly start: number;
  readonly end: number;
}

const NO_POSITIONS: readonly number[] = [];

export class ScanContext {
  readonly candidates: Candidate[] = [];
  /** Results of the presence gates tested so far in this scan (Detector.presenceGate). */
  private readonly gates = new Map<object, boolean>();
  /** Results of the shared searches made so far in this scan (DetectorContext.shared). */
  private readonly searches = new Map<(text: string) => unknown, unknown>();

  constructor(
    readonly text: string,
    private readonly enabledRuleIds: ReadonlySet<string>,
    private readonly prefilter: PrefilterResult,
  ) {}

  isEnabled(ruleId: BuiltInRuleId): boolean {
    return this.enabledRuleIds.has(ruleId);
  }

  emit(ruleId: BuiltInRuleId, start: number, end: number): void {
    if (end > start && this.enabledRuleIds.has(ruleId)) this.candidates.push({ ruleId, start, end });
  }

  /** Start indices of every occurrence of a keyword, ascending. */
  positionsOf(keyword: string, caseSensitive: boolean): readonly number[] {
    return this.prefilter.positions.get(keywordKey(keyword, caseSensitive)) ?? NO_POSITIONS;
  }

  /** Whether the prefilter saw a keyword or pattern, by its key (keywordKey, patternKey). */
  hasKey(key: string): boolean {
    return this.prefilter.present.has(key);
  }

  patternPositions(pattern: string): readonly number[] {
    return this.prefilter.positions.get(patternKey(pattern)) ?? NO_POSITIONS;
  }

  /** Whether a presence gate matches the text, tested once per scan however many detectors share it. */
  passesGate(gate: { test(text: string): boolean }): boolean {
    let passes = this.gates.get(gate);
    if (passes === undefined) {
      passes = gate.test(this.text);
      this.gates.set(gate, passes);
    }
    return passes;
  }

  /** `search`'s result on the text, computed on the first call of this scan. */
  shared<T>(search: (text: string) => T): T {
    if (this.searches.has(search)) return this.searches.get(search) as T;
    const result = search(this.text);
    this.searches.set(search, result);
    return result;
  }

  hasPattern(pattern: string): boolean {
    return this.prefilter.present.has(patternKey(pattern));
  }
}
