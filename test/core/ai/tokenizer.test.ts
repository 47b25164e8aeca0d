import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';

import {
  EXACT_COUNT_MAX_CHARS,
  MAX_RUN_CODE_POINTS,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  countTextTokens,
  estimateChatTokens,
  estimateTextTokens,
} from '../../../src/core/ai/tokenizer.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

/**
 * Inputs that make an unbounded byte-pair merge quadratic (measured with the bare library: 10-80 s
 * each at 100 KB). A linear count takes tens of milliseconds; the bound only has to catch the
 * quadratic case with room for a slow CI machine.
 */
const SLOW_PATH_BOUND_MS = 2_000;
const HUNDRED_KB = 100_000;

describe('token counting', () => {
  it('matches the o200k_base tokenizer exactly on ordinary text', () => {
    const prose = 'Porch orchestrates prompts: personas, compositions and skills.\n\n'.repeat(200);
    expect(countTextTokens(prose)).toBe(countTokens(prose, PLAIN));
    expect(countTextTokens('Hello, world!')).toBe(4);
    expect(countTextTokens('')).toBe(0);
  });

  it('matches the tokenizer exactly for any text without runs longer than the bound', () => {
    const word = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
    const separator = fc.constantFrom(' ', '\n', ', ', '. ', '\t', '  ');
    const text = fc.array(fc.tuple(word, separator), { maxLength: 120 }).map((parts) => parts.map(([w, s]) => w + s).join(''));
    fc.assert(
      fc.property(text, (value) => countTextTokens(value) === countTokens(value, PLAIN)),
      { numRuns: 200 },
    );
  });

  it('counts text that looks like special tokens as plain text instead of throwing', () => {
    const text = 'Say <|endoftext|> and <|im_start|> literally.';
    expect(countTextTokens(text)).toBe(countTokens(text, PLAIN));
    expect(countTextTokens(text)).toBeGreaterThan(10);
  });

  it('adds the documented per-message and reply-priming overhead', () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello, world!' },
    ];
    const expected = REPLY_PRIMING_TOKENS + 2 * TOKENS_PER_MESSAGE + 1 + countTokens('Be brief.', PLAIN) + 1 + countTokens('Hello, world!', PLAIN);
    expect(estimateChatTokens(messages)).toBe(expected);
    expect(estimateChatTokens([])).toBe(REPLY_PRIMING_TOKENS);
  });

  const pathological: [string, string][] = [
    ['one repeated letter', 'a'.repeat(HUNDRED_KB)],
    ['spaces', ' '.repeat(HUNDRED_KB)],
    ['newlines', '\n'.repeat(HUNDRED_KB)],
    ['punctuation', '.'.repeat(HUNDRED_KB)],
    ['CJK without punctuation', '中文字符'.repeat(HUNDRED_KB / 4)],
    ['emoji', '😀'.repeat(HUNDRED_KB / 2)],
    // o200k lets line breaks and slashes trail a punctuation chunk, so this is one 100 KB chunk.
    ['slashes between line breaks', '/\n'.repeat(HUNDRED_KB / 2)],
    ['runs just under the bound', `${'a'.repeat(MAX_RUN_CODE_POINTS)} `.repeat(HUNDRED_KB / (MAX_RUN_CODE_POINTS + 1))],
    ['prose', 'The quick brown fox jumps over the lazy dog. '.repeat(HUNDRED_KB / 45)],
  ];
  for (const [name, text] of pathological) {
    it(`counts 100 KB of ${name} in linear time`, () => {
      const started = performance.now();
      const tokens = countTextTokens(text);
      const elapsedMs = performance.now() - started;
      expect(tokens).toBeGreaterThan(0);
      expect(elapsedMs, `${name}: ${elapsedMs.toFixed(0)} ms`).toBeLessThan(SLOW_PATH_BOUND_MS);
    });
  }

  it('stays close to the exact count when long runs are split', () => {
    // Small enough for the bare library to count exactly in reasonable time.
    const text = `intro ${'b'.repeat(2_000)} middle ${'!'.repeat(1_500)} outro`;
    const exact = countTokens(text, PLAIN);
    const split = countTextTokens(text);
    expect(Math.abs(split - exact)).toBeLessThanOrEqual(Math.ceil(3_500 / MAX_RUN_CODE_POINTS) + 2);
  });

  it('counts runs of line breaks and slashes exactly while they are short', () => {
    const text = `intro.${'/\n'.repeat(100)} outro`;
    expect(countTextTokens(text)).toBe(countTokens(text, PLAIN));
  });
});

describe('estimates of caller text: bounded work, never an undercount', () => {
  const long = 'Grüße, 世界! The quick brown fox. '.repeat(Math.ceil((EXACT_COUNT_MAX_CHARS + 1) / 30));

  it('counts a text up to EXACT_COUNT_MAX_CHARS exactly', () => {
    const text = long.slice(0, EXACT_COUNT_MAX_CHARS);
    expect(estimateTextTokens(text)).toBe(countTextTokens(text));
  });

  it('estimates a longer text by its UTF-8 bytes, which is at least its exact count', () => {
    expect(estimateTextTokens(long)).toBe(Buffer.byteLength(long, 'utf8'));
    expect(estimateTextTokens(long)).toBeGreaterThanOrEqual(countTokens(long, PLAIN));
  });

  it('bounds a whole chat request, however its text is split into messages', () => {
    const half = long.slice(0, EXACT_COUNT_MAX_CHARS / 2 + 10);
    const messages = [
      { role: 'system' as const, content: half },
      { role: 'user' as const, content: half },
    ];
    const exact = REPLY_PRIMING_TOKENS + 2 * TOKENS_PER_MESSAGE + 2 + 2 * countTokens(half, PLAIN);
    const estimate = estimateChatTokens(messages);
    expect(estimate).toBe(
      REPLY_PRIMING_TOKENS + 2 * TOKENS_PER_MESSAGE + Buffer.byteLength('system') + Buffer.byteLength('user') + 2 * Buffer.byteLength(half),
    );
    expect(estimate).toBeGreaterThanOrEqual(exact);
  });
});
