/**
 * The sanitiser as the API uses it: the built-in rules plus each organisation's own rules and
 * overrides, stored in the database and compiled once per organisation. A compiled ruleset is
 * reused until the organisation's rules version changes, which another process (the CLI) may do.
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

/** Organisations whose compiled rulesets stay in memory; the least recently compiled go first. */
const COMPILED_RULESET_CACHE_SIZE = 500;

/**
 * Texts up to this many characters are scanned on the event loop; longer ones on the worker
 * thread. The slowest shapes cost about 1.5 µs a character (bench/RESULTS-NOTES.md), so an
 * inline scan holds the loop for tens of milliseconds at most, and the short texts most scans
 * are skip the hop to the worker.
 */
export const INLINE_SCAN_MAX_CHARS = 16_384;

const NO_RULES: OrganisationRuleset = { custom: [], overrides: [] };
/** The worker's name for the ruleset of organisations without rules of their own. */
const BUILT_IN_RULESET_KEY = 'built-in';

interface CompiledRuleset {
  version: number;
  ruleset: OrganisationRuleset;
  sanitiser: Sanitiser;
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
  const compiled = new Map<string, CompiledRuleset>();
  const worker = createWorkerScanner();

  async function requireOrganisation(organisationId: string): Promise<void> {
    if (!(await store.organisations.findById(organisationId))) {
      throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
    }
  }

  async function rulesetFor(organisationId: string): Promise<CompiledRuleset> {
    const version = await store.sanitiserRules.version(organisationId);
    const { createSanitiser } = await loadEngine();
    if (version === 0) return { version, ruleset: NO_RULES, sanitiser: (builtIn ??= createSanitiser()) };
    const cached = compiled.get(organisationId);
    if (cached?.version === version) return cached;
    const ruleset = rulesetOf(await store.sanitiserRules.list(organisationId));
    const entry = { version, ruleset, sanitiser: createSanitiser(ruleset) };
    compiled.delete(organisationId);
    if (compiled.size >= COMPILED_RULESET_CACHE_SIZE) compiled.delete(compiled.keys().next().value ?? '');
    compiled.set(organisationId, entry);
    return entry;
  }

  async function save(
    organisationId: string,
    kind: 'custom' | 'override',
    ruleId: string,
    definition: CustomRuleDefinition | RuleOverride,
  ): Promise<SanitiserRuleView> {
    await requireOrganisation(organisationId);
    const now = clock.now();
    await store.sanitiserRules.upsert({ id: newId(), organisationId, ruleId, kind, definition, createdAt: now, updatedAt: now });
    return { rule_id: ruleId, kind, definition, updated_at: toIsoTimestamp(now) };
  }

  const service = {
    async scan(organisationId: string, text: string): Promise<ScanResult> {
      const { version, ruleset, sanitiser } = await rulesetFor(organisationId);
      if (text.length <= INLINE_SCAN_MAX_CHARS) return sanitiser.scan(text);
      return worker.scan(version === 0 ? BUILT_IN_RULESET_KEY : `${organisationId}:${version}`, ruleset, text);
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

    /** Adds or replaces a custom rule (regex or keyword list); the pattern is checked before it is stored. */
    async addCustomRule(organisationId: string, input: unknown): Promise<SanitiserRuleView> {
      const { validateNewCustomRule, MAX_CUSTOM_RULES } = await loadEngine();
      const rule = validateNewCustomRule(input);
      const existing = await store.sanitiserRules.list(organisationId);
      const customCount = existing.filter((record) => record.kind === 'custom' && record.ruleId !== rule.rule_id).length;
      if (customCount >= MAX_CUSTOM_RULES) throw new PorchError('VALIDATION_ERROR', `An organisation may have at most ${MAX_CUSTOM_RULES} custom rules.`);
      return save(organisationId, 'custom', rule.rule_id, rule);
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
      const record = (await store.sanitiserRules.list(organisationId)).find((candidate) => candidate.kind === 'custom' && candidate.ruleId === ruleId);
      if (record === undefined) {
        throw new PorchError('RESOURCE_NOT_FOUND', `The organisation has no custom rule "${ruleId.slice(0, 80)}"; "porch sanitiser rule add" adds one.`);
      }
      const { validateCustomRule } = await loadEngine();
      const rule = validateCustomRule({ ...(record.definition as CustomRuleDefinition), ...changes });
      return save(organisationId, 'custom', rule.rule_id, rule);
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
