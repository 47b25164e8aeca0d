import { describe, expect, it } from 'vitest';
import { PorchError } from '../../../src/core/errors.js';
import { DEFAULT_JUDGE_THRESHOLDS, judgeResultSchema, parseJudgeThresholds, toJudgeResult, verdictForScore } from '../../../src/core/judge/index.js';
import { z } from 'zod';

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('verdictForScore', () => {
  it.each([
    [100, 'pass'],
    [70, 'pass'],
    [69.99, 'needs_revision'],
    [40, 'needs_revision'],
    [39.5, 'fail'],
    [0, 'fail'],
  ] as const)('gives %s the verdict %s with the default thresholds', (score, verdict) => {
    expect(verdictForScore(score)).toBe(verdict);
    expect(verdictForScore(score, DEFAULT_JUDGE_THRESHOLDS)).toBe(verdict);
  });

  it('follows configured thresholds', () => {
    const strict = { pass: 85, needsRevision: 60 };
    expect(verdictForScore(84, strict)).toBe('needs_revision');
    expect(verdictForScore(85, strict)).toBe('pass');
    expect(verdictForScore(59, strict)).toBe('fail');
  });

  it('allows equal thresholds, leaving no needs_revision band', () => {
    const binary = { pass: 50, needsRevision: 50 };
    expect(verdictForScore(50, binary)).toBe('pass');
    expect(verdictForScore(49, binary)).toBe('fail');
  });

  it('refuses a score outside 0-100 instead of guessing a verdict', () => {
    for (const score of [-1, 101, Number.NaN, Number.POSITIVE_INFINITY]) {
      const err = thrownBy(() => verdictForScore(score));
      expect(err).toBeInstanceOf(PorchError);
    }
  });
});

describe('parseJudgeThresholds', () => {
  it('accepts 0 <= needsRevision <= pass <= 100', () => {
    expect(parseJudgeThresholds({ pass: 70, needsRevision: 40 })).toEqual({ pass: 70, needsRevision: 40 });
    expect(parseJudgeThresholds({ pass: 100, needsRevision: 0 })).toEqual({ pass: 100, needsRevision: 0 });
    expect(parseJudgeThresholds({ pass: 0, needsRevision: 0 })).toEqual({ pass: 0, needsRevision: 0 });
  });

  it.each([
    ['needsRevision above pass', { pass: 40, needsRevision: 70 }, 'needsRevision'],
    ['pass above 100', { pass: 101, needsRevision: 40 }, 'pass'],
    ['a negative needsRevision', { pass: 70, needsRevision: -1 }, 'needsRevision'],
    ['a missing pass', { needsRevision: 40 }, 'pass'],
    ['a string', { pass: '70', needsRevision: 40 }, 'pass'],
    ['an unknown key', { pass: 70, needsRevision: 40, fail: 10 }, 'thresholds'],
    ['not an object', 70, 'thresholds'],
  ])('rejects %s with VALIDATION_ERROR naming the field', (_name, value, field) => {
    const err = thrownBy(() => parseJudgeThresholds(value));
    expect(err).toBeInstanceOf(PorchError);
    expect((err as PorchError).code).toBe('VALIDATION_ERROR');
    expect((err as PorchError).message).toContain(field);
  });

  it('is applied by verdictForScore, so bad thresholds never produce a verdict', () => {
    const err = thrownBy(() => verdictForScore(50, { pass: 30, needsRevision: 60 }));
    expect((err as PorchError).code).toBe('VALIDATION_ERROR');
  });
});

describe('judgeResultSchema', () => {
  it('accepts a result built from a reply and describes every field', () => {
    const result = toJudgeResult({ reasoning: 'Solid.', score: 75, suggestions: [] });
    expect(judgeResultSchema.parse(result)).toEqual({ verdict: 'pass', score: 75, reasoning: 'Solid.', suggestions: [] });
    const jsonSchema = z.toJSONSchema(judgeResultSchema) as { properties: Record<string, { description?: string }> };
    for (const [name, property] of Object.entries(jsonSchema.properties)) expect(property.description, name).toBeTruthy();
    expect(Object.keys(jsonSchema.properties).sort()).toEqual(['reasoning', 'score', 'suggestions', 'verdict']);
  });
});
