/**
 * How a score becomes a verdict. The thresholds are configurable per deployment; the defaults
 * are the product decision (pass >= 70, needs_revision 40-69, fail < 40).
 */
import { z } from 'zod';
import { PorchError } from '../errors.js';
import { formatZodError } from '../validation.js';
import type { JudgeReply, JudgeResult, JudgeVerdict } from './judge-schema.js';

export interface JudgeThresholds {
  /** Lowest score that passes. */
  readonly pass: number;
  /** Lowest score that needs revision rather than failing; at most `pass`. */
  readonly needsRevision: number;
}

export const DEFAULT_JUDGE_THRESHOLDS: JudgeThresholds = Object.freeze({ pass: 70, needsRevision: 40 });

export const judgeThresholdsSchema = z
  .object({
    pass: z.number().min(0).max(100).describe('Lowest score (0-100) that passes.'),
    needsRevision: z.number().min(0).max(100).describe('Lowest score (0-100) that needs revision instead of failing; at most `pass`.'),
  })
  .strict()
  .refine((thresholds) => thresholds.needsRevision <= thresholds.pass, {
    message: 'must not be greater than pass',
    path: ['needsRevision'],
  });

/** Validates thresholds (0 <= needsRevision <= pass <= 100), or throws VALIDATION_ERROR. */
export function parseJudgeThresholds(value: unknown): JudgeThresholds {
  const parsed = judgeThresholdsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new PorchError('VALIDATION_ERROR', `Invalid judge thresholds: ${formatZodError(parsed.error, { whole: 'thresholds' })}.`);
}

/**
 * The verdict for a score. Fractional scores are compared as they are (69.5 does not pass at 70):
 * rounding would move scores across a threshold the operator chose.
 */
export function verdictForScore(score: number, thresholds: JudgeThresholds = DEFAULT_JUDGE_THRESHOLDS): JudgeVerdict {
  const { pass, needsRevision } = parseJudgeThresholds(thresholds);
  if (!Number.isFinite(score) || score < 0 || score > 100) {
    // Scores are validated before they get here; reaching this is a bug, not a caller's mistake.
    throw new PorchError('INTERNAL_ERROR', 'A judge score must be a number from 0 to 100.');
  }
  if (score >= pass) return 'pass';
  if (score >= needsRevision) return 'needs_revision';
  return 'fail';
}

export function toJudgeResult(reply: JudgeReply, thresholds: JudgeThresholds = DEFAULT_JUDGE_THRESHOLDS): JudgeResult {
  return {
    verdict: verdictForScore(reply.score, thresholds),
    score: reply.score,
    reasoning: reply.reasoning,
    suggestions: reply.suggestions,
  };
}
