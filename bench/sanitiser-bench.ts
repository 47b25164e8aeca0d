/**
 * Sanitiser throughput against secretlint's recommended preset (through @secretlint/core's
 * lintSource), side by side on the same inputs, and a check that Porch finds a superset of
 * what secretlint finds. Writes bench/SANITISER-BENCH.md.
 *
 * A third engine, the first-round sanitiser (the code before issue 22's rules, built from git
 * history by bench/sanitiser-baseline.ts), takes turns with the other two, so the targets compare
 * today's ratio to secretlint with the first-round ratio measured in the same run.
 *
 *   npm run bench:sanitiser [-- --size BYTES] [-- --runs N]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import RE2 from 're2';
import { BUILT_IN_DETECTORS } from '../src/core/sanitiser/detectors/index.js';
import { BUILT_IN_RULES, createSanitiser } from '../src/core/sanitiser/index.js';
import { Prefilter } from '../src/core/sanitiser/prefilter.js';
import { FIRST_ROUND_COMMIT, loadSanitiserAt } from './sanitiser-baseline.js';
import { cleanProse, codeWithSecrets, mixedText, mixedTextParts } from './sanitiser-bench-inputs.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
function numberArgument(name: string, fallback: number): number {
  const index = args.indexOf(name);
  const value = index === -1 ? Number.NaN : Number(args[index + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
/** 1 MiB per input: large enough that per-call overhead does not dominate, the API body limit. */
const INPUT_SIZE = numberArgument('--size', 1_048_576);
/** Timed runs per engine, input and round. */
const RUNS = numberArgument('--runs', 7);
/**
 * Rounds per input, the engines taking turns within each: the machine is shared, and load from
 * other processes then affects both engines alike. The median over all rounds is reported.
 */
const ROUNDS = numberArgument('--rounds', 5);
const WARMUP_RUNS = 3;

const secretlintConfig = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }] };

async function secretlintMessages(text: string): Promise<{ start: number; end: number; ruleId: string }[]> {
  const result = await lintSource({
    source: { content: text, filePath: '/bench/input.txt', contentType: 'text' },
    options: { config: secretlintConfig, noPhysicFilePath: true },
  });
  return result.messages.map((message) => ({ start: message.range[0], end: message.range[1], ruleId: message.ruleId }));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Durations of a series of scans: wall clock and the process's CPU time (user + system), in ms. */
interface Durations {
  readonly wall: number[];
  readonly cpu: number[];
}

function durations(): Durations {
  return { wall: [], cpu: [] };
}

/**
 * Durations of `run` on a fresh copy of `text` each time: a server receives a new string per
 * request, and node-re2 reuses its UTF-8 copy of a string it saw last, which would flatter an
 * engine built on RE2 if the same string object were scanned over and over. CPU time is recorded
 * beside wall time: on a shared machine another process's load stretches wall time, while the
 * scan's own CPU time (GC helper threads included) changes much less.
 */
async function timeRuns(text: string, run: (input: string) => unknown, runs: number, into: Durations = durations()): Promise<Durations> {
  const freshCopy = (): string => Buffer.from(text, 'utf8').toString('utf8');
  for (let index = 0; index < runs; index += 1) {
    const input = freshCopy();
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    await run(input);
    into.wall.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuStarted);
    into.cpu.push((cpu.user + cpu.system) / 1000);
  }
  return into;
}

const sanitiser = createSanitiser();
const baseline = await loadSanitiserAt();
if (!baseline.available) console.log(`First-round engine left out: ${baseline.reason}`);
const firstRound = baseline.available ? baseline.sanitiser : null;
const categoryById = new Map(BUILT_IN_RULES.map((rule) => [rule.rule_id, rule.category]));
const inputs = [
  { name: 'clean prose', text: cleanProse(INPUT_SIZE) },
  { name: 'code with secrets', text: codeWithSecrets(INPUT_SIZE) },
  { name: 'mixed text', text: mixedText(INPUT_SIZE) },
];

const rows: string[] = [];
const densities: string[] = [];
let mixedByRule = '';
/** Throughput in MB/s, wall clock and CPU time, per engine; firstRound is null without git history. */
interface Rates {
  readonly wall: number;
  readonly cpu: number;
}
const summary: Record<string, { porch: Rates; secretlint: Rates; firstRound: Rates | null }> = {};
let supersetHolds = true;
for (const input of inputs) {
  const megabytes = Buffer.byteLength(input.text, 'utf8') / 1_000_000;
  await timeRuns(input.text, (text) => sanitiser.scan(text), WARMUP_RUNS);
  await timeRuns(input.text, (text) => secretlintMessages(text), WARMUP_RUNS);
  if (firstRound !== null) await timeRuns(input.text, (text) => firstRound.scan(text), WARMUP_RUNS);
  const porchDurations = durations();
  const secretlintDurations = durations();
  const firstRoundDurations = durations();
  for (let round = 0; round < ROUNDS; round += 1) {
    await timeRuns(input.text, (text) => sanitiser.scan(text), RUNS, porchDurations);
    await timeRuns(input.text, (text) => secretlintMessages(text), RUNS, secretlintDurations);
    if (firstRound !== null) await timeRuns(input.text, (text) => firstRound.scan(text), RUNS, firstRoundDurations);
  }
  const porchMs = median(porchDurations.wall);
  const secretlintMs = median(secretlintDurations.wall);
  const findings = sanitiser.scan(input.text).findings;
  const messages = await secretlintMessages(input.text);
  const covered = messages.filter((message) => findings.some((finding) => finding.start < message.end && message.start < finding.end)).length;
  if (covered !== messages.length) supersetHolds = false;
  const secrets = findings.filter((finding) => categoryById.get(finding.rule_id) === 'secret').length;
  const porchRate = megabytes / (porchMs / 1000);
  const secretlintRate = megabytes / (secretlintMs / 1000);
  const rates = (measured: Durations): Rates => ({ wall: megabytes / (median(measured.wall) / 1000), cpu: megabytes / (median(measured.cpu) / 1000) });
  const porchRates = rates(porchDurations);
  const secretlintRates = rates(secretlintDurations);
  const firstRoundRates = firstRound === null ? null : rates(firstRoundDurations);
  summary[input.name] = { porch: porchRates, secretlint: secretlintRates, firstRound: firstRoundRates };
  const cpuRatio = (engine: Rates | null): string => (engine === null ? 'n/a' : `${(engine.cpu / secretlintRates.cpu).toFixed(2)}x`);
  if (input.name === 'mixed text') {
    const byRule = new Map<string, number>();
    for (const finding of findings) byRule.set(finding.rule_id, (byRule.get(finding.rule_id) ?? 0) + 1);
    mixedByRule = [...byRule]
      .sort((left, right) => right[1] - left[1])
      .map(([ruleId, count]) => `${ruleId} ${count}`)
      .join(', ');
  }
  densities.push(
    findings.length === 0
      ? `${input.name}: none`
      : `${input.name}: ${findings.length} (${secrets} secrets), one per ${Math.round(Buffer.byteLength(input.text, 'utf8') / findings.length)} bytes`,
  );
  rows.push(
    `| ${input.name} | ${megabytes.toFixed(2)} | ${porchRate.toFixed(1)} | ${firstRoundRates === null ? 'n/a' : firstRoundRates.wall.toFixed(1)} | ${secretlintRate.toFixed(1)} | ${(porchRate / secretlintRate).toFixed(1)}x | ${cpuRatio(porchRates)} | ${cpuRatio(firstRoundRates)} | ${secrets} + ${findings.length - secrets} | ${messages.length} | ${covered} / ${messages.length} |`,
  );
  console.log(
    `${input.name}: porch ${porchRate.toFixed(1)} MB/s (${porchMs.toFixed(2)} ms), secretlint ${secretlintRate.toFixed(1)} MB/s (${secretlintMs.toFixed(2)} ms); CPU-time ratio to secretlint: today ${cpuRatio(porchRates)}, first round ${cpuRatio(firstRoundRates)}; findings ${findings.length} (secrets ${secrets}), secretlint ${messages.length}, covered ${covered}`,
  );
}

// Where the time goes on mixed text, against the budget of issue 22's aim (1.5x secretlint): the keyword prefilter alone (one RE2
// pass); one RE2 pass for a single rare literal, which is the cost of handing the text to RE2 at
// all (converting it to UTF-8; RE2 skips to the literal's first byte with memchr); and one for a
// rare pattern that starts with a character class, which makes the automaton look at every byte,
// as any keyword automaton must. Timed taking turns with secretlint.
const mixedInput = inputs.find((input) => input.name === 'mixed text');
const floorRows: string[] = [];
if (mixedInput !== undefined) {
  const prefilter = new Prefilter(BUILT_IN_DETECTORS);
  const rareLiteral = new RE2('zqxjv', 'g');
  const everyByte = new RE2('[A-Za-z]zqxjv', 'g');
  const steps = [
    { name: 'secretlint, whole scan', run: (text: string) => secretlintMessages(text) },
    { name: 'Porch, whole scan', run: (text: string) => sanitiser.scan(text) },
    { name: "Porch's keyword prefilter alone (one RE2 pass: every rule's keywords and shape triggers)", run: (text: string) => prefilter.run(text) },
    { name: 'one RE2 pass for a single rare literal (UTF-8 conversion, memchr to its first byte)', run: (text: string) => rareLiteral.match(text) },
    { name: 'one RE2 pass for a rare pattern starting with a class (`[A-Za-z]zqxjv`: every byte read)', run: (text: string) => everyByte.match(text) },
  ];
  const stepDurations = steps.map(() => durations());
  for (const step of steps) await timeRuns(mixedInput.text, step.run, WARMUP_RUNS);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, step] of steps.entries()) await timeRuns(mixedInput.text, step.run, RUNS, stepDurations[index]);
  }
  const mebibytes = Buffer.byteLength(mixedInput.text, 'utf8') / 1_048_576;
  const perMiB = stepDurations.map((values) => median(values.wall) / mebibytes);
  const secretlintPerMiB = perMiB[0] ?? 0;
  floorRows.push(`| budget for 1.5x secretlint's throughput (issue 22's aim) | ${(secretlintPerMiB / 1.5).toFixed(2)} | 67 % |`);
  for (const [index, step] of steps.entries()) {
    const value = perMiB[index] ?? 0;
    floorRows.push(`| ${step.name} | ${value.toFixed(2)} | ${secretlintPerMiB > 0 ? ((value / secretlintPerMiB) * 100).toFixed(0) : '-'} % |`);
  }
}

const mixParts = mixedTextParts(INPUT_SIZE);
const mixBytes = new Map<string, number>();
for (const part of mixParts) mixBytes.set(part.kind, (mixBytes.get(part.kind) ?? 0) + part.text.length + 2);
const mixTotal = [...mixBytes.values()].reduce((sum, bytes) => sum + bytes, 0);
const mixComposition = [...mixBytes].map(([kind, bytes]) => `${((bytes / mixTotal) * 100).toFixed(0)} % ${kind}`).join(', ');
const mixed = summary['mixed text'];
const prose = summary['clean prose'];
/** Ratios of CPU-time throughput to secretlint's in this run: today's code and the first round's. */
function ratios(input: { porch: Rates; secretlint: Rates; firstRound: Rates | null } | undefined): { today: number; firstRound: number | null } {
  if (input === undefined) return { today: 0, firstRound: null };
  return { today: input.porch.cpu / input.secretlint.cpu, firstRound: input.firstRound === null ? null : input.firstRound.cpu / input.secretlint.cpu };
}
const mixedRatios = ratios(mixed);
const codeRatios = ratios(summary['code with secrets']);
/** A target row: today's ratio against the first round's ratio measured in the same run. */
function firstRoundTarget(name: string, measured: { today: number; firstRound: number | null }): string {
  if (measured.firstRound === null) {
    return `| >= the first round's ratio to secretlint on ${name} (CPU time, same run) | ${measured.today.toFixed(2)}x; first round not measured: ${baseline.available ? '' : baseline.reason} | n/a |`;
  }
  return `| >= the first round's ratio to secretlint on ${name} (CPU time, same run) | ${measured.today.toFixed(2)}x against ${measured.firstRound.toFixed(2)}x | ${measured.today >= measured.firstRound ? 'yes' : 'NO'} |`;
}
const lines = [
  '# Sanitiser throughput',
  '',
  'Generated by `npm run bench:sanitiser` (bench/sanitiser-bench.ts). Inputs come from a seeded generator (bench/sanitiser-bench-inputs.ts), so every run scans the same bytes. Each engine scans each input ' +
    `${WARMUP_RUNS} times to warm up, then ${ROUNDS} rounds of ${RUNS} timed scans, the engines taking turns each round; the median over all ${ROUNDS * RUNS} scans is reported. Every scan gets a fresh copy of the string, as a server receives a new one per request. secretlint runs its recommended preset through @secretlint/core's lintSource; Porch runs createSanitiser() with built-in rules only. MB = 10^6 bytes of UTF-8.`,
  '',
  baseline.available
    ? `"First round" is Porch's sanitiser before issue 22's rules (commit ${baseline.commit}), built from git history by bench/sanitiser-baseline.ts and taking turns with the other two engines; issue 22 asks that today's code keep at least its ratio to secretlint. The ratios compare CPU time (\`process.cpuUsage\`, medians), which the load of other processes on a shared machine disturbs less than wall time; MB/s are wall clock.`
    : `The first-round sanitiser (commit ${FIRST_ROUND_COMMIT}) could not be measured in this run: ${baseline.reason}. The ratios compare CPU time (\`process.cpuUsage\`, medians); MB/s are wall clock.`,
  '',
  `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, ${os.platform()} ${os.arch()}; load average at the start ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' / ')} (1 / 5 / 15 min). The machine is shared: absolute MB/s vary with its load, the ratio much less.`,
  '',
  'Inputs: clean prose (generated English paragraphs and headings, years and small counts, no personal data); code with secrets (TypeScript/Python/YAML-like lines, URLs without credentials, UUIDs, hashes, versions, and about 3 % of lines holding a secret in a format secretlint knows); mixed text (prose paragraphs; support tickets with names, emails, phone numbers and some card numbers, IBANs and SSNs; access-log excerpts with a timestamp, request line, status, latency and client IP per line; fenced code blocks with about 5 % secret lines).',
  '',
  `Mixed text by bytes: ${mixComposition}. Findings per input: ${densities.join('; ')}. Mixed-text findings by rule: ${mixedByRule}.`,
  '',
  '| input | MB | Porch MB/s | first round MB/s | secretlint MB/s | speed-up (wall) | Porch / secretlint (CPU) | first round / secretlint (CPU) | Porch findings (secrets + personal data) | secretlint findings | secretlint findings overlapped by a Porch finding |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  '## Where the time goes on mixed text',
  '',
  "Timed like the table above (the steps taking turns, medians); ms per MiB of the mixed text and as a share of secretlint's time.",
  '',
  "| step | ms per MiB | share of secretlint's time |",
  '|---|---:|---:|',
  ...floorRows,
  '',
  '## Targets',
  '',
  '| target | result | met |',
  '|---|---|---|',
  firstRoundTarget('mixed text', mixedRatios),
  firstRoundTarget('code with secrets', codeRatios),
  `| aim: >= 1.5x secretlint's throughput on mixed text (issue 22; CPU time) | ${mixedRatios.today.toFixed(2)}x | ${mixedRatios.today >= 1.5 ? 'yes' : 'NO'} |`,
  `| >= 100 MB/s on clean prose (wall clock) | ${(prose?.porch.wall ?? 0).toFixed(1)} MB/s | ${(prose?.porch.wall ?? 0) >= 100 ? 'yes' : 'NO'} |`,
  `| every secretlint finding also found by Porch (superset) | ${supersetHolds ? 'all covered' : 'some missed'} | ${supersetHolds ? 'yes' : 'NO'} |`,
  '',
];
// Hand-written notes (figures that code comments used to state) are kept apart so that the
// numbers above stay generated, as bench/sanitiser-eval.ts does with its review notes.
const notesFile = path.join(repoRoot, 'bench', 'sanitiser-bench-notes.md');
const notes = existsSync(notesFile) ? [...readFileSync(notesFile, 'utf8').trimEnd().split('\n'), ''] : [];
writeFileSync(path.join(repoRoot, 'bench', 'SANITISER-BENCH.md'), [...lines, ...notes].join('\n'));
console.log(lines.slice(-9).join('\n'));
console.log(`Wrote ${path.join('bench', 'SANITISER-BENCH.md')}`);
