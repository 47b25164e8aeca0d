import { describe, expect, it } from 'vitest';
import {
  REFINE_GOAL_MAX_CODE_POINTS,
  REFINE_PROMPT_MAX_CODE_POINTS,
  REFINE_PROMPT_MAX_ENCODED_BYTES,
  REFINE_SHORTENED_FROM_PARAMETER,
  analyzePrompt,
  buildRefineUrl,
  truncateToCodePoints,
} from '../../../src/core/analyzer/index.js';

function promptInLink(url: string): string {
  const parsed = new URL(url);
  return parsed.searchParams.get('prompt') ?? '';
}

/** The prompt parameter as the link writes it, still percent-encoded. */
function encodedPromptInLink(url: string): string {
  return /[?&]prompt=([^&]*)/.exec(url)?.[1] ?? '';
}

describe('refine link', () => {
  it('is {site_url}/refine?prompt=<encodeURIComponent(prompt)>', () => {
    const prompt = 'Write a haiku about rain & wind: 5/7/5? 100% yes #poetry';
    const analysis = analyzePrompt({ prompt }, { siteUrl: 'https://porch.example.com' });
    expect(analysis.refine_url).toBe(`https://porch.example.com/refine?prompt=${encodeURIComponent(prompt)}`);
    expect(promptInLink(analysis.refine_url)).toBe(prompt);
  });

  it('carries the goal, when there is one, so the page shows the same suggestions (regression: dropped)', () => {
    const analysis = analyzePrompt({ prompt: 'List the invoice fields', goal: 'extract invoice fields as JSON & CSV' }, { siteUrl: 'https://p.example' });
    const link = new URL(analysis.refine_url);
    expect(link.searchParams.get('prompt')).toBe('List the invoice fields');
    expect(link.searchParams.get('goal')).toBe('extract invoice fields as JSON & CSV');
    expect(buildRefineUrl('http://h', 'p', '  ')).toBe('http://h/refine?prompt=p');
    expect(new URL(buildRefineUrl('http://h', 'p', 'g'.repeat(REFINE_GOAL_MAX_CODE_POINTS + 1))).searchParams.get('goal')).toHaveLength(
      REFINE_GOAL_MAX_CODE_POINTS,
    );
  });

  it('does not double the slash when the site URL ends with one', () => {
    expect(buildRefineUrl('http://127.0.0.1:3000/', 'hi')).toBe('http://127.0.0.1:3000/refine?prompt=hi');
  });

  it(`keeps the first ${REFINE_PROMPT_MAX_CODE_POINTS} characters of a long prompt`, () => {
    const prompt = 'x'.repeat(REFINE_PROMPT_MAX_CODE_POINTS + 500);
    const carried = promptInLink(buildRefineUrl('http://h', prompt));
    expect(carried).toBe('x'.repeat(REFINE_PROMPT_MAX_CODE_POINTS));
  });

  it('says that it carries only part of the prompt, and the whole prompt’s length in characters, whichever bound cut it (regression: said nothing)', () => {
    const shortenedFrom = (url: string) => new URL(url).searchParams.get(REFINE_SHORTENED_FROM_PARAMETER);
    expect(shortenedFrom(buildRefineUrl('http://h', 'x'.repeat(REFINE_PROMPT_MAX_CODE_POINTS + 500), 'a goal'))).toBe(
      String(REFINE_PROMPT_MAX_CODE_POINTS + 500),
    );
    expect(shortenedFrom(buildRefineUrl('http://h', '🙂'.repeat(REFINE_PROMPT_MAX_CODE_POINTS)))).toBe(String(REFINE_PROMPT_MAX_CODE_POINTS));
    expect(shortenedFrom(buildRefineUrl('http://h', '次'.repeat(1_000)))).toBe('1000');
    for (const whole of ['x'.repeat(REFINE_PROMPT_MAX_CODE_POINTS), '&'.repeat(REFINE_PROMPT_MAX_CODE_POINTS), 'a\uD800b'])
      expect(shortenedFrom(buildRefineUrl('http://h', whole, 'a goal'))).toBeNull();
  });

  it('cuts a long emoji prompt on a code-point boundary, never inside a surrogate pair', () => {
    const prompt = '🙂'.repeat(REFINE_PROMPT_MAX_CODE_POINTS + 1);
    const url = buildRefineUrl('http://h', prompt);
    const carried = promptInLink(url);
    // Twelve bytes each once encoded: the byte limit cuts first.
    expect(carried).toBe('🙂'.repeat(REFINE_PROMPT_MAX_ENCODED_BYTES / 12));
    expect(decodeURIComponent(encodedPromptInLink(url))).toBe(carried);
  });

  it(`keeps every ASCII prompt of up to ${REFINE_PROMPT_MAX_CODE_POINTS} characters whole, even one made only of characters encoded in three bytes`, () => {
    const prompt = '&'.repeat(REFINE_PROMPT_MAX_CODE_POINTS);
    expect(promptInLink(buildRefineUrl('http://h', prompt))).toBe(prompt);
  });

  it(`cuts a prompt in a non-Latin script at ${REFINE_PROMPT_MAX_ENCODED_BYTES} encoded bytes, so the link fits in the request headers a server accepts`, () => {
    const prompt = '次の文章を要約してください。'.repeat(200);
    const url = buildRefineUrl('http://h', prompt);
    const encoded = encodedPromptInLink(url);
    expect(encoded.length).toBeLessThanOrEqual(REFINE_PROMPT_MAX_ENCODED_BYTES);
    expect(encoded.length).toBeGreaterThan(REFINE_PROMPT_MAX_ENCODED_BYTES - 9);
    expect(prompt.startsWith(promptInLink(url))).toBe(true);
  });

  it('replaces lone surrogates (which encodeURIComponent rejects) with U+FFFD', () => {
    const url = buildRefineUrl('http://h', 'a\uD800b\uDC00c');
    expect(promptInLink(url)).toBe('a\uFFFDb\uFFFDc');
  });

  it('leaves a prompt of exactly the limit untouched', () => {
    const prompt = `${'é'.repeat(REFINE_PROMPT_MAX_CODE_POINTS - 1)}🙂`;
    expect(truncateToCodePoints(prompt, REFINE_PROMPT_MAX_CODE_POINTS)).toBe(prompt);
  });
});
