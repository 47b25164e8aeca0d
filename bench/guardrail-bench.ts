/**
 * What the guardrails add to a model call of a 2 KB execution: the input check (every message
 * scanned, and redacted under `redact`) plus the output check, through the same sanitiser
 * service the server uses (SQLite store, the organisation's rules version read per scan).
 * Compares each mode with `off`, which returns at once. Prints p50 and p95 in milliseconds.
 *
 *   npx tsx bench/guardrail-bench.ts [-- --runs N]
 */
import { systemClock } from '../src/core/clock.js';
import { newId } from '../src/core/ids.js';
import { createGuardrails, type GuardrailMode } from '../src/core/sanitiser/guardrails.js';
import { createSanitiserService } from '../src/core/sanitiser/sanitiser-service.js';
import { createStore } from '../src/db/create-store.js';
import type { OrganisationRecord } from '../src/db/store.js';

const args = process.argv.slice(2);
const runsIndex = args.indexOf('--runs');
const RUNS = runsIndex === -1 ? 2_000 : Number(args[runsIndex + 1]);

/** A 2 KB execution: a persona's system prompt, the user's ticket with a secret and an address, and an answer. */
const SYSTEM = 'You are a careful support engineer. Answer in plain English, in at most five sentences, and never repeat credentials back. '.repeat(3);
const USER = `${'Customer writes: our nightly export job fails since Tuesday with a timeout after 30 seconds, retried three times. '.repeat(10)}Their deploy token is ghp_Q8vT3kLm9xR2pN7wZ4bY6cJ1hF5dS0aGe2Uu and the contact is ops@example.org.`;
const ANSWER =
  'The export times out because the job reads the whole table in one query. Split it into pages of 10,000 rows and raise the timeout to 120 seconds. '.repeat(
    2,
  );

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

const store = await createStore(':memory:');
const organisation: OrganisationRecord = {
  id: newId(),
  name: 'bench',
  euOnlyModels: false,
  strictByok: false,
  ownerAccountId: null,
  sanitiserRulesVersion: 0,
  guardrailInputs: 'off',
  guardrailOutputs: 'off',
  guardrailMinSeverity: 'warn',
  createdAt: Date.now(),
};
const accountId = newId();
await store.accounts.create({
  account: {
    id: accountId,
    organisationId: organisation.id,
    email: 'bench@example.com',
    name: null,
    plan: 'expert',
    downgradedAt: null,
    createdAt: Date.now(),
  },
  organisation: { ...organisation, ownerAccountId: accountId },
  initialTokens: 0,
  grantEntryId: newId(),
});
const sanitiser = createSanitiserService(store, systemClock);
const guardrails = createGuardrails(sanitiser);
const messages = [
  { role: 'system' as const, content: SYSTEM },
  { role: 'user' as const, content: USER },
];
console.log(
  `Execution size: ${Buffer.byteLength(SYSTEM + USER + ANSWER)} bytes (system ${SYSTEM.length}, user ${USER.length}, answer ${ANSWER.length} characters); ${RUNS} runs per mode.`,
);

const rows: string[] = [];
for (const mode of ['off', 'report', 'redact'] as const satisfies readonly GuardrailMode[]) {
  const policy = { ...organisation, guardrailInputs: mode, guardrailOutputs: mode };
  for (let warm = 0; warm < 200; warm += 1) {
    await guardrails.checkInput(policy, messages);
    await guardrails.checkOutput(policy, ANSWER);
  }
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    await guardrails.checkInput(policy, messages);
    await guardrails.checkOutput(policy, ANSWER);
    times.push(performance.now() - started);
  }
  times.sort((left, right) => left - right);
  rows.push(`| ${mode} (inputs and outputs) | ${percentile(times, 0.5).toFixed(3)} | ${percentile(times, 0.95).toFixed(3)} |`);
}
console.log('| guardrail mode | p50 ms | p95 ms |');
console.log('|---|---:|---:|');
for (const row of rows) console.log(row);
await sanitiser.close();
await store.close();
