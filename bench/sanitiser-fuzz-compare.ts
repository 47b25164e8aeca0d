/**
 * Today's sanitiser against another commit's, on seeded random texts dense in the pieces digit
 * shapes, identifiers and keywords are made of: separators, long runs of them, phone extensions,
 * valid national ids, cards, addresses, context words. For speed work that must not change any
 * finding, beside `npm run bench:sanitiser-hash`: the hash covers realistic texts, this the odd
 * corners (a run cut at its longest, an extension followed by more digits) that realistic texts
 * rarely reach. The other commit's sanitiser is built from git history as the bench builds the
 * first round's (bench/sanitiser-baseline.ts).
 *
 *   npm run bench:sanitiser-compare -- <commit> [--texts N] [--length L] [--seed S]
 *
 * Prints the first differing texts with both engines' findings, and the count of texts that
 * differ; exits 1 when any does.
 */
import { createSanitiser } from '../src/core/sanitiser/index.js';
import { loadSanitiserAt } from './sanitiser-baseline.js';
import { seededRandom } from './sanitiser-bench-inputs.js';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const index = args.indexOf(name);
  const value = index === -1 ? undefined : Number(args[index + 1]);
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

const commit = args[0];
if (commit === undefined || commit.startsWith('--')) {
  console.error('usage: npm run bench:sanitiser-compare -- <commit> [--texts N] [--length L] [--seed S]');
  process.exit(2);
}
const texts = option('--texts', 100_000);
const maxLength = option('--length', 200);
const random = seededRandom(option('--seed', 7));

const PIECES = [
  ...'0123456789012756',
  ' ',
  '  ',
  '-',
  '.',
  '(',
  ')',
  '/',
  '\t',
  '+',
  ':',
  '\n',
  ' '.repeat(18),
  '-'.repeat(11),
  '.'.repeat(7),
  '0123456789'.repeat(3),
  '123456',
  'x',
  'ext',
  'ext.',
  '#',
  ' x 123456789',
  '#12345678901234567',
  '((',
  '+(',
  'A',
  'B',
  'C',
  'D',
  'S',
  'T',
  'F',
  'G',
  'X',
  'JX',
  'a',
  '756.',
  '1 79 05 ',
  '210963',
  '+760K',
  'A123N',
  '440305199405019561',
  'F2287140N',
  'JX 57 04 00 A',
  '89.01.05-708.48',
  '756.6358.6611.24',
  '1 79 05 2A 410 025 05',
  '+1 415 555 0134',
  '(415) 555-0134 x 1234',
  '192.168.0.1',
  '4111 1111 1111 1111',
  '078-05-1120',
  'tel ',
  'phone: ',
  'SSN ',
  'national id: ',
  'password: ',
] as const;

function randomText(): string {
  const length = 1 + Math.floor(random() * maxLength);
  let text = '';
  while (text.length < length) text += PIECES[Math.floor(random() * PIECES.length)] ?? '';
  return text;
}

const baseline = await loadSanitiserAt(commit);
if (!baseline.available) {
  console.error(`cannot build ${commit}'s sanitiser: ${baseline.reason}`);
  process.exit(2);
}
const today = createSanitiser();
const findingsOf = (findings: readonly { rule_id: string; start: number; end: number }[]) =>
  JSON.stringify(findings.map((finding) => [finding.rule_id, finding.start, finding.end]));
let differing = 0;
for (let index = 0; index < texts; index += 1) {
  const text = randomText();
  const before = findingsOf(baseline.sanitiser.scan(text).findings);
  const after = findingsOf(today.scan(text).findings);
  if (before === after) continue;
  differing += 1;
  if (differing <= 5) console.log(`${JSON.stringify(text)}\n  ${baseline.commit}: ${before}\n  today:   ${after}`);
}
console.log(`${texts} texts of up to ${maxLength} characters against ${baseline.commit}: ${differing} differ`);
process.exit(differing === 0 ? 0 : 1);
