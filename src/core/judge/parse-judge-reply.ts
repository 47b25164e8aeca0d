/**
 * Reads a model's judge reply. Models with structured output reply with exact JSON; others
 * wrap it in fences or prose, leave a trailing comma, or break a line inside a string. Those are
 * repaired. Nothing else is:
 *
 * - A score given as a numeric string ("82") becomes the number; any other string ("82/100",
 *   "high") is invalid, and an empty string is never read as 0 (no coercion).
 * - A score outside 0-100 is invalid, never clamped: 150 or -5 means the model misread the scale,
 *   and clamping would turn that misreading into a confident 100 or 0. Invalid means the judge
 *   retries, then fails; a score is never invented.
 * - Keys other than reasoning, score and suggestions are dropped (a stray "verdict": "pass" has
 *   no effect: the verdict always comes from the score).
 * - Several JSON objects that disagree (an example object and the real one, say) are ambiguous
 *   and invalid; several copies of the same verdict are fine. An object written like a verdict
 *   (reasoning and score keys) that cannot be read counts as a disagreeing verdict: the readable
 *   one beside it may be an example, or text the judged prompt planted, while the model's own
 *   verdict is the broken one.
 * Failure messages describe the problem without quoting the reply, so they are safe to log.
 */
import type { JudgeReply } from './judge-schema.js';
import { judgeReplySchema } from './judge-schema.js';
import { formatZodError, isRecord } from '../validation.js';

export type JudgeReplyRepair = 'code_fence' | 'surrounding_text' | 'trailing_comma' | 'control_characters' | 'numeric_string_score';

export type JudgeReplyFailureKind = 'empty' | 'no_json_object' | 'invalid_json' | 'schema_mismatch' | 'ambiguous';

export interface JudgeReplyFailure {
  readonly kind: JudgeReplyFailureKind;
  /** What was wrong, without any of the reply's text. */
  readonly message: string;
}

export type JudgeReplyParseResult =
  | { readonly ok: true; readonly reply: JudgeReply; readonly repairs: readonly JudgeReplyRepair[] }
  | { readonly ok: false; readonly failure: JudgeReplyFailure };

/** A reply with more candidate objects than this is not a verdict; stop looking. */
const MAX_CANDIDATES = 10;
const NUMERIC_STRING = /^-?\d+(?:\.\d+)?$/;
/** The info string and line break after a fence's opening backticks ("json\n"). */
const FENCE_INFO = /^[\w-]*[ \t]*\r?\n?/;
const FENCE = '```';

interface Candidate {
  readonly source: string;
  readonly repairs: readonly JudgeReplyRepair[];
}

/** Top-level balanced `{...}` spans, skipping braces inside JSON strings. */
function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length && spans.length < MAX_CANDIDATES; index += 1) {
    const char = text[index];
    if (depth > 0 && inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === '{') {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) spans.push(text.slice(start, index + 1));
    }
  }
  return spans;
}

const CONTROL_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The JSON text with the two slips models make that change nothing of the meaning mended: commas
 * directly before `}` or `]` (outside strings) removed, and line breaks and tabs written raw
 * inside strings escaped. Also says which of the two it mended.
 */
function mendJsonText(source: string): { text: string; repairs: JudgeReplyRepair[] } {
  let output = '';
  let inString = false;
  let escaped = false;
  let trailingComma = false;
  let controlCharacter = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index] ?? '';
    if (inString) {
      const controlEscape = CONTROL_ESCAPES[char];
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      else if (controlEscape !== undefined) {
        output += controlEscape;
        controlCharacter = true;
        continue;
      }
      output += char;
      continue;
    }
    if (char === '"') inString = true;
    if (char === ',') {
      let next = index + 1;
      while (next < source.length && /\s/.test(source[next] ?? '')) next += 1;
      if (source[next] === '}' || source[next] === ']') {
        trailingComma = true;
        continue;
      }
    }
    output += char;
  }
  const repairs: JudgeReplyRepair[] = [];
  if (trailingComma) repairs.push('trailing_comma');
  if (controlCharacter) repairs.push('control_characters');
  return { text: output, repairs };
}

/**
 * The ```-fenced blocks of a reply: each runs from an opening fence to the next fence. Found with
 * indexOf rather than one regex: a pattern with a lazy body after the info string's whitespace
 * takes quadratic time on a long run of blanks after an unclosed fence.
 */
function fencedBlocks(text: string): Array<{ start: number; end: number; body: string }> {
  const blocks: Array<{ start: number; end: number; body: string }> = [];
  for (let start = text.indexOf(FENCE); start !== -1; ) {
    const close = text.indexOf(FENCE, start + FENCE.length);
    if (close === -1) break;
    const inside = text.slice(start + FENCE.length, close);
    const end = close + FENCE.length;
    blocks.push({ start, end, body: inside.slice(FENCE_INFO.exec(inside)?.[0].length ?? 0) });
    start = text.indexOf(FENCE, end);
  }
  return blocks;
}

function collectCandidates(text: string): Candidate[] {
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  const add = (source: string, repairs: readonly JudgeReplyRepair[]): void => {
    if (seen.has(source) || candidates.length >= MAX_CANDIDATES) return;
    seen.add(source);
    candidates.push({ source, repairs });
  };

  for (const fence of fencedBlocks(text)) {
    for (const object of balancedObjects(fence.body)) {
      const outsideFence = text.slice(0, fence.start).trim() + text.slice(fence.end).trim();
      add(object, outsideFence.length > 0 ? ['code_fence', 'surrounding_text'] : ['code_fence']);
    }
  }
  for (const object of balancedObjects(text)) add(object, object === text ? [] : ['surrounding_text']);
  return candidates;
}

type Attempt =
  | { readonly ok: true; readonly reply: JudgeReply; readonly repairs: readonly JudgeReplyRepair[] }
  | { readonly ok: false; readonly failure: JudgeReplyFailure };

function parseJson(source: string): { value: unknown; repairs: readonly JudgeReplyRepair[] } | undefined {
  try {
    return { value: JSON.parse(source) as unknown, repairs: [] };
  } catch {
    // Fall through to the repairs allowed on the JSON text itself.
  }
  const mended = mendJsonText(source);
  if (mended.repairs.length === 0) return undefined;
  try {
    return { value: JSON.parse(mended.text) as unknown, repairs: mended.repairs };
  } catch {
    return undefined;
  }
}

function tryCandidate(candidate: Candidate): Attempt {
  const parsed = parseJson(candidate.source);
  if (parsed === undefined) {
    return { ok: false, failure: { kind: 'invalid_json', message: 'the reply contains no valid JSON object, even after repairs' } };
  }
  const repairs: JudgeReplyRepair[] = [...candidate.repairs, ...parsed.repairs];
  if (!isRecord(parsed.value)) {
    return { ok: false, failure: { kind: 'schema_mismatch', message: 'the reply is JSON but not an object' } };
  }

  const value: Record<string, unknown> = { ...parsed.value };
  if (typeof value.score === 'string' && NUMERIC_STRING.test(value.score.trim())) {
    value.score = Number(value.score.trim());
    repairs.push('numeric_string_score');
  }
  const validated = judgeReplySchema.safeParse(value);
  if (!validated.success) {
    const problems = formatZodError(validated.error, { whole: 'reply' });
    return { ok: false, failure: { kind: 'schema_mismatch', message: `the reply does not match the verdict schema (${problems})` } };
  }
  const suggestions = validated.data.suggestions.map((suggestion) => suggestion.trim()).filter((suggestion) => suggestion.length > 0);
  return {
    ok: true,
    reply: { reasoning: validated.data.reasoning.trim(), score: validated.data.score, suggestions },
    repairs,
  };
}

/**
 * Whether an object that could not be read is written like a verdict: a `reasoning` key with a
 * string value and a `score` key, as the model's own verdict is. Placeholders (`{{score}}`), the
 * schema quoted back (`"reasoning": string`), a summary such as `{"score": 72}`, and stray braces
 * around a readable verdict (the span contains it) are not.
 */
function isUnreadableVerdict(source: string, readable: readonly string[]): boolean {
  return /\breasoning["']?\s*:\s*["']/i.test(source) && /\bscore["']?\s*:/i.test(source) && !readable.some((verdict) => source.includes(verdict));
}

const FAILURE_PREFERENCE: readonly JudgeReplyFailureKind[] = ['schema_mismatch', 'invalid_json'];

export function parseJudgeReply(text: string): JudgeReplyParseResult {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed.length === 0) {
    return { ok: false, failure: { kind: 'empty', message: 'the reply is empty' } };
  }
  const candidates = collectCandidates(trimmed);
  if (candidates.length === 0) {
    return { ok: false, failure: { kind: 'no_json_object', message: 'the reply contains no complete JSON object' } };
  }

  const successes: Array<Extract<Attempt, { ok: true }>> = [];
  const readable: string[] = [];
  const failed: Array<{ source: string; failure: JudgeReplyFailure }> = [];
  for (const candidate of candidates) {
    const attempt = tryCandidate(candidate);
    if (attempt.ok) {
      successes.push(attempt);
      readable.push(candidate.source);
    } else failed.push({ source: candidate.source, failure: attempt.failure });
  }

  const first = successes[0];
  if (first !== undefined) {
    const unreadableVerdicts = failed.filter(({ source }) => isUnreadableVerdict(source, readable)).length;
    const distinct = new Set(successes.map((success) => JSON.stringify(success.reply)));
    if (distinct.size + unreadableVerdicts > 1) {
      const unreadable = unreadableVerdicts > 0 ? `, ${unreadableVerdicts} of them unreadable` : '';
      return { ok: false, failure: { kind: 'ambiguous', message: `the reply contains ${distinct.size + unreadableVerdicts} different verdicts${unreadable}` } };
    }
    return first;
  }
  for (const kind of FAILURE_PREFERENCE) {
    const failure = failed.find((candidate) => candidate.failure.kind === kind)?.failure;
    if (failure !== undefined) return { ok: false, failure };
  }
  return { ok: false, failure: { kind: 'invalid_json', message: 'the reply contains no valid JSON object' } };
}
