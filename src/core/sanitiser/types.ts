/**
 * The sanitiser's public types. Offsets are JavaScript string indices (UTF-16 code units), so
 * `text.slice(start, end) === match` holds for every finding, emoji and other non-BMP text included.
 */

export type FindingSeverity = 'info' | 'warn' | 'block';
export type OverallSeverity = 'clean' | FindingSeverity;

export interface Finding {
  rule_id: string;
  label: string;
  severity: FindingSeverity;
  match: string;
  start: number;
  end: number;
}

export interface ScanResult {
  findings: Finding[];
  /** The highest severity found, and at least that of a custom rule that stopped early (`truncated`). */
  severity: OverallSeverity;
  /**
   * The findings are not every finding the text holds: more than MAX_FINDINGS_PER_SCAN were found,
   * or a custom rule stopped at its cap of matches or searches before reading the whole text.
   */
  truncated: boolean;
}

export type RuleCategory = 'personal_data' | 'secret';

export interface BuiltInRuleInfo {
  rule_id: string;
  label: string;
  severity: FindingSeverity;
  category: RuleCategory;
}

export interface CustomRuleDefinition {
  /** `custom.<slug>`: lower-case letters, digits, `_` and `-`. */
  rule_id: string;
  label: string;
  severity: FindingSeverity;
  enabled: boolean;
  kind: 'regex' | 'keywords';
  /** RE2 syntax (no backreferences or lookaround); required when kind is `regex`. */
  pattern?: string;
  /** Only `i` (case-insensitive) is accepted. */
  flags?: string;
  /** Required when kind is `keywords`; matched as whole words. */
  keywords?: string[];
  /** Keywords only; default false. */
  case_sensitive?: boolean;
}

export interface RuleOverride {
  rule_id: string;
  enabled?: boolean;
  severity?: FindingSeverity;
}

export interface OrganisationRuleset {
  custom: CustomRuleDefinition[];
  overrides: RuleOverride[];
}

export interface Sanitiser {
  scan(text: string): ScanResult;
}

export const SEVERITY_RANK: Readonly<Record<OverallSeverity, number>> = {
  clean: 0,
  info: 1,
  warn: 2,
  block: 3,
};
