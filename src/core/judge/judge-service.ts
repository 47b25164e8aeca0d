/** The judge as a metered service: model-graded through the model caller, or the analyzer offline. */
import type { OrganisationRecord } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { ModelCaller, ModelCallContext } from '../execution/model-calls.js';
import type { JudgeResult } from './judge-schema.js';
import { judgeWithAnalyzer } from './judge-with-analyzer.js';
import { runJudge } from './run-judge.js';
import type { JudgeThresholds } from './thresholds.js';

export interface JudgeServiceInput {
  prompt: string;
  criteria?: string | undefined;
  model?: string | undefined;
  use_byok?: boolean | undefined;
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
    ): Promise<JudgeResult> {
      const model = ai.resolveModel({ requested: input.model, plan: caller.account.plan, euOnly: organisation.euOnlyModels });
      const request = { prompt: input.prompt, ...(input.criteria === undefined ? {} : { criteria: input.criteria }) };
      // The echo model repeats its input and cannot grade; the deterministic rubric stands in and
      // says so. Nothing to meter, but the usage row is written like any execution's.
      if (ai.isEcho(model)) {
        const reason = ai.listModels().every((info) => ai.isEcho(info.id)) ? 'no_model_configured' : 'echo_model_selected';
        return modelCaller.runLocally({ caller, organisation, ...context }, model, () => judgeWithAnalyzer(request, { siteUrl, thresholds, reason }));
      }
      return runJudge(
        request,
        async (judgeRequest) =>
          (
            await modelCaller.call(
              { caller, organisation, useByok: input.use_byok, ...context },
              { model, messages: judgeRequest.messages, responseFormat: judgeRequest.responseFormat, temperature: JUDGE_TEMPERATURE },
            )
          ).content,
        { thresholds },
      );
    },
  };
}

export type JudgeService = ReturnType<typeof createJudgeService>;
