/**
 * createSanitiser: compiles an organisation's ruleset once into a Sanitiser whose scan() runs
 * the keyword prefilter, the detectors whose keywords occur, the custom rules, and the overlap
 * policy. A Sanitiser holds no per-scan state and is cheap to keep per organisation.
 */
import { PorchError } from '../errors.js';
import { compileCustomRule, MAX_CUSTOM_RULES, validateCustomRule, validateOverride, type CompiledCustomRule } from './custom-rules.js';
import type { Detector, DetectorContext } from './detector.js';
import { BUILT_IN_DETECTORS } from './detectors/index.js';
import { encodedSpan, kubernetesSecretValues } from './encoded-values.js';
import { resolveOverlaps, type RankedCandidate } from './overlap.js';
import { holdsPlaceholder, placeholderEndAt, placeholderType } from './redact.js';
import { keywordKey, Prefilter, patternKey } from './prefilter.js';
import { BUILT_IN_RULE_DEFINITIONS } from './rule-catalog.js';
import { ScanContext } from './scan-context.js';
import { isDocumentationExample, isDocumentedTestCard } from './validators.js';
import {
  SEVERITY_RANK,
  type CustomRuleDefinition,
  type FindingSeverity,
  type OrganisationRuleset,
  type OverallSeverity,
  type Sanitiser,
  type ScanResult,
} from './types.js';

import { MAX_FINDINGS_PER_SCAN } from './limits.js';
import { CUSTOM_RULE_SPECIFICITY } from './overlap.js';

export { MAX_FINDINGS_PER_SCAN };

/**
 * No-break spaces: word processors and mail clients put them between the groups of a phone,
 * card or IBAN number (`+33 6 12 34 56 78` with U+00A0, `4111 1111...` with U+202F), where the
 * built-in rules expect a space (regression: such numbers were never found). Each is one UTF-16
 * code unit, as the space that replaces it is, so offsets into the text are unchanged; matches
 * are still cut from the text as sent. Organisation rules read the text as sent.
 */
const NO_BREAK_SPACES = /[\u00a0\u202f]/g;

function withPlainSpaces(text: string): string {
  return text.includes('\u00a0') || text.includes('\u202f') ? text.replace(NO_BREAK_SPACES, ' ') : text;
}

/** The longest placeholder a candidate may lie inside: `[` + the longest type + `_` + a number + `]`. */
const MAX_PLACEHOLDER_LENGTH = 64;

/** Whether a code unit may be part of a placeholder (`[`, `]`, `A`-`Z`, `0`-`9`, `_`). */
function isPlaceholderCode(code: number): boolean {
  return code === 91 || code === 93 || code === 95 || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/**
 * Whether `text[start, end)` lies inside a placeholder (`[NPM_TOKEN_1` of `[NPM_TOKEN_1]`). Read
 * per candidate rather than by a search of the text: code holds thousands of `[`, and almost
 * every candidate has a character no placeholder has, found in its first few.
 */
function isInsidePlaceholder(text: string, start: number, end: number, types: ReadonlySet<string>): boolean {
  if (end - start > MAX_PLACEHOLDER_LENGTH) return false;
  for (let index = start; index < end; index += 1) if (!isPlaceholderCode(text.charCodeAt(index))) return false;
  let open = start;
  while (open > 0 && start - open < MAX_PLACEHOLDER_LENGTH && text.charCodeAt(open) !== 91 && isPlaceholderCode(text.charCodeAt(open - 1))) open -= 1;
  return text.charCodeAt(open) === 91 && placeholderEndAt(text, open, types) >= end;
}

/**
 * `candidates` without the detectors' reading of redaction placeholders: what stood there was
 * redacted already, and redacted text must scan clean (regression: `_authToken=[NPM_TOKEN_1]`
 * was found again as an npm credential, `[NPM_TOKEN_1`, so a guardrail that redacts inputs and
 * blocks outputs blocked Porch's own redaction). Dropped: a candidate inside a placeholder, and
 * a URL around one (`https://oauth2:[GITLAB_TOKEN_1]@gitlab.com/...`), which the value redacted
 * there outranked in the text as first scanned. A credential URL around a placeholder is kept:
 * `https://[EMAIL_1]:<password>@host` still holds a password.
 */
function isReadingOfPlaceholder(
  text: string,
  candidate: { readonly ruleId: string; readonly start: number; readonly end: number },
  types: ReadonlySet<string>,
): boolean {
  if (isInsidePlaceholder(text, candidate.start, candidate.end, types)) return true;
  return candidate.ruleId === 'pii.url' && holdsPlaceholder(text.slice(candidate.start, candidate.end), types);
}

interface EffectiveRule {
  readonly label: string;
  readonly severity: FindingSeverity;
  readonly specificity: number;
}

let sharedPrefilter: Prefilter | undefined;

/** The built-in detectors' prefilter is the same for every organisation: compile it once. */
function builtInPrefilter(): Prefilter {
  sharedPrefilter ??= new Prefilter(BUILT_IN_DETECTORS);
  return sharedPrefilter;
}

/** Per detector, which of its keywords are case-sensitive (computed once per sanitiser). */
function detectorContext(caseSensitive: ReadonlySet<string>, scan: ScanContext): DetectorContext {
  return {
    scan,
    text: scan.text,
    positions: (keyword) => scan.positionsOf(keyword, caseSensitive.has(keyword)),
    patternPresent: (pattern) => scan.hasPattern(pattern),
    patternPositions: (pattern) => scan.patternPositions(pattern),
    shared: (search) => scan.shared(search),
  };
}

/**
 * The prefilter keys (keywordKey, patternKey) whose presence runs a detector, built once per
 * sanitiser rather than for every keyword of every detector on every scan: a short text's scan
 * takes microseconds, and the detectors have a few hundred keywords between them.
 */
function triggerKeys(detector: Detector): readonly string[] {
  return [
    ...(detector.keywords ?? []).map((keyword) => keywordKey(keyword, false)),
    ...(detector.caseSensitiveKeywords ?? []).map((keyword) => keywordKey(keyword, true)),
    ...(detector.patternTriggers ?? []).map((pattern) => patternKey(pattern)),
  ];
}

function isTriggered(detector: Detector, keys: readonly string[], scan: ScanContext): boolean {
  return (
    keys.some((key) => scan.hasKey(key)) ||
    (detector.presenceTest !== undefined &&
      (detector.presenceGate === undefined || scan.passesGate(detector.presenceGate)) &&
      detector.presenceTest.test(scan.text))
  );
}

/**
 * How a sanitiser checks and compiles each custom rule. The scan worker passes one that hands back
 * rules it checked and compiled beforehand, one at a time, so that building a large ruleset never
 * holds its thread for longer than one rule and an unchanged rule is not compiled again.
 */
export interface CustomRuleCompiler {
  validate(rule: CustomRuleDefinition): CustomRuleDefinition;
  compile(rule: CustomRuleDefinition): CompiledCustomRule;
}

const COMPILE_EACH_RULE: CustomRuleCompiler = { validate: validateCustomRule, compile: compileCustomRule };

function validateRuleset(ruleset: OrganisationRuleset, compiler: CustomRuleCompiler) {
  if (ruleset.custom.length > MAX_CUSTOM_RULES) {
    throw new PorchError('VALIDATION_ERROR', `An organisation may have at most ${MAX_CUSTOM_RULES} custom rules.`);
  }
  const custom = ruleset.custom.map((rule) => compiler.validate(rule));
  const overrides = ruleset.overrides.map((override) => validateOverride(override));
  const customIds = new Set<string>();
  for (const rule of custom) {
    if (customIds.has(rule.rule_id)) throw new PorchError('VALIDATION_ERROR', `Duplicate custom rule_id "${rule.rule_id}".`);
    customIds.add(rule.rule_id);
  }
  const overrideIds = new Set<string>();
  for (const override of overrides) {
    if (overrideIds.has(override.rule_id)) throw new PorchError('VALIDATION_ERROR', `Duplicate override for "${override.rule_id}".`);
    overrideIds.add(override.rule_id);
  }
  return { custom, overrides };
}

/**
 * Builds a sanitiser for an organisation's ruleset (built-in rules only when omitted). Throws
 * PorchError VALIDATION_ERROR when a rule or override is invalid.
 */
export function createSanitiser(ruleset: OrganisationRuleset = { custom: [], overrides: [] }, compiler: CustomRuleCompiler = COMPILE_EACH_RULE): Sanitiser {
  const { custom, overrides } = validateRuleset(ruleset, compiler);
  const overridesById = new Map(overrides.map((override) => [override.rule_id, override]));
  const rules = new Map<string, EffectiveRule>();
  const enabledRuleIds = new Set<string>();
  for (const definition of BUILT_IN_RULE_DEFINITIONS) {
    const override = overridesById.get(definition.rule_id);
    rules.set(definition.rule_id, {
      label: definition.label,
      severity: override?.severity ?? definition.severity,
      specificity: definition.specificity,
    });
    if (override?.enabled !== false) enabledRuleIds.add(definition.rule_id);
  }
  const detectors = BUILT_IN_DETECTORS.filter((detector) => detector.ruleIds.some((ruleId) => enabledRuleIds.has(ruleId))).map((detector) => ({
    detector,
    caseSensitive: new Set(detector.caseSensitiveKeywords ?? []),
    keys: triggerKeys(detector),
  }));
  // Secrets that may be a vendor's documented example; key blocks and hashes hold long runs of
  // one character legitimately (DER zero padding), and nobody documents a real one.
  const exampleCheckedRuleIds = new Set<string>(
    BUILT_IN_RULE_DEFINITIONS.filter(
      (definition) => definition.category === 'secret' && definition.rule_id !== 'secret.private_key' && definition.rule_id !== 'secret.password_hash',
    ).map((definition) => definition.rule_id),
  );
  const customRules: CompiledCustomRule[] = custom.filter((rule) => rule.enabled).map((rule) => compiler.compile(rule));
  const prefilter = builtInPrefilter();
  /** The placeholder types this sanitiser's redaction writes: only those are read as redacted text. */
  const placeholderTypes: ReadonlySet<string> = new Set(
    [...BUILT_IN_RULE_DEFINITIONS.map((definition) => definition.rule_id), ...custom.map((rule) => rule.rule_id)].map(placeholderType),
  );

  /** The built-in detectors' candidates on `text`, without vendors' documented example keys and test cards, nor placeholders. */
  function detectorCandidates(text: string): readonly { ruleId: string; start: number; end: number }[] {
    const context = new ScanContext(text, enabledRuleIds, prefilter.run(text));
    for (const { detector, caseSensitive, keys } of detectors) {
      if (isTriggered(detector, keys, context)) detector.detect(detectorContext(caseSensitive, context));
    }
    return context.candidates.filter((candidate) => {
      if (isReadingOfPlaceholder(text, candidate, placeholderTypes)) return false;
      if (candidate.ruleId === 'pii.payment_card') return !isDocumentedTestCard(text.slice(candidate.start, candidate.end));
      return !exampleCheckedRuleIds.has(candidate.ruleId) || !isDocumentationExample(text.slice(candidate.start, candidate.end));
    });
  }

  /**
   * Candidates on `text` plus those inside its encoded values (Kubernetes Secret data), scanned
   * decoded as `key: value` and mapped back onto the encoded characters. What the detectors made
   * of the encoded characters themselves is dropped: base64 says nothing the decoded text does not.
   */
  function builtInCandidates(text: string): { ruleId: string; start: number; end: number }[] {
    const candidates = [...detectorCandidates(text)];
    const encoded = kubernetesSecretValues(text);
    if (encoded.length === 0) return candidates;
    const inside = (candidate: { start: number; end: number }) => encoded.some((value) => candidate.start >= value.start && candidate.end <= value.end);
    const kept = candidates.filter((candidate) => !inside(candidate));
    for (const value of encoded) {
      const prefix = `${value.key}: `;
      for (const candidate of detectorCandidates(`${prefix}${value.decoded}`)) {
        if (candidate.start < prefix.length) continue;
        kept.push({ ruleId: candidate.ruleId, ...encodedSpan(value, candidate.start - prefix.length, candidate.end - prefix.length) });
      }
    }
    return kept;
  }

  function scan(text: string): ScanResult {
    const ranked: RankedCandidate[] = [];
    if (detectors.length > 0 && text.length > 0) {
      for (const candidate of builtInCandidates(withPlainSpaces(text))) {
        const rule = rules.get(candidate.ruleId);
        if (rule === undefined) continue;
        ranked.push({
          ruleId: candidate.ruleId,
          label: rule.label,
          severity: rule.severity,
          specificity: rule.specificity,
          start: candidate.start,
          end: candidate.end,
        });
      }
    }
    let severity: OverallSeverity = 'clean';
    let truncated = false;
    for (const rule of customRules) {
      const { matches, complete } = rule.find(text);
      for (const match of matches) {
        ranked.push({
          ruleId: rule.ruleId,
          label: rule.label,
          severity: rule.severity,
          specificity: CUSTOM_RULE_SPECIFICITY,
          start: match.start,
          end: match.end,
        });
      }
      // What the rule did not read may hold a match of its own: the text is at least that severe.
      if (!complete) {
        truncated = true;
        if (SEVERITY_RANK[rule.severity] > SEVERITY_RANK[severity]) severity = rule.severity;
      }
    }
    for (const candidate of ranked) {
      if (SEVERITY_RANK[candidate.severity] > SEVERITY_RANK[severity]) severity = candidate.severity;
    }
    const findings = resolveOverlaps(text, ranked);
    if (findings.length > MAX_FINDINGS_PER_SCAN) {
      findings.length = MAX_FINDINGS_PER_SCAN;
      truncated = true;
    }
    return { findings, severity, truncated };
  }

  return { scan };
}
