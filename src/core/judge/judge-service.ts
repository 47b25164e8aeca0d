/** The judge as a metered service: model-graded through the model caller, or the analyzer offline. */
import type { OrganisationRecord } from '../../db/store.js';
import { PorchError } from '../errors.js';
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import { addTokenUsage, NO_TOKENS, type TokenUsage } from '../ai/token-usage.js';
import { addFailedCallCost, type ModelCaller, type ModelCallContext, type ModelCallResult } from '../execution/model-calls.js';
import type { GuardrailFinding } from '../sanitiser/guardrails.js';
import type { JudgeResult } from './judge-schema.js';
import { judgeWithAnalyzer } from './judge-with-analyzer.js';
import { runJudge, UNREADABLE_VERDICT_RETRY_UNAFFORDABLE_MESSAGE } from './run-judge.js';
import type { JudgeThresholds } from './thresholds.js';

export interface JudgeServiceInput {
  prompt: string;
  criteria?: string | undefined;
  model?: string | undefined;
  use_byok?: boolean | undefined;
}

export interface JudgeOutcome {
  result: JudgeResult;
  /** The model that graded (the configured id), for a workflow node's trace. */
  model: string;
  /** Every call's tokens and charge together (two calls when the first reply was unreadable). */
  usage: TokenUsage;
  chargedTokens: number;
  /**
   * What the organisation's guardrails found on the judge's model calls (report or redact). The
   * retry after an unreadable reply resends the judged prompt, so its findings are listed once.
   */
  guardrailFindings: GuardrailFinding[];
}

function findingKey(finding: GuardrailFinding): string {
  return `${finding.direction}:${finding.message_index ?? ''}:${finding.rule_id}:${finding.start}:${finding.end}`;
}

/**
 * The retry after an unreadable reply is a second metered call, and the balance the first call
 * left may not cover it. Its refusal is not the request's: 402 INSUFFICIENT_CREDITS says nothing
 * was started or charged, and the first call was both (regression: a judge charged 700 tokens
 * answered 402). The request ends as an unreadable verdict does, saying why there was no retry.
 */
function retryRefusal(err: unknown): unknown {
  if (!(err instanceof PorchError) || err.code !== 'INSUFFICIENT_CREDITS') return err;
  return new PorchError('AI_SERVICE_ERROR', UNREADABLE_VERDICT_RETRY_UNAFFORDABLE_MESSAGE, {}, { cause: err });
}

/** A judge is a grader, not a writer: no creativity wanted. */
const JUDGE_TEMPERATURE = 0;

export interface JudgeServiceDependencies {
  ai: AiGateway;
  modelCaller: ModelCaller;
  thresholds: JudgeThresholds;
  siteUrl: string;
}

export function createJudgeService({ ai, modelCaller, thresholds, siteUrl }: JudgeServiceDependencies) {
  return {
    async judge(
      caller: Caller,
      organisation: OrganisationRecord,
      input: JudgeServiceInput,
      context: Pick<ModelCallContext, 'operation' | 'resourceId' | 'runId' | 'nodeId' | 'signal'>,
    ): Promise<JudgeOutcome> {
      const model = ai.resolveModel({ requested: input.model, plan: caller.account.plan, euOnly: organisation.euOnlyModels });
      const request = { prompt: input.prompt, ...(input.criteria === undefined ? {} : { criteria: input.criteria }) };
      // The echo model repeats its input and cannot grade; the deterministic rubric stands in and
      // says so. Nothing to meter, but the usage row is written like any execution's.
      if (ai.isEcho(model)) {
        const reason = ai.listModels().every((info) => ai.isEcho(info.id)) ? 'no_model_configured' : 'echo_model_selected';
        const result = await modelCaller.runLocally({ caller, organisation, ...context }, model, () =>
          judgeWithAnalyzer(request, { siteUrl, thresholds, reason }),
        );
        return { result, model: model.id, usage: NO_TOKENS, chargedTokens: 0, guardrailFindings: [] };
      }
      const findings = new Map<string, GuardrailFinding>();
      // The input guardrail reads the prompt and criteria as sent, so its positions are theirs
      // (part 0, part 1), not offsets into the message built around them (regression).
      const checked = await modelCaller.checkInputParts(organisation, request.criteria === undefined ? [request.prompt] : [request.prompt, request.criteria]);
      for (const finding of checked.findings) findings.set(findingKey(finding), finding);
      const [guardedPrompt = request.prompt, guardedCriteria] = checked.parts;
      const guardedRequest = { prompt: guardedPrompt, ...(guardedCriteria === undefined ? {} : { criteria: guardedCriteria }) };
      let usage = NO_TOKENS;
      let chargedTokens = 0;
      /**
       * The first call's answer: its usage record stands for the request (the retry's is marked
       * `retry`), so it is the one marked failed when the request fails after it, however it fails.
       */
      let first: ModelCallResult | undefined;
      try {
        const verdict = await runJudge(
          guardedRequest,
          async (judgeRequest, retry) => {
            // The raw reply is JSON the caller never sees (its strings may be escaped: "ada\u0040example.com");
            // the output guardrail checks the verdict's text instead, below.
            const answer = await modelCaller
              .call(
                { caller, organisation, useByok: input.use_byok, retry, guardsOwnInput: true, guardsOwnOutput: true, ...context },
                { model, messages: judgeRequest.messages, responseFormat: judgeRequest.responseFormat, temperature: JUDGE_TEMPERATURE },
              )
              .catch((err: unknown) => {
                throw retry ? retryRefusal(err) : err;
              });
            if (!retry) first = answer;
            usage = addTokenUsage(usage, answer.usage);
            chargedTokens += answer.chargedTokens;
            for (const finding of answer.guardrailFindings) findings.set(findingKey(finding), finding);
            return answer.content;
          },
          { thresholds },
        );
        const output = await modelCaller.checkOutputParts(organisation, [verdict.reasoning, ...verdict.suggestions]);
        const [reasoning = verdict.reasoning, ...suggestions] = output.parts;
        const result = { ...verdict, reasoning, suggestions };
        return { result, model: model.id, usage, chargedTokens, guardrailFindings: [...findings.values(), ...output.findings] };
      } catch (err) {
        // The request failed after its first call answered (a reply that could not be read, a
        // retry refused or failing, a verdict the output guardrail blocked): the request's usage
        // record says so, and the failure carries what the answered calls cost (a workflow run
        // counts it, as it counts any call charged before failing).
        if (first !== undefined) await modelCaller.markFailed(first);
        if (chargedTokens > 0 || usage.total_tokens > 0) addFailedCallCost(err, { model: model.id, usage, chargedTokens });
        throw err;
      }
    },
  };
}

export type JudgeService = ReturnType<typeof createJudgeService>;
