/**
 * The sanitiser as the API uses it: the built-in rules plus each organisation's own rules and
 * overrides, stored in the database and compiled once per organisation. A ruleset is reused until
 * the organisation's rules version changes, which another process (the CLI) may do. Custom rules
 * are compiled and run on the scan worker only: a large ruleset takes seconds to compile and tens
 * of milliseconds to scan a short text, and on the event loop that would be every request's wait.
 */
import type { SanitiserRuleRecord, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { toIsoTimestamp } from '../views.js';
import { MAX_FINDINGS_PER_SCAN } from './limits.js';
import { redactText } from './redact.js';
import type { CustomRuleDefinition, OrganisationRuleset, RuleOverride, Sanitiser, ScanResult } from './types.js';
import { createWorkerScanner } from './worker-scanner.js';

/**
 * The rule engine (RE2, libphonenumber-js's metadata, a hundred compiled rules) is loaded on the
 * first scan or rule change rather than at start-up, which it would otherwise dominate.
 */
type Engine = typeof import('./engine.js');

/** Organisations whose rulesets stay in memory; the least recently read go first. */
const RULESET_CACHE_SIZE = 500;

/**
 * Texts up to this many characters are scanned on the event loop; longer ones on the worker
 * thread. The slowest built-in shapes cost about 1.5 µs a character (bench/RESULTS-NOTES.md), so
 * an inline scan holds the loop for tens of milliseconds at most, and the short texts most scans
 * are skip the hop to the worker. A large custom ruleset has no such bound (a thousand long
 * keywords read 16,384 characters in about 60 ms, and take about 100 ms to compile), so an
 * organisation whose custom rules hold more than INLINE_CUSTOM_RULE_CHARACTERS always scans on
 * the worker.
 */
export const INLINE_SCAN_MAX_CHARS = 16_384;

/**
 * Custom rules up to this many characters of keywords and patterns in all are compiled and run
 * on the event loop like the built-in rules: a tenth of the ruleset above, so milliseconds. An
 * organisation with a few ordinary rules then does not wait on the worker behind another
 * organisation's large scan, which holds it for seconds (second review: 7.5 s for 14 characters).
 */
const INLINE_CUSTOM_RULE_CHARACTERS = 20_000;

/**
 * How many times an added custom rule is checked against the organisation's caps and written
 * before the add gives up with CONFLICT: each try fails only because another rule change landed
 * between its check and its write.
 */
const MAX_RULE_WRITE_ATTEMPTS = 5;

const NO_RULES: OrganisationRuleset = { custom: [], overrides: [] };
/** The worker's name for the ruleset of organisations without rules of their own. */
const BUILT_IN_RULESET_KEY = 'built-in';

interface OrganisationRules {
  version: number;
  ruleset: OrganisationRuleset;
  /**
   * The compiled sanitiser when the ruleset is small (the built-in rules, overrides, custom rules
   * up to INLINE_CUSTOM_RULE_CHARACTERS: compiled in milliseconds); null when every scan goes to
   * the worker, which compiles it.
   */
  inline: Sanitiser | null;
}

export interface SanitiserRuleView {
  rule_id: string;
  kind: 'custom' | 'override';
  definition: CustomRuleDefinition | RuleOverride;
  updated_at: string;
}

function rulesetOf(records: readonly SanitiserRuleRecord[]): OrganisationRuleset {
  return {
    custom: records.filter((record) => record.kind === 'custom').map((record) => record.definition as CustomRuleDefinition),
    overrides: records.filter((record) => record.kind === 'override').map((record) => record.definition as RuleOverride),
  };
}

export function createSanitiserService(store: Store, clock: Clock) {
  let engine: Promise<Engine> | undefined;
  let builtIn: Sanitiser | undefined;
  const loadEngine = (): Promise<Engine> => (engine ??= import('./engine.js'));
  const cached = new Map<string, OrganisationRules>();
  const worker = createWorkerScanner();

  async function requireOrganisation(organisationId: string): Promise<void> {
    if (!(await store.organisations.findById(organisationId))) {
      throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
    }
  }

  async function rulesFor(organisationId: string): Promise<OrganisationRules> {
    const version = await store.sanitiserRules.version(organisationId);
    const { createSanitiser, customRuleCharacters } = await loadEngine();
    if (version === 0) return { version, ruleset: NO_RULES, inline: (builtIn ??= createSanitiser()) };
    const known = cached.get(organisationId);
    if (known?.version === version) return known;
    const ruleset = rulesetOf(await store.sanitiserRules.list(organisationId));
    const customCharacters = ruleset.custom.reduce((total, rule) => total + customRuleCharacters(rule), 0);
    const entry = { version, ruleset, inline: customCharacters <= INLINE_CUSTOM_RULE_CHARACTERS ? createSanitiser(ruleset) : null };
    cached.delete(organisationId);
    if (cached.size >= RULESET_CACHE_SIZE) cached.delete(cached.keys().next().value ?? '');
    cached.set(organisationId, entry);
    return entry;
  }

  /**
   * Writes a rule. With `expectedVersion`, only while the organisation's rules version is still
   * that one: null when another change landed first (nothing written).
   */
  async function save(
    organisationId: string,
    kind: 'custom' | 'override',
    ruleId: string,
    definition: CustomRuleDefinition | RuleOverride,
  ): Promise<SanitiserRuleView>;
  async function save(
    organisationId: string,
    kind: 'custom' | 'override',
    ruleId: string,
    definition: CustomRuleDefinition | RuleOverride,
    expectedVersion: number,
  ): Promise<SanitiserRuleView | null>;
  async function save(
    organisationId: string,
    kind: 'custom' | 'override',
    ruleId: string,
    definition: CustomRuleDefinition | RuleOverride,
    expectedVersion?: number,
  ): Promise<SanitiserRuleView | null> {
    await requireOrganisation(organisationId);
    const now = clock.now();
    const written = await store.sanitiserRules.upsert(
      { id: newId(), organisationId, ruleId, kind, definition, createdAt: now, updatedAt: now },
      expectedVersion,
    );
    return written ? { rule_id: ruleId, kind, definition, updated_at: toIsoTimestamp(now) } : null;
  }

  const service = {
    async scan(organisationId: string, text: string): Promise<ScanResult> {
      const { version, ruleset, inline } = await rulesFor(organisationId);
      if (inline !== null && text.length <= INLINE_SCAN_MAX_CHARS) return inline.scan(text);
      return worker.scan(version === 0 ? BUILT_IN_RULESET_KEY : organisationId, version, ruleset, text);
    },

    /**
     * Scans, and with `redact` also returns the text with each finding replaced by its placeholder.
     * Through `this`, so a wrapper of the service (telemetry counts scans) sees this scan too.
     */
    async scanText(
      this: { scan(organisationId: string, text: string): Promise<ScanResult> },
      organisationId: string,
      text: string,
      options: { redact?: boolean | undefined } = {},
    ): Promise<ScanResult & { redacted_text?: string }> {
      const result = await this.scan(organisationId, text);
      if (options.redact !== true) return result;
      // Redacted text is meant to be safe to pass on; a scan that stopped early cannot promise it.
      if (result.truncated) {
        throw new PorchError(
          'VALIDATION_ERROR',
          `redact: the text cannot be redacted completely: its scan stopped early (more than ${MAX_FINDINGS_PER_SCAN.toLocaleString('en')} findings, or an organisation rule reached its limit of matches or searches). Scan it in smaller parts.`,
        );
      }
      return { ...result, redacted_text: redactText(text, result.findings) };
    },

    /** Stops the scanning worker thread, if one started. */
    close: () => worker.close(),

    /**
     * Adds or replaces a custom rule (regex or keyword list); the pattern is checked before it is
     * stored. The organisation's caps are checked against its rules as of one rules version, and
     * the rule is written only while that version stands: two adds at once, each within the caps
     * alone, cannot together exceed them (a change that landed in between means checking again).
     */
    async addCustomRule(organisationId: string, input: unknown): Promise<SanitiserRuleView> {
      const { validateNewCustomRule, MAX_CUSTOM_RULES, MAX_CUSTOM_RULE_CHARACTERS, customRuleCharacters } = await loadEngine();
      const rule = validateNewCustomRule(input);
      for (let attempt = 1; ; attempt += 1) {
        const version = await store.sanitiserRules.version(organisationId);
        const existing = await store.sanitiserRules.list(organisationId);
        const others = existing
          .filter((record) => record.kind === 'custom' && record.ruleId !== rule.rule_id)
          .map((record) => record.definition as CustomRuleDefinition);
        if (others.length >= MAX_CUSTOM_RULES) throw new PorchError('VALIDATION_ERROR', `An organisation may have at most ${MAX_CUSTOM_RULES} custom rules.`);
        const characters = others.reduce((total, other) => total + customRuleCharacters(other), customRuleCharacters(rule));
        if (characters > MAX_CUSTOM_RULE_CHARACTERS) {
          const limit = MAX_CUSTOM_RULE_CHARACTERS.toLocaleString('en');
          throw new PorchError(
            'VALIDATION_ERROR',
            `An organisation's custom rules may hold at most ${limit} characters of keywords and patterns in all; with this rule they would hold ${characters.toLocaleString('en')}. Remove or shorten rules first.`,
          );
        }
        const saved = await save(organisationId, 'custom', rule.rule_id, rule, version);
        if (saved !== null) return saved;
        if (attempt === MAX_RULE_WRITE_ATTEMPTS) {
          throw new PorchError('CONFLICT', "The organisation's sanitiser rules kept changing while this rule was being added; try again.");
        }
      }
    },

    /** Disables a built-in rule or changes its severity for the organisation. */
    async setOverride(organisationId: string, input: unknown): Promise<SanitiserRuleView> {
      const { validateOverride } = await loadEngine();
      const override = validateOverride(input);
      return save(organisationId, 'override', override.rule_id, override);
    },

    /**
     * Switches one of the organisation's custom rules on or off, or changes its severity, keeping
     * the rest of its definition. RESOURCE_NOT_FOUND when the organisation or the rule does not exist.
     */
    async updateCustomRule(organisationId: string, ruleId: string, changes: { enabled?: boolean; severity?: string }): Promise<SanitiserRuleView> {
      if (changes.enabled === undefined && changes.severity === undefined) {
        throw new PorchError('VALIDATION_ERROR', 'A change to a custom rule must set enabled, severity or both.');
      }
      await requireOrganisation(organisationId);
      const { validateCustomRule } = await loadEngine();
      // Written against the rules version it was read at, as an add is: a rule removed meanwhile is
      // not brought back, past the caps (review: a change racing a remove and an add made 201 rules,
      // and every scan of the organisation failed from then on).
      for (let attempt = 1; ; attempt += 1) {
        const version = await store.sanitiserRules.version(organisationId);
        const record = (await store.sanitiserRules.list(organisationId)).find((candidate) => candidate.kind === 'custom' && candidate.ruleId === ruleId);
        if (record === undefined) {
          throw new PorchError('RESOURCE_NOT_FOUND', `The organisation has no custom rule "${ruleId.slice(0, 80)}"; "porch sanitiser rule add" adds one.`);
        }
        const rule = validateCustomRule({ ...(record.definition as CustomRuleDefinition), ...changes });
        const saved = await save(organisationId, 'custom', rule.rule_id, rule, version);
        if (saved !== null) return saved;
        if (attempt === MAX_RULE_WRITE_ATTEMPTS) {
          throw new PorchError('CONFLICT', "The organisation's sanitiser rules kept changing while this rule was being changed; try again.");
        }
      }
    },

    /**
     * Switches a rule on or off, or changes its severity: one of the organisation's custom rules
     * (ids start with "custom.") in place, a built-in rule as an override.
     */
    async setRule(organisationId: string, ruleId: string, changes: { enabled?: boolean; severity?: string }): Promise<SanitiserRuleView> {
      if (ruleId.startsWith('custom.')) return service.updateCustomRule(organisationId, ruleId, changes);
      return service.setOverride(organisationId, { rule_id: ruleId, ...changes });
    },

    async listRules(organisationId: string): Promise<SanitiserRuleView[]> {
      await requireOrganisation(organisationId);
      return (await store.sanitiserRules.list(organisationId)).map((record) => ({
        rule_id: record.ruleId,
        kind: record.kind,
        definition: record.definition as CustomRuleDefinition | RuleOverride,
        updated_at: toIsoTimestamp(record.updatedAt),
      }));
    },

    async removeRule(organisationId: string, ruleId: string): Promise<void> {
      await requireOrganisation(organisationId);
      if (!(await store.sanitiserRules.remove({ organisationId, ruleId }))) {
        throw new PorchError('RESOURCE_NOT_FOUND', `The organisation has no rule or override "${ruleId}".`);
      }
    },
  };
  return service;
}

export type SanitiserService = ReturnType<typeof createSanitiserService>;
