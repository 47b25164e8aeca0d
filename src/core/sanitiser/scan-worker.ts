/**
 * The sanitiser on a worker thread: large scans, and every scan of an organisation with custom
 * rules, run here so the server's event loop stays free for other requests (see
 * worker-scanner.ts, which starts it). The same createSanitiser runs as on the main thread, so
 * the findings are the same.
 *
 * Compiling a large ruleset is slow (a rule of a thousand long keywords is one RE2 program of
 * some 200,000 characters: about 100 ms), so a ruleset is built one rule at a time, giving other
 * scans a turn between rules, and a new version of an organisation's rules reuses each rule of
 * the previous version whose matching part (kind, pattern, flags, keywords, case) is unchanged.
 */
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { createSanitiser } from './create-sanitiser.js';
import { compileCustomRule, MAX_CUSTOM_RULES, validateCustomRule, type CompiledCustomRule } from './custom-rules.js';
import type { CustomRuleDefinition, OrganisationRuleset, Sanitiser } from './types.js';
import type { ScanReply, ScanRequest } from './worker-protocol.js';

/**
 * Compiled rulesets kept by the worker, the least recently used going first. Every organisation
 * with custom rules scans here, so this is the cache the main thread used to keep.
 */
const COMPILED_RULESET_CACHE_SIZE = 500;

type RuleMatcher = CompiledCustomRule['find'];

interface CompiledRuleset {
  version: number;
  sanitiser: Sanitiser;
  /** The compiled custom rules by matcherKey, for the next version to reuse. */
  matchers: ReadonlyMap<string, RuleMatcher>;
}

const compiled = new Map<string, CompiledRuleset>();
/** Builds under way, by rulesetKey and version: scans of a version being built wait for it. */
const building = new Map<string, Promise<CompiledRuleset>>();

/** What a rule's matches depend on; label, severity and enabled do not change them. */
function matcherKey(rule: CustomRuleDefinition): string {
  const matching = [rule.kind, rule.pattern ?? null, rule.flags ?? null, rule.keywords ?? null, rule.case_sensitive ?? null];
  return createHash('sha256').update(JSON.stringify(matching)).digest('hex');
}

/** Lets the worker answer the messages that arrived meanwhile (scans of other rulesets). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The ruleset compiled one custom rule per turn. Errors are createSanitiser's: each rule is
 * checked in the same order, and createSanitiser then runs the remaining checks on the results.
 */
async function build(version: number, ruleset: OrganisationRuleset, previous: CompiledRuleset | undefined): Promise<CompiledRuleset> {
  const validated = new Map<CustomRuleDefinition, CustomRuleDefinition>();
  const compiledRules = new Map<CustomRuleDefinition, CompiledCustomRule>();
  const matchers = new Map<string, RuleMatcher>();
  // Over the cap, createSanitiser refuses the ruleset before looking at a rule.
  const custom = ruleset.custom.length > MAX_CUSTOM_RULES ? [] : ruleset.custom;
  for (const rule of custom) {
    await nextTurn();
    const definition = validateCustomRule(rule);
    validated.set(rule, definition);
    if (!definition.enabled) continue;
    const key = matcherKey(definition);
    const find = matchers.get(key) ?? previous?.matchers.get(key) ?? compileCustomRule(definition).find;
    matchers.set(key, find);
    compiledRules.set(definition, { ruleId: definition.rule_id, label: definition.label, severity: definition.severity, find });
  }
  const sanitiser = createSanitiser(ruleset, {
    validate: (rule) => validated.get(rule) ?? validateCustomRule(rule),
    compile: (rule) => compiledRules.get(rule) ?? compileCustomRule(rule),
  });
  return { version, sanitiser, matchers };
}

function remember(rulesetKey: string, entry: CompiledRuleset): void {
  const current = compiled.get(rulesetKey);
  // A build of an older version that finishes late must not replace a newer one.
  if (current !== undefined && current.version > entry.version) return;
  compiled.delete(rulesetKey);
  if (compiled.size >= COMPILED_RULESET_CACHE_SIZE) compiled.delete(compiled.keys().next().value ?? '');
  compiled.set(rulesetKey, entry);
}

/** The compiled ruleset the request names, or null when the worker does not hold it and the request did not carry it. */
async function sanitiserFor(request: ScanRequest): Promise<Sanitiser | null> {
  const cached = compiled.get(request.rulesetKey);
  if (cached?.version === request.version) {
    compiled.delete(request.rulesetKey);
    compiled.set(request.rulesetKey, cached);
    return cached.sanitiser;
  }
  const buildKey = `${request.rulesetKey}@${request.version}`;
  let pending = building.get(buildKey);
  if (pending === undefined) {
    if (request.ruleset === null) return null;
    pending = build(request.version, request.ruleset, cached);
    building.set(buildKey, pending);
    pending.then(
      (entry) => {
        building.delete(buildKey);
        remember(request.rulesetKey, entry);
      },
      () => building.delete(buildKey),
    );
  }
  return (await pending).sanitiser;
}

async function answer(request: ScanRequest): Promise<ScanReply> {
  try {
    const sanitiser = await sanitiserFor(request);
    if (sanitiser === null) return { id: request.id, status: 'ruleset-needed' };
    return { id: request.id, status: 'done', result: sanitiser.scan(request.text) };
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : null;
    return { id: request.id, status: 'failed', code, message: err instanceof Error ? err.message : String(err) };
  }
}

const port = parentPort;
if (port === null) throw new Error('scan-worker.ts runs as a worker thread only.');
port.on('message', (request: ScanRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});
