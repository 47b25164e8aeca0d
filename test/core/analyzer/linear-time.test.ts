/**
 * The analyzer is public and key-free, and Node runs it on the event loop, so its time must grow
 * linearly with the prompt. Line-start patterns such as `(?:^|\n)\s*` once made every line break
 * rescan the rest of a whitespace run: 100,000 newlines took 45-60 s and 50,000 " \n" 6-35 s;
 * the length-limit pattern took 8-14 s on a long number or a run of spaces after "max".
 *
 * This checks growth, not speed: the time at the maximum length is compared with the time at a
 * tenth of it. Linear work grows about 10x, quadratic work about 100x; the limit allows 40x (and
 * never less than a fixed floor), so a slow or loaded machine does not fail it but a quadratic
 * pattern does, by a wide margin.
 */
import { describe, expect, it } from 'vitest';
import { ANALYZER_MAX_PROMPT_CHARS, analyzePrompt } from '../../../src/core/analyzer/index.js';

const SITE_URL = 'http://127.0.0.1:3000';
const SMALL_CHARS = ANALYZER_MAX_PROMPT_CHARS / 10;
const MAX_GROWTH = 40;
/** Below this the measurement is noise (GC pauses, scheduling); no linear case comes close. */
const FLOOR_MS = 500;

/** `prefix`, then `unit` repeated, cut to exactly `length` characters. */
function filled(unit: string, length: number, prefix = ''): string {
  return (prefix + unit.repeat(Math.ceil(length / unit.length))).slice(0, length);
}

/** The fastest of `runs` analyses, in milliseconds: the minimum is the least disturbed by load. */
function fastestMs(prompt: string, runs: number): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    analyzePrompt({ prompt }, { siteUrl: SITE_URL });
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

describe('analyzePrompt: time linear in the prompt length', () => {
  it.each([
    ['newlines', '\n'],
    ['" \\n" lines', ' \n'],
    ['CRLF line breaks', '\r\n'],
    ['"\\t\\n" lines', '\t\n'],
    ['full stops between blank lines', '.\n \n'],
    ['"!" then a line break and indentation', '!\n  '],
    ['no-break spaces between line breaks', '\n\u00a0'],
    ['"as a" at line starts', '\nas a '],
    ['labels at line starts', '\n# task\n'],
    ['full stops', '.'],
    ['exclamation marks', '!'],
    ['one long word', 'promptword'],
    ['words with no whitespace', 'you-are-a-senior-editor.'],
    // Found by a static ReDoS check (recheck) of every analyzer pattern: a length limit's number
    // and the spaces of a range ("3 - 5 words") could each be read in many ways.
    ['digits and commas after "max"', '0,', 'max\t0,'],
    ['spaces after "max 1"', ' ', 'max 1'],
    ['"max 0" then tabs and spaces', '\t ', 'max 0\t'],
  ])('%s at the maximum length', (_name, unit, prefix = '') => {
    const small = filled(unit, SMALL_CHARS, prefix);
    const large = filled(unit, ANALYZER_MAX_PROMPT_CHARS, prefix);
    fastestMs(small, 1); // warm up the compiled regexes and the JIT
    const smallMs = fastestMs(small, 3);
    const largeMs = fastestMs(large, 2);
    expect(largeMs, `${ANALYZER_MAX_PROMPT_CHARS} chars took ${largeMs.toFixed(1)} ms, ${SMALL_CHARS} took ${smallMs.toFixed(1)} ms`).toBeLessThan(
      Math.max(FLOOR_MS, MAX_GROWTH * smallMs),
    );
  });
});
