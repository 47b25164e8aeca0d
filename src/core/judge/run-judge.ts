/**
 * Runs the judge against a model: one call, one retry if the reply cannot be read, then a hard
 * AI_SERVICE_ERROR. An unreadable reply is never turned into a pass (or into any score).
 */
import { PorchError } from '../errors.js';
import type { JudgeRequest, JudgeRequestInput } from './build-judge-request.js';
import { buildJudgeRequest } from './build-judge-request.js';
import type { JudgeResult } from './judge-schema.js';
import type { JudgeReplyFailure } from './parse-judge-reply.js';
import { parseJudgeReply } from './parse-judge-reply.js';
import type { JudgeThresholds } from './thresholds.js';
import { DEFAULT_JUDGE_THRESHOLDS, parseJudgeThresholds, toJudgeResult } from './thresholds.js';

/**
 * The model call, provided by the AI gateway: sends the request, resolves to the reply text.
 * `retry` is true for the second call after an unreadable reply (a model call of the same request).
 */
export type JudgeModelCall = (request: JudgeRequest, retry: boolean) => Promise<string>;

export interface RunJudgeOptions {
  readonly thresholds?: JudgeThresholds | undefined;
}

/** The message callers see; the reasons go to `cause` (logged, never sent). */
export const UNREADABLE_VERDICT_MESSAGE = 'The AI model did not return a readable verdict after a retry, so the prompt was not scored. Try again later.';

/** The message when the reply was unreadable and the balance the first call left could not pay for the retry. */
export const UNREADABLE_VERDICT_RETRY_UNAFFORDABLE_MESSAGE =
  'The AI model did not return a readable verdict, and the credits left after that call do not cover a retry, so the prompt was not scored. Add credits, then try again.';

/**
 * The retry repeats the request and tells the model what was wrong with its reply. The bad
 * reply itself is not sent back: it may be long, and it may echo the judged prompt's text.
 */
export function buildRetryRequest(request: JudgeRequest, failure: JudgeReplyFailure): JudgeRequest {
  const [system, user] = request.messages;
  return {
    ...request,
    messages: [
      {
        role: 'system',
        content: `${system.content}\n\n## Your previous reply could not be used\nProblem: ${failure.message}. Reply again with exactly one JSON object of the form {"reasoning": string, "score": number from 0 to 100, "suggestions": string[]} and nothing else.`,
      },
      user,
    ],
  };
}

/**
 * Judges a prompt with a model. Errors thrown by `complete` (provider failures, BYOK
 * rejections, billing) propagate unchanged: the gateway has already mapped them.
 */
export async function runJudge(input: JudgeRequestInput, complete: JudgeModelCall, options: RunJudgeOptions = {}): Promise<JudgeResult> {
  // Validate before spending a model call on a request whose verdict could not be computed.
  const thresholds = parseJudgeThresholds(options.thresholds ?? DEFAULT_JUDGE_THRESHOLDS);
  const request = buildJudgeRequest(input);

  const first = parseJudgeReply(await complete(request, false));
  if (first.ok) return toJudgeResult(first.reply, thresholds);

  const second = parseJudgeReply(await complete(buildRetryRequest(request, first.failure), true));
  if (second.ok) return toJudgeResult(second.reply, thresholds);

  throw new PorchError(
    'AI_SERVICE_ERROR',
    UNREADABLE_VERDICT_MESSAGE,
    {},
    {
      cause: new Error(
        `judge reply unreadable twice: first ${first.failure.kind} (${first.failure.message}); second ${second.failure.kind} (${second.failure.message})`,
      ),
    },
  );
}
