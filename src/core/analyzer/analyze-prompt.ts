/**
 * The deterministic prompt analyzer: no AI, no I/O, the same answer for the same input.
 * It scores six dimensions from signals in the text (see ./dimensions/ for each heuristic),
 * combines them with the weights in ./rubric.ts and turns what is missing into suggestions.
 */
import { scoreClarity } from './dimensions/clarity.js';
import { scoreConstraints } from './dimensions/constraints.js';
import { scoreContext } from './dimensions/context.js';
import { scoreFormat } from './dimensions/format.js';
import { scoreRole } from './dimensions/role.js';
import { scoreTask } from './dimensions/task.js';
import type { PromptAnalysis } from './analyzer-schema.js';
import { buildRefineUrl } from './refine-url.js';
import type { DimensionScores } from './rubric.js';
import { overallScore } from './rubric.js';
import type { AnalyzerFindings } from './suggestions.js';
import { buildSuggestions } from './suggestions.js';
import { extractTextSignals } from './text-signals.js';

export interface AnalyzePromptRequest {
  readonly prompt: string;
  /** What the author wants the prompt to achieve; sharpens the suggestions. */
  readonly goal?: string | undefined;
}

export interface AnalyzerOptions {
  /** Public origin for absolute links, e.g. `https://porch.example.com` (no trailing slash needed). */
  readonly siteUrl: string;
}

/** Scores and findings before they are shaped for callers; the judge's fallback reads these. */
export interface PromptAssessment {
  readonly scores: DimensionScores;
  readonly overall: number;
  readonly findings: AnalyzerFindings;
}

export function assessPrompt(prompt: string): PromptAssessment {
  const signals = extractTextSignals(prompt);
  const role = scoreRole(signals);
  const task = scoreTask(signals);
  const context = scoreContext(signals);
  const format = scoreFormat(signals);
  const constraints = scoreConstraints(signals);
  const clarity = scoreClarity(signals, context.findings);

  const scores: DimensionScores = {
    clarity: clarity.score,
    role: role.score,
    task: task.score,
    context: context.score,
    format: format.score,
    constraints: constraints.score,
  };
  return {
    scores,
    overall: overallScore(scores),
    findings: {
      role: role.findings,
      task: task.findings,
      context: context.findings,
      format: format.findings,
      constraints: constraints.findings,
      clarity: clarity.findings,
    },
  };
}

/**
 * Analyses any string without throwing: empty, whitespace-only, emoji and lone surrogates
 * included (callers validate that the prompt is not blank; a blank one simply scores 0).
 */
export function analyzePrompt(request: AnalyzePromptRequest, options: AnalyzerOptions): PromptAnalysis {
  const assessment = assessPrompt(request.prompt);
  return {
    scores: { ...assessment.scores },
    overall: assessment.overall,
    suggestions: buildSuggestions(assessment.scores, assessment.findings, request.goal),
    refine_url: buildRefineUrl(options.siteUrl, request.prompt, request.goal),
  };
}
