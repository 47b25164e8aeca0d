/**
 * Clarity: can the prompt be read one way only?
 *
 * Heuristics: a base from length, a bonus for structure, then penalties (clamped to 0-100).
 * - Base by word count: 0 → 0, 1-2 → 15, 3-5 → 35, 6-11 → 55, 12-24 → 70, 25+ → 80. A prompt
 *   too short to state a task, audience and shape cannot be unambiguous.
 * - Structure (a heading or label, 2+ list items, a delimited block, or 2+ paragraphs): +20 at
 *   40+ words, +10 at 12+ words. An unstructured prompt over 150 words: -15 (hard to scan).
 * - Vague words ("something", "stuff", "etc.", "maybe", "a bit", "kind of", "idk", "really good",
 *   "make it pop" ...):
 *   -5 each occurrence, at most -30.
 * - Ambiguity markers ("or something", "if possible", "I guess", "up to you", "and/or", "??"):
 *   -6 each, at most -18.
 * - Long sentences (over 35 words): -5 each, at most -20.
 * - Shouting (3+ all-caps words making up 15% of the words, or 8+ anywhere; acronyms such as
 *   JSON or API excepted; capitalised section labels excepted): -15. Runs of "!!": -5 each, at
 *   most -10.
 * - Contradictions (brief and detailed, formal and casual, "at most 100 words" with "at least
 *   300 words", "always X" with "never X", "include X" with "do not include X"): -15 each, at
 *   most -30.
 * - Material referred to but missing ("summarise the following" with nothing following): -10.
 */
import type { TextSignals } from '../text-signals.js';
import type { ContextFindings } from './context.js';
import { clampScore, summariseMatches } from './score-math.js';

export interface ClarityFindings {
  readonly wordCount: number;
  readonly structured: boolean;
  readonly needsStructure: boolean;
  /** Distinct vague words found, at most MAX_LISTED_WORDS. */
  readonly vagueWords: readonly string[];
  readonly ambiguityMarkers: readonly string[];
  readonly longSentenceCount: number;
  readonly shouting: boolean;
  readonly exclamationRuns: number;
  /** One plain-language description per contradiction found. */
  readonly contradictions: readonly string[];
  readonly danglingReference: boolean;
}

export interface ClarityResult {
  readonly score: number;
  readonly findings: ClarityFindings;
}

const LENGTH_BASE: ReadonlyArray<readonly [minWords: number, base: number]> = [
  [25, 80],
  [12, 70],
  [6, 55],
  [3, 35],
  [1, 15],
];
const STRUCTURE_BONUS_LONG = 20;
const STRUCTURE_BONUS_SHORT = 10;
const STRUCTURE_BONUS_LONG_MIN_WORDS = 40;
const STRUCTURE_BONUS_SHORT_MIN_WORDS = 12;
const UNSTRUCTURED_MAX_WORDS = 150;
const UNSTRUCTURED_PENALTY = 15;
const VAGUE_WORD_PENALTY = 5;
const VAGUE_WORD_MAX_PENALTY = 30;
const AMBIGUITY_PENALTY = 6;
const AMBIGUITY_MAX_PENALTY = 18;
/** Past this many words a sentence usually carries more than one instruction. */
export const LONG_SENTENCE_WORDS = 35;
const LONG_SENTENCE_PENALTY = 5;
const LONG_SENTENCE_MAX_PENALTY = 20;
const SHOUTING_PENALTY = 15;
const SHOUTING_MIN_WORDS = 3;
const SHOUTING_MIN_SHARE = 0.15;
const SHOUTING_ALWAYS_WORDS = 8;
const EXCLAMATION_PENALTY = 5;
const EXCLAMATION_MAX_PENALTY = 10;
const CONTRADICTION_PENALTY = 15;
const CONTRADICTION_MAX_PENALTY = 30;
const DANGLING_REFERENCE_PENALTY = 10;
const MAX_LISTED_WORDS = 4;
/** The penalty stops at two; a few examples are enough for the suggestion. */
const MAX_LISTED_CONTRADICTIONS = 3;

const VAGUE_WORDS =
  /\b(?:something|stuff|whatever|somehow|etc|and so on|and so forth|(?<!(?:what|which|the|this|that|any|same|each|every) )(?:kind|sort) of|kinda|sorta|maybe|perhaps|probably|a bit|a little|some sort of|more or less|or so|misc|nice|cool|interesting|good enough|things like that|and stuff|idk|(?:really|very|pretty|super|quite) (?:good|nice|great|cool|interesting)|make it (?:good|better|nice|great|pop|cool))\b/g;

const AMBIGUITY_MARKERS =
  /\b(?:or something|or whatever|or anything|if possible|if you can|you know|not sure|i guess|i think|somewhat|whatever you think|up to you|your call|and\/or)\b|\?{2,}/g;

const BREVITY =
  /\b(?:brief|briefly|concise|concisely|succinct|terse|tl;?dr|keep it short|short answer|short response|short reply|as short as possible|one sentence)\b/;
const DEPTH =
  /\b(?:detailed|in-depth|in depth|comprehensive|exhaustive|thorough|elaborate|extensive|long-form|as long as possible|every detail|all the details|cover everything)\b/;
const FORMAL = /\bformal\b/;
const CASUAL = /\b(?:casual|informal|slang|chatty|laid-back)\b/;

const UNIT = '(words?|sentences?|paragraphs?|characters?|lines?|bullets?|bullet points?|items?)';
const MAXIMUM = new RegExp(
  `\\b(?:under|at most|no more than|maximum(?: of)?|max|fewer than|less than|not exceed|no longer than)\\s+(\\d[\\d,]*)\\s*${UNIT}`,
  'g',
);
const MINIMUM = new RegExp(`\\b(?:at least|minimum(?: of)?|no fewer than|no less than|more than|over)\\s+(\\d[\\d,]*)\\s*${UNIT}`, 'g');
const ALWAYS = /\balways\s+([\p{L}'-]+(?:\s+[\p{L}'-]+)?)/gu;
const NEVER = /\b(?:never|do not ever|don't ever)\s+([\p{L}'-]+(?:\s+[\p{L}'-]+)?)/gu;
const INCLUDE_LIKE = /\b(include|use|mention|add|cite|provide|show|give)\s+(?:the\s+|a\s+|an\s+|any\s+|some\s+)?([\p{L}-]{3,})/gu;
const NEGATION_BEFORE = /(?:\bnot|n't|\bnever|\bwithout|\bno)\s+$/;

function unitKey(unit: string): string {
  return unit.replace(/ points?$/, '').replace(/s$/, '');
}

/** The tightest bound per unit: `pick` chooses between two bounds of the same unit. */
function numericBounds(pattern: RegExp, lower: string, pick: (a: number, b: number) => number): Map<string, number> {
  const bounds = new Map<string, number>();
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(lower)) !== null) {
    const value = Number((match[1] ?? '').replace(/,/g, ''));
    const unit = unitKey(match[2] ?? '');
    if (!Number.isFinite(value)) continue;
    const previous = bounds.get(unit);
    bounds.set(unit, previous === undefined ? value : pick(previous, value));
  }
  return bounds;
}

function captured(pattern: RegExp, lower: string): Set<string> {
  const found = new Set<string>();
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(lower)) !== null) found.add((match[1] ?? '').trim());
  return found;
}

function findContradictions(lower: string): string[] {
  const contradictions: string[] = [];
  if (BREVITY.test(lower) && DEPTH.test(lower)) {
    contradictions.push('it asks for a brief answer and for a detailed or exhaustive one');
  }
  if (FORMAL.test(lower) && CASUAL.test(lower)) {
    contradictions.push('it asks for both a formal and a casual tone');
  }

  const smallestMaximums = numericBounds(MAXIMUM, lower, Math.min);
  const largestMinimums = numericBounds(MINIMUM, lower, Math.max);
  for (const [unit, smallestMax] of smallestMaximums) {
    const largestMin = largestMinimums.get(unit);
    if (largestMin !== undefined && largestMin > smallestMax) {
      contradictions.push(`it asks for at most ${smallestMax} ${unit}s and at least ${largestMin} ${unit}s`);
    }
  }

  const always = captured(ALWAYS, lower);
  for (const action of captured(NEVER, lower)) {
    if (always.has(action)) contradictions.push(`it says both "always ${action}" and "never ${action}"`);
  }

  const wanted = new Set<string>();
  const unwanted = new Set<string>();
  INCLUDE_LIKE.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = INCLUDE_LIKE.exec(lower)) !== null) {
    const phrase = `${match[1] ?? ''} ${match[2] ?? ''}`;
    const before = lower.slice(Math.max(0, match.index - 12), match.index);
    (NEGATION_BEFORE.test(before) ? unwanted : wanted).add(phrase);
  }
  for (const phrase of unwanted) {
    if (wanted.has(phrase)) contradictions.push(`it says both "${phrase}" and "do not ${phrase}"`);
  }
  return contradictions.slice(0, MAX_LISTED_CONTRADICTIONS);
}

export function scoreClarity(signals: TextSignals, context: ContextFindings): ClarityResult {
  const { lower, wordCount } = signals;
  const structured = signals.headingCount >= 1 || signals.listItemCount >= 2 || signals.delimitedBlockCount >= 1 || signals.paragraphCount >= 2;
  const needsStructure = !structured && wordCount > UNSTRUCTURED_MAX_WORDS;

  const vague = summariseMatches(VAGUE_WORDS, lower, MAX_LISTED_WORDS);
  const ambiguity = summariseMatches(AMBIGUITY_MARKERS, lower, MAX_LISTED_WORDS);
  const longSentenceCount = signals.sentences.filter((sentence) => sentence.wordCount > LONG_SENTENCE_WORDS).length;
  const shouting =
    (signals.shoutedWordCount >= SHOUTING_MIN_WORDS && signals.shoutedWordCount >= SHOUTING_MIN_SHARE * wordCount) ||
    signals.shoutedWordCount >= SHOUTING_ALWAYS_WORDS;
  const contradictions = findContradictions(lower);

  let score = LENGTH_BASE.find(([minWords]) => wordCount >= minWords)?.[1] ?? 0;
  if (structured && wordCount >= STRUCTURE_BONUS_LONG_MIN_WORDS) score += STRUCTURE_BONUS_LONG;
  else if (structured && wordCount >= STRUCTURE_BONUS_SHORT_MIN_WORDS) score += STRUCTURE_BONUS_SHORT;
  if (needsStructure) score -= UNSTRUCTURED_PENALTY;
  score -= Math.min(VAGUE_WORD_MAX_PENALTY, vague.count * VAGUE_WORD_PENALTY);
  score -= Math.min(AMBIGUITY_MAX_PENALTY, ambiguity.count * AMBIGUITY_PENALTY);
  score -= Math.min(LONG_SENTENCE_MAX_PENALTY, longSentenceCount * LONG_SENTENCE_PENALTY);
  if (shouting) score -= SHOUTING_PENALTY;
  score -= Math.min(EXCLAMATION_MAX_PENALTY, signals.exclamationRunCount * EXCLAMATION_PENALTY);
  score -= Math.min(CONTRADICTION_MAX_PENALTY, contradictions.length * CONTRADICTION_PENALTY);
  if (context.danglingReference) score -= DANGLING_REFERENCE_PENALTY;

  return {
    score: clampScore(score),
    findings: {
      wordCount,
      structured,
      needsStructure,
      vagueWords: vague.distinct,
      ambiguityMarkers: ambiguity.distinct,
      longSentenceCount,
      shouting,
      exclamationRuns: signals.exclamationRunCount,
      contradictions,
      danglingReference: context.danglingReference,
    },
  };
}
