/**
 * One SHA-256 over every finding (rule, severity, offsets, match, label) the built-in sanitiser
 * reports on a fixed, broad set of texts, for speed work that must not change any finding: run it
 * before and after a change and compare the two lines it prints. `npm run eval:sanitiser` scores
 * the corpora; this also covers the bench's inputs, Porch's own documents and dense repetitions
 * of keywords (where the prefilter's placement of matches and hidden keywords is exercised most).
 *
 *   npm run bench:sanitiser-hash [-- --corpora DIR] [-- --verbose]
 *
 * Texts, in this order: the bench's three inputs at 256 KiB for seeds 1 to 5; every part (prose
 * paragraph, ticket, log excerpt, code block) of the mixed text at 1 MiB for seeds 1 to 3; every
 * text of the three corpora under ../shared/corpora (skipped with a note when absent); every
 * Markdown page under docs/ and the repository's README files; 64 KiB of each of 16 keywords
 * repeated back to back. --verbose prints a hash per group, to see which group changed. The
 * documents change with the repository: compare hashes made on the same documents (stash the
 * code change, not the docs). bench/sanitiser-fuzz-compare.ts compares findings with another
 * commit's directly, on random texts.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSanitiser } from '../src/core/sanitiser/index.js';
import { cleanProse, codeWithSecrets, mixedText, mixedTextParts } from './sanitiser-bench-inputs.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const corporaArgument = args.indexOf('--corpora');
const corporaDir =
  corporaArgument !== -1 && args[corporaArgument + 1] !== undefined
    ? path.resolve(args[corporaArgument + 1] ?? '')
    : (['../shared/corpora', '../../shared/corpora'].map((relative) => path.resolve(repoRoot, relative)).find((candidate) => existsSync(candidate)) ??
      path.resolve(repoRoot, '../shared/corpora'));

/** Keywords and shapes whose dense repetition stresses the prefilter and the detectors' windows. */
const DENSE_KEYWORDS = [
  'key',
  'password=',
  'token: ',
  'secret',
  'pass',
  '@',
  '://',
  'sk-',
  'xoxa-',
  'AKIA',
  'ghp_',
  'Bearer ',
  '4b1d',
  '-----BEGIN ',
  '192.168.0.1 ',
  '+1 415 555 0134, ',
];

function group(name: string, texts: readonly string[]): { name: string; texts: readonly string[] } {
  return { name, texts };
}

const groups: { name: string; texts: readonly string[] }[] = [];
const benchInputs: string[] = [];
for (let seed = 1; seed <= 5; seed += 1) benchInputs.push(cleanProse(262_144, seed), codeWithSecrets(262_144, seed), mixedText(262_144, seed));
groups.push(group('bench inputs', benchInputs));
const parts: string[] = [];
for (let seed = 1; seed <= 3; seed += 1) for (const part of mixedTextParts(1_048_576, seed)) parts.push(part.text);
groups.push(group('mixed-text parts', parts));
const corpusFiles = ['presidio_research_synth_v2_sample.jsonl', 'secret_rule_examples_np_kf.jsonl', 'secretlint_snapshots.jsonl'];
for (const file of corpusFiles) {
  const full = path.join(corporaDir, file);
  if (!existsSync(full)) {
    console.log(`corpus ${file} not found under ${corporaDir}: skipped (the hash is then not comparable with one that has it)`);
    continue;
  }
  const texts = readFileSync(full, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const record: unknown = JSON.parse(line);
      return typeof record === 'object' && record !== null && 'text' in record && typeof record.text === 'string' ? record.text : '';
    });
  groups.push(group(file, texts));
}
const documents = [
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => path.join(repoRoot, 'docs', name)),
  path.join(repoRoot, 'README.md'),
  path.join(repoRoot, 'src', 'core', 'sanitiser', 'README.md'),
].filter((file) => existsSync(file));
groups.push(
  group(
    "Porch's documents",
    documents.map((file) => readFileSync(file, 'utf8')),
  ),
);
groups.push(
  group(
    'dense keywords',
    DENSE_KEYWORDS.map((keyword) => keyword.repeat(Math.ceil(65_536 / keyword.length)).slice(0, 65_536)),
  ),
);

const sanitiser = createSanitiser();
const whole = createHash('sha256');
let textCount = 0;
let findingCount = 0;
for (const { name, texts } of groups) {
  const part = createHash('sha256');
  let groupFindings = 0;
  for (const text of texts) {
    const findings = sanitiser.scan(text).findings;
    const line = `${textCount}\t${JSON.stringify(findings.map((finding) => [finding.rule_id, finding.severity, finding.start, finding.end, finding.match, finding.label]))}\n`;
    whole.update(line);
    part.update(line);
    textCount += 1;
    groupFindings += findings.length;
  }
  findingCount += groupFindings;
  if (verbose) console.log(`${name}: ${texts.length} texts, ${groupFindings} findings, ${part.digest('hex').slice(0, 16)}`);
}
console.log(`${textCount} texts, ${findingCount} findings, sha256 ${whole.digest('hex')}`);
