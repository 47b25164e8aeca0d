/**
 * The judge without a model. When the model is the offline echo provider (the only one
 * configured, or the one asked for), a model-graded verdict is impossible, so the judge answers
 * from Porch's deterministic analyzer and says so:
 * the score is the analyzer's overall score, the verdict follows the same thresholds, and the
 * reasoning names the weakest and strongest dimensions.
 */
import { analyzePrompt } from '../analyzer/analyze-prompt.js';
import type { Dimension } from '../analyzer/rubric.js';
import { DIMENSIONS, DIMENSION_WEIGHTS } from '../analyzer/rubric.js';
import type { JudgeRequestInput } from './build-judge-request.js';
import type { JudgeResult } from './judge-schema.js';
import type { JudgeThresholds } from './thresholds.js';
import { DEFAULT_JUDGE_THRESHOLDS, parseJudgeThresholds, verdictForScore } from './thresholds.js';

/** Why no model grades: the server has none but echo, or the request's model is echo. */
export type AnalyzerJudgeReason = 'no_model_configured' | 'echo_model_selected';

export interface JudgeWithAnalyzerOptions {
  /** Public origin, used for the analyzer's refine link. */
  readonly siteUrl: string;
  readonly thresholds?: JudgeThresholds | undefined;
  /** Default `no_model_configured`. */
  readonly reason?: AnalyzerJudgeReason | undefined;
}

const REASON_SENTENCES: Readonly<Record<AnalyzerJudgeReason, string>> = {
  no_model_configured: "Scored by Porch's deterministic analyzer rubric, because no AI model is configured on this server (only the offline echo provider).",
  echo_model_selected: "Scored by Porch's deterministic analyzer rubric, because the model for this request is the offline echo provider, which cannot grade.",
};

/** How many dimensions the reasoning names at each end of the ranking. */
const NAMED_DIMENSIONS = 2;

function weightsSentence(): string {
  const parts = [...DIMENSIONS]
    .sort((a, b) => DIMENSION_WEIGHTS[b] - DIMENSION_WEIGHTS[a])
    .map((dimension) => `${dimension} ${Math.round(DIMENSION_WEIGHTS[dimension] * 100)}%`);
  return parts.join(', ');
}

function listDimensions(dimensions: readonly Dimension[], scores: Readonly<Record<Dimension, number>>): string {
  return dimensions.map((dimension) => `${dimension} (${scores[dimension]})`).join(' and ');
}

export function judgeWithAnalyzer(input: JudgeRequestInput, options: JudgeWithAnalyzerOptions): JudgeResult {
  const thresholds = parseJudgeThresholds(options.thresholds ?? DEFAULT_JUDGE_THRESHOLDS);
  const criteria = input.criteria !== undefined && input.criteria.trim().length > 0 ? input.criteria : undefined;
  // The criteria say what the prompt is for, which is exactly what the analyzer's goal sharpens.
  const analysis = analyzePrompt({ prompt: input.prompt, goal: criteria }, { siteUrl: options.siteUrl });
  const { scores } = analysis;

  // Stable ranking: ties keep the rubric's dimension order, so the wording is deterministic.
  const ranked = [...DIMENSIONS].sort((a, b) => scores[b] - scores[a]);
  const strongest = ranked.slice(0, NAMED_DIMENSIONS);
  const weakest = ranked.slice(-NAMED_DIMENSIONS).reverse();
  const verdict = verdictForScore(analysis.overall, thresholds);

  const sentences = [
    REASON_SENTENCES[options.reason ?? 'no_model_configured'],
    `Overall ${analysis.overall}/100, weighted from six dimensions (${weightsSentence()}); verdict ${verdict} (pass from ${thresholds.pass}, needs revision from ${thresholds.needsRevision}).`,
    `Strongest: ${listDimensions(strongest, scores)}. Weakest: ${listDimensions(weakest, scores)}.`,
  ];
  if (criteria !== undefined) {
    sentences.push('The criteria were not evaluated by a model; they only shaped the suggestions.');
  }

  return {
    verdict,
    score: analysis.overall,
    reasoning: sentences.join(' '),
    suggestions: analysis.suggestions,
  };
}
