/**
 * Token counting with OpenAI's o200k_base encoding (the one gpt-4o, gpt-4.1 and later use).
 * Credits are reserved from these estimates and the echo provider reports them as its usage,
 * so they come from the real tokenizer, not a characters-per-token rule of thumb, for texts
 * short enough to encode quickly; longer ones get an upper bound (estimateTextTokens).
 */
import { createRequire } from 'node:module';

type CountTokens = typeof import('gpt-tokenizer/encoding/o200k_base').countTokens;

/**
 * The o200k tables take a few hundred milliseconds to load, so they load on the first count
 * (synchronously, through the package's CommonJS build) rather than when the server starts.
 */
let loadedCounter: CountTokens | undefined;
function countO200kTokens(...args: Parameters<CountTokens>): number {
  loadedCounter ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens }).countTokens;
  return loadedCounter(...args);
}

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/**
 * Treat text that looks like a special token ("<|endoftext|>") as ordinary text. The library's
 * default throws on it, and user prompts may legitimately contain such strings; the upstream
 * API counts them as plain text too.
 */
const PLAIN_TEXT_ONLY = { disallowedSpecial: new Set<string>() };

/**
 * OpenAI's documented chat overhead for gpt-4o-era models: every message costs 3 tokens of
 * framing (<|start|>role<|message|>...<|end|>, the role itself counted separately), and every
 * reply is primed with 3 more (<|start|>assistant<|message|>). See the OpenAI cookbook,
 * "How to count tokens with tiktoken".
 */
export const TOKENS_PER_MESSAGE = 3;
export const REPLY_PRIMING_TOKENS = 3;

/**
 * The library's byte-pair merge is quadratic in the length of one pre-tokenised chunk, and a
 * chunk is a run of letters, of punctuation or of whitespace with no natural boundary inside.
 * Such a run of 100 KB takes seconds to a minute, prose of the same size milliseconds (figures in
 * bench/RESULTS-NOTES.md). Runs longer than this are counted in pieces of this many code
 * points. Natural words are far shorter (the longest common ones are well under 64 letters), so
 * ordinary text is counted exactly; only such runs can differ, by a token or so per piece.
 */
export const MAX_RUN_CODE_POINTS = 256;

/**
 * Runs of one chunk class too long to merge quickly: letters, punctuation/symbols, whitespace,
 * and the line breaks and slashes that o200k lets trail a punctuation chunk (`[\r\n/]*`), which
 * mix two of the other classes, so "/\n" repeated is one chunk that none of them would split.
 */
const LONG_RUN = new RegExp(
  `[\\p{L}\\p{M}]{${MAX_RUN_CODE_POINTS + 1},}|[^\\s\\p{L}\\p{N}]{${MAX_RUN_CODE_POINTS + 1},}|\\s{${MAX_RUN_CODE_POINTS + 1},}|[\\r\\n/]{${MAX_RUN_CODE_POINTS + 1},}`,
  'gu',
);

const RUN_PIECE = new RegExp(`[\\s\\S]{1,${MAX_RUN_CODE_POINTS}}`, 'gu');

/**
 * Counts of recent texts. One call counts the same text up to three times (the reservation's
 * estimate, then the echo provider's usage of the same prompt and of its answer), and a workflow
 * feeds each node's answer into the next node's prompt. A count is a pure function of the text,
 * so a remembered one is always right; the map is bounded, oldest entry out first.
 */
const recentCounts = new Map<string, number>();
const RECENT_COUNTS_MAX = 256;
/** Shorter texts cost less to count than to look up. */
const RECENT_COUNT_MIN_CHARS = 32;

/** Tokens of a piece of text, as the model would count them. */
export function countTextTokens(text: string): number {
  if (text.length < RECENT_COUNT_MIN_CHARS) return countUncached(text);
  const known = recentCounts.get(text);
  if (known !== undefined) return known;
  const counted = countUncached(text);
  if (recentCounts.size >= RECENT_COUNTS_MAX) recentCounts.delete(recentCounts.keys().next().value ?? '');
  recentCounts.set(text, counted);
  return counted;
}

function countUncached(text: string): number {
  if (text.length <= MAX_RUN_CODE_POINTS) return countO200kTokens(text, PLAIN_TEXT_ONLY);
  let total = 0;
  let plainStart = 0;
  // Fresh regex state per call: the pattern objects are shared, so use matchAll (which clones).
  for (const run of text.matchAll(LONG_RUN)) {
    const runStart = run.index;
    if (runStart > plainStart) {
      total += countO200kTokens(text.slice(plainStart, runStart), PLAIN_TEXT_ONLY);
    }
    for (const piece of run[0].matchAll(RUN_PIECE)) {
      total += countO200kTokens(piece[0], PLAIN_TEXT_ONLY);
    }
    plainStart = runStart + run[0].length;
  }
  if (plainStart < text.length) {
    total += countO200kTokens(text.slice(plainStart), PLAIN_TEXT_ONLY);
  }
  return total;
}

/**
 * Most characters one estimate runs through the encoder. Even split into runs, encoding costs
 * up to a few microseconds a character for some scripts, and it runs on the event loop: a
 * request's estimate must not hold it for long (the figures are in bench/RESULTS-NOTES.md).
 * Longer texts are estimated by their UTF-8 length instead.
 */
export const EXACT_COUNT_MAX_CHARS = 8_192;

/**
 * A byte-level BPE token is at least one byte, so no text has more tokens than UTF-8 bytes:
 * an upper bound that costs one native pass, never an undercount for any such model.
 */
export function tokenUpperBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Tokens of a text a caller sent: exact up to EXACT_COUNT_MAX_CHARS, an upper bound beyond.
 * Used for reservations and for the usage a provider does not report, where an overcount only
 * holds credits back for the length of one call and an undercount could let calls overdraw.
 */
export function estimateTextTokens(text: string): number {
  return text.length > EXACT_COUNT_MAX_CHARS ? tokenUpperBound(text) : countTextTokens(text);
}

/**
 * Prompt tokens of a chat request: the content and role of every message plus OpenAI's fixed
 * per-message and reply-priming overhead. Matches what the upstream reports as prompt_tokens for
 * plain text messages up to EXACT_COUNT_MAX_CHARS in all; longer prompts get an upper bound
 * (the same budget for the whole request, however it is split into messages).
 */
export function estimateChatTokens(messages: readonly ChatMessage[]): number {
  let characters = 0;
  for (const message of messages) characters += message.role.length + message.content.length;
  const count = characters > EXACT_COUNT_MAX_CHARS ? tokenUpperBound : countTextTokens;
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + count(message.role) + count(message.content);
  }
  return total;
}
