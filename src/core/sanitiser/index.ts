export { createSanitiser, MAX_FINDINGS_PER_SCAN } from './create-sanitiser.js';
export {
  MAX_CUSTOM_RULES,
  MAX_MATCHES_PER_CUSTOM_RULE,
  validateCustomRule,
  validateOverride,
} from './custom-rules.js';
export { findingSpans, type FindingSpan } from './overlap.js';
export { BUILT_IN_RULES } from './rule-catalog.js';
export { placeholderType, redactText } from './redact.js';
export {
  customRuleDefinitionSchema,
  findingSchema,
  findingSeveritySchema,
  MAX_CUSTOM_KEYWORD_LENGTH,
  MAX_CUSTOM_KEYWORDS,
  MAX_CUSTOM_LABEL_LENGTH,
  MAX_CUSTOM_PATTERN_LENGTH,
  overallSeveritySchema,
  redactedTextSchema,
  ruleOverrideSchema,
  scanResultSchema,
  scanTextResultSchema,
} from './schemas.js';
export type {
  BuiltInRuleInfo,
  CustomRuleDefinition,
  Finding,
  FindingSeverity,
  OrganisationRuleset,
  OverallSeverity,
  RuleCategory,
  RuleOverride,
  Sanitiser,
  ScanResult,
} from './types.js';
