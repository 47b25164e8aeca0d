import { describe, expect, it } from 'vitest';
import { analyzePrompt } from '../../../src/core/analyzer/index.js';
import { judgeResultSchema, judgeWithAnalyzer } from '../../../src/core/judge/index.js';
import { DECENT_PROMPT, ONE_WORD_PROMPT, STRONG_PROMPT } from '../analyzer/sample-prompts.js';

const SITE_URL = 'http://127.0.0.1:3000';

describe('judgeWithAnalyzer (offline fallback)', () => {
  it("scores with the analyzer's overall score and says plainly that no AI model was used", () => {
    const result = judgeWithAnalyzer({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    const analysis = analyzePrompt({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    expect(result.score).toBe(analysis.overall);
    expect(result.suggestions).toEqual(analysis.suggestions);
    expect(result.reasoning).toContain("Scored by Porch's deterministic analyzer rubric");
    expect(result.reasoning).toContain('no AI model is configured');
    expect(judgeResultSchema.parse(result)).toEqual(result);
  });

  it('names the strongest and weakest dimensions with their scores', () => {
    const result = judgeWithAnalyzer({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    const { scores } = analyzePrompt({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    expect(result.reasoning).toContain(`Strongest: task (${scores.task})`);
    expect(result.reasoning).toMatch(/Weakest: (role|context) \(0\)/);
  });

  it('derives the verdict from the thresholds: a strong prompt passes, a one-word prompt fails', () => {
    expect(judgeWithAnalyzer({ prompt: STRONG_PROMPT }, { siteUrl: SITE_URL }).verdict).toBe('pass');
    expect(judgeWithAnalyzer({ prompt: ONE_WORD_PROMPT }, { siteUrl: SITE_URL }).verdict).toBe('fail');
    const decent = judgeWithAnalyzer({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    expect(decent.verdict).toBe('needs_revision');
    const lenient = judgeWithAnalyzer({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL, thresholds: { pass: decent.score, needsRevision: 0 } });
    expect(lenient.verdict).toBe('pass');
  });

  it('says the criteria were not model-evaluated, and uses them to sharpen the suggestions', () => {
    const criteria = 'Must produce JSON our shop can import.';
    const withCriteria = judgeWithAnalyzer({ prompt: DECENT_PROMPT, criteria }, { siteUrl: SITE_URL });
    const without = judgeWithAnalyzer({ prompt: DECENT_PROMPT }, { siteUrl: SITE_URL });
    expect(withCriteria.reasoning).toContain('The criteria were not evaluated by a model');
    expect(without.reasoning).not.toContain('criteria');
    expect(withCriteria.suggestions.some((suggestion) => suggestion.includes('JSON output'))).toBe(true);
    expect(withCriteria.score).toBe(without.score);
  });

  it('is deterministic', () => {
    const input = { prompt: STRONG_PROMPT, criteria: 'friendly tone' };
    expect(judgeWithAnalyzer(input, { siteUrl: SITE_URL })).toEqual(judgeWithAnalyzer(input, { siteUrl: SITE_URL }));
  });
});
