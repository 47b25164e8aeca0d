export { JUDGE_SYSTEM_PROMPT, buildJudgeRequest } from './build-judge-request.js';
export type { JudgeChatMessage, JudgeRequest, JudgeRequestInput } from './build-judge-request.js';
export {
  JUDGE_MAX_CRITERIA_CHARS,
  JUDGE_MAX_PROMPT_CHARS,
  JUDGE_REPLY_JSON_SCHEMA,
  JUDGE_VERDICTS,
  judgeInputSchema,
  judgeReplySchema,
  judgeResultSchema,
} from './judge-schema.js';
export type { JudgeInput, JudgeReply, JudgeResult, JudgeVerdict } from './judge-schema.js';
export { judgeWithAnalyzer } from './judge-with-analyzer.js';
export type { JudgeWithAnalyzerOptions } from './judge-with-analyzer.js';
export { parseJudgeReply } from './parse-judge-reply.js';
export type {
  JudgeReplyFailure,
  JudgeReplyFailureKind,
  JudgeReplyParseResult,
  JudgeReplyRepair,
} from './parse-judge-reply.js';
export { UNREADABLE_VERDICT_MESSAGE, buildRetryRequest, runJudge } from './run-judge.js';
export type { JudgeModelCall, RunJudgeOptions } from './run-judge.js';
export {
  DEFAULT_JUDGE_THRESHOLDS,
  judgeThresholdsSchema,
  parseJudgeThresholds,
  toJudgeResult,
  verdictForScore,
} from './thresholds.js';
export type { JudgeThresholds } from './thresholds.js';
