export { analyzePrompt, assessPrompt } from './analyze-prompt.js';
export type { AnalyzePromptRequest, AnalyzerOptions, PromptAssessment } from './analyze-prompt.js';
export {
  ANALYZER_MAX_GOAL_CHARS,
  ANALYZER_MAX_PROMPT_CHARS,
  analyzePromptInputSchema,
  promptAnalysisSchema,
} from './analyzer-schema.js';
export type { AnalyzePromptInput, PromptAnalysis } from './analyzer-schema.js';
export {
  REFINE_GOAL_MAX_CODE_POINTS,
  REFINE_GOAL_MAX_ENCODED_BYTES,
  REFINE_PROMPT_MAX_CODE_POINTS,
  REFINE_PROMPT_MAX_ENCODED_BYTES,
  REFINE_SHORTENED_FROM_PARAMETER,
  buildRefineUrl,
  truncateToCodePoints,
} from './refine-url.js';
export {
  DIMENSIONS,
  DIMENSION_WEIGHTS,
  MAX_SUGGESTIONS,
  SUGGESTION_THRESHOLD,
  overallScore,
} from './rubric.js';
export type { Dimension, DimensionScores } from './rubric.js';
