/**
 * How long an organisation's large custom ruleset holds the event loop, through the sanitiser
 * service the server uses (SQLite store, scan worker). For each step, the longest event-loop delay
 * (monitorEventLoopDelay) and the step's own time, which may be spent waiting on the worker:
 * rules added one by one, the first scan after them (the worker compiles the ruleset), a second
 * scan, a scan of 16,384 characters, and the first scan after one rule changed. Then the same for
 * a ruleset stored before the organisation-wide cap (49 rules of 1,000 keywords of 200
 * characters: the case), written straight to the store, and how long another
 * organisation's scan waits on the worker while that ruleset compiles.
 *
 *   npx tsx bench/sanitiser-large-ruleset.ts
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { systemClock } from '../src/core/clock.js';
import { newId } from '../src/core/ids.js';
import { createSanitiserService } from '../src/core/sanitiser/sanitiser-service.js';
import type { CustomRuleDefinition } from '../src/core/sanitiser/types.js';
import { createStore } from '../src/db/create-store.js';

const store = await createStore(':memory:');
const service = createSanitiserService(store, systemClock);

async function newOrganisation(name: string): Promise<string> {
  const organisationId = newId();
  const accountId = newId();
  await store.accounts.create({
    account: { id: accountId, organisationId, email: `${name}@example.com`, name: null, plan: 'expert', downgradedAt: null, createdAt: Date.now() },
    organisation: {
      id: organisationId,
      name,
      euOnlyModels: false,
      strictByok: false,
      ownerAccountId: accountId,
      sanitiserRulesVersion: 0,
      guardrailInputs: 'off',
      guardrailOutputs: 'off',
      guardrailMinSeverity: 'warn',
      createdAt: Date.now(),
    },
    initialTokens: 0,
    grantEntryId: newId(),
  });
  return organisationId;
}

/** Lower-case phrases from a fixed seed, so every run builds the same keywords. */
function phrases(seed: number): (length: number) => string {
  let state = seed;
  const letter = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return String.fromCharCode(97 + (Math.floor(state / 65_536) % 26));
  };
  return (length) => {
    let phrase = '';
    while (phrase.length < length) phrase += phrase.length % 9 === 8 ? ' ' : letter();
    return `${phrase.slice(0, length - 1)}${letter()}`;
  };
}

function keywordRule(index: number, keywordLength: number): CustomRuleDefinition {
  const phrase = phrases(index + 1);
  return {
    rule_id: `custom.names-${index}`,
    label: `Names ${index}`,
    severity: 'warn',
    enabled: true,
    kind: 'keywords',
    keywords: Array.from({ length: 1_000 }, () => phrase(keywordLength)),
  };
}

interface Step {
  longestDelayMs: number;
  elapsedMs: number;
}

/** The longest the event loop was held while `work` ran, sampled every millisecond. */
async function measured(work: () => Promise<unknown>): Promise<Step> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The monitor's first sample only sets its baseline: a hold before it would go unseen.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  await work();
  const elapsedMs = performance.now() - started;
  // The monitor records a hold when its next sample runs: give it one after the work.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  return { longestDelayMs: histogram.max / 1e6, elapsedMs };
}

const rows: string[] = [];
function record(name: string, step: Step): void {
  rows.push(`| ${name} | ${step.longestDelayMs.toFixed(1)} | ${step.elapsedMs.toFixed(0)} |`);
}

const PROSE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ';
const LONG_TEXT = PROSE.repeat(Math.ceil(16_384 / PROSE.length)).slice(0, 16_384);

// Warm up: the rule engine loads, and the worker starts, for an organisation with a small rule.
const small = await newOrganisation('small');
await service.addCustomRule(small, { rule_id: 'custom.small', label: 'Small', severity: 'warn', enabled: true, kind: 'keywords', keywords: ['bluebird'] });
await service.scan(small, 'warm up bluebird');
record('small ruleset: a scan of "hi" (worker started)', await measured(() => service.scan(small, 'hi')));
// What a small ruleset's scan of a 2 KB text costs end to end (on the worker: the hop included).
const twoKilobytes = `${PROSE.repeat(25).slice(0, 2_000)} bluebird`;
const smallScanMs: number[] = [];
for (let run = 0; run < 500; run += 1) {
  const started = performance.now();
  await service.scan(small, twoKilobytes);
  smallScanMs.push(performance.now() - started);
}
smallScanMs.sort((left, right) => left - right);

// Within the cap: five rules of 1,000 keywords of 198 characters (990,000 characters).
const capped = await newOrganisation('capped');
let longestAdd: Step = { longestDelayMs: 0, elapsedMs: 0 };
for (let index = 0; index < 5; index += 1) {
  const step = await measured(() => service.addCustomRule(capped, keywordRule(index, 198)));
  if (step.longestDelayMs >= longestAdd.longestDelayMs) longestAdd = step;
}
record('5 × 1,000 × 198: the slowest rule added', longestAdd);
record('5 × 1,000 × 198: first scan of "hi" (compiles)', await measured(() => service.scan(capped, 'hi')));
record('5 × 1,000 × 198: second scan of "hi"', await measured(() => service.scan(capped, 'hi')));
record('5 × 1,000 × 198: scan of 16,384 characters', await measured(() => service.scan(capped, LONG_TEXT)));
await service.addCustomRule(capped, { ...keywordRule(0, 198), keywords: [...(keywordRule(0, 198).keywords ?? []).slice(1), 'bluebird'] });
record('5 × 1,000 × 198: first scan after one rule changed', await measured(() => service.scan(capped, 'hi')));

// Stored before the cap: the 49 rules of 1,000 keywords of 200 characters.
const stored = await newOrganisation('stored');
for (let index = 0; index < 49; index += 1) {
  const definition = keywordRule(index, 200);
  const now = Date.now();
  await store.sanitiserRules.upsert({
    id: newId(),
    organisationId: stored,
    ruleId: definition.rule_id,
    kind: 'custom',
    definition,
    createdAt: now,
    updatedAt: now,
  });
}
let otherWaitMs = 0;
record(
  '49 × 1,000 × 200 (stored before the cap): first scan of "hi" (compiles)',
  await measured(async () => {
    const first = service.scan(stored, 'hi');
    // Another organisation's scan sent while the worker compiles: it gets a turn between rules.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const otherStarted = performance.now();
    await service.scan(small, 'bluebird');
    otherWaitMs = performance.now() - otherStarted;
    await first;
  }),
);
record('49 × 1,000 × 200: second scan of "hi"', await measured(() => service.scan(stored, 'hi')));
await service.addCustomRule(stored, { ...keywordRule(0, 200), keywords: ['bluebird'] }).catch(() => undefined);
const changed = keywordRule(1, 200);
const now = Date.now();
await store.sanitiserRules.upsert({
  id: newId(),
  organisationId: stored,
  ruleId: changed.rule_id,
  kind: 'custom',
  definition: { ...changed, keywords: ['bluebird'] },
  createdAt: now,
  updatedAt: now,
});
record('49 × 1,000 × 200: first scan after one rule changed', await measured(() => service.scan(stored, 'hi')));
await service.close();

console.log('| step | longest event-loop delay (ms) | step time (ms) |');
console.log('|---|---:|---:|');
for (const row of rows) console.log(row);
console.log(
  `\nA scan of 2 KB with the one-keyword ruleset: p50 ${(smallScanMs[250] ?? 0).toFixed(3)} ms, p95 ${(smallScanMs[475] ?? 0).toFixed(3)} ms (500 scans).`,
);
console.log(`Another organisation's scan sent while the 49-rule ruleset compiled waited ${otherWaitMs.toFixed(0)} ms.`);
