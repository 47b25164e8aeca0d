/**
 * Microbenchmark of the deterministic prompt analyzer: microseconds per `analyzePrompt` call
 * for prompts of about 200, 2,000, 20,000 and 100,000 characters (the largest input the
 * analyzer accepts). Run with `npx tsx bench/analyzer-bench.ts`. Timing lives here, not in the
 * unit tests, because shared CI machines make wall-clock assertions flaky.
 */
import { analyzePrompt } from '../src/core/analyzer/index.js';

const SITE_URL = 'http://127.0.0.1:3000';

/** Realistic prompt material: a role, a task, context, format and rules, plus a data block. */
const SECTIONS = [
  'You are a senior customer-support analyst who specialises in subscription software.',
  '## Task\nClassify each ticket below into one of: billing, bug, feature request, account access, other.',
  '## Context\nThe audience is our support leads, who use the result to plan staffing for next week, so accuracy matters more than speed.',
  '## Format\nReturn only a JSON array; each element has the keys "ticket_id", "category" and "confidence" (0 to 1).',
  '## Rules\n- Use only the text of the ticket.\n- If a ticket fits no category, answer "other"; never guess.\n- Keep reasons under 20 words.',
];
const TICKET_LINES = [
  'Ticket 1042: I was charged twice for my March invoice and need a refund as soon as possible.',
  'Ticket 1043: The export button does nothing in Firefox since the last update, maybe something broke.',
  'Ticket 1044: Could you add dark mode to the mobile app? My whole team would love it.',
  'Ticket 1045: I cannot log in after resetting my password; the link says it has expired.',
  'Ticket 1046: Where do I find the API documentation for webhooks and retries?',
];

function promptOfLength(targetChars: number): string {
  let prompt = '';
  let section = 0;
  let ticket = 0;
  while (prompt.length < targetChars) {
    if (section < SECTIONS.length) {
      prompt += `${SECTIONS[section] ?? ''}\n\n`;
      section += 1;
    } else {
      prompt += `${TICKET_LINES[ticket % TICKET_LINES.length] ?? ''}\n`;
      ticket += 1;
    }
  }
  return prompt.slice(0, targetChars);
}

function microsecondsPerCall(prompt: string, iterations: number): number {
  for (let warmup = 0; warmup < Math.min(200, iterations); warmup += 1) {
    analyzePrompt({ prompt }, { siteUrl: SITE_URL });
  }
  const started = process.hrtime.bigint();
  for (let iteration = 0; iteration < iterations; iteration += 1) {
    analyzePrompt({ prompt, goal: 'structured JSON for our staffing dashboard' }, { siteUrl: SITE_URL });
  }
  const elapsedNs = Number(process.hrtime.bigint() - started);
  return elapsedNs / iterations / 1_000;
}

const CASES: ReadonlyArray<readonly [chars: number, iterations: number]> = [
  [200, 20_000],
  [2_000, 5_000],
  [20_000, 500],
  [100_000, 100],
];

for (const [chars, iterations] of CASES) {
  const microseconds = microsecondsPerCall(promptOfLength(chars), iterations);
  process.stdout.write(`${String(chars).padStart(7)} chars: ${microseconds.toFixed(1).padStart(8)} µs/call (${iterations} calls)\n`);
}
