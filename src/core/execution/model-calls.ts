/**
 * Every model call goes through here: BYOK routing, then reserve → call → settle → usage record.
 * A call can never overdraw (the reservation covers the prompt estimate plus the output cap),
 * a failed call is released, and a settlement that no longer fits withholds the result.
 */
import type { OrganisationRecord, UsageRecord, UsageRepository } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { ChatMessage, CompletionResult, JsonSchemaResponseFormat, ResolvedModel, TokenUsage } from '../ai/ai-types.js';
import type { ByokService } from '../byok/byok.js';
import type { Clock } from '../clock.js';
import type { CreditService, Reservation } from '../credits/credits.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import type { RequestScope } from '../telemetry/telemetry.js';
import type { GuardrailFinding, Guardrails } from '../sanitiser/guardrails.js';

export interface ModelCallContext {
  caller: Caller;
  organisation: OrganisationRecord;
  /** The API operation this call serves (`execute_composition`), for the usage record. */
  operation: string;
  resourceId: string | null;
  /** The version of the resource that runs (usage records name it). */
  resourceVersion?: number | null;
  runId?: string | null;
  nodeId?: string | null;
  /** The body's `use_byok`: false forces the shared gateway. */
  useByok?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

export interface ModelCallRequest {
  model: ResolvedModel;
  messages: readonly ChatMessage[];
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
  responseFormat?: JsonSchemaResponseFormat | undefined;
  /** The request this call serves, passed on to the provider call (its span's parent, its log lines' ids). */
  scope?: RequestScope | undefined;
}

export interface ModelCallResult {
  content: string;
  modelUsed: string;
  usage: TokenUsage;
  byok: boolean;
  chargedTokens: number;
  /** What the organisation's guardrails found in the input and output (rule ids and positions only). */
  guardrailFindings: GuardrailFinding[];
}

const NO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

export interface ModelCallerDependencies {
  ai: AiGateway;
  credits: CreditService;
  byok: ByokService;
  usage: UsageRepository;
  clock: Clock;
  guardrails: Guardrails;
}

export function createModelCaller({ ai, credits, byok, usage, clock, guardrails }: ModelCallerDependencies) {
  function usageRecord(
    ctx: ModelCallContext,
    fields: Pick<UsageRecord, 'model' | 'status' | 'byok' | 'chargedTokens' | 'durationMs'> & { usage: TokenUsage },
  ): UsageRecord {
    return {
      id: newId(),
      accountId: ctx.caller.account.id,
      apiKeyId: ctx.caller.credential.kind === 'api_key' ? ctx.caller.credential.id : null,
      partnerKeyId: ctx.caller.credential.kind === 'partner_key' ? ctx.caller.credential.id : null,
      operation: ctx.operation,
      resourceId: ctx.resourceId,
      resourceVersion: ctx.resourceVersion ?? null,
      runId: ctx.runId ?? null,
      nodeId: ctx.nodeId ?? null,
      model: fields.model,
      inputTokens: fields.usage.input_tokens,
      outputTokens: fields.usage.output_tokens,
      totalTokens: fields.usage.total_tokens,
      chargedTokens: fields.chargedTokens,
      byok: fields.byok,
      durationMs: fields.durationMs,
      status: fields.status,
      createdAt: clock.now(),
    };
  }

  async function record(ctx: ModelCallContext, fields: Parameters<typeof usageRecord>[1]): Promise<void> {
    await usage.insert(usageRecord(ctx, fields));
  }

  /** The BYOK key this call must use, or null for the shared gateway; enforces strict_byok. */
  async function byokKeyFor(ctx: ModelCallContext, model: ResolvedModel): Promise<string | null> {
    // The echo model runs locally: there is no provider key to bring.
    if (ai.isEcho(model)) return null;
    if (ctx.useByok === false) {
      if (ctx.organisation.strictByok) {
        throw new PorchError('ACCESS_DENIED', 'This organisation requires its own provider keys (strict BYOK); use_byok: false is not allowed.');
      }
      return null;
    }
    const key = await byok.activeKeyFor(ctx.caller.account, model.provider);
    if (key === null && ctx.organisation.strictByok) {
      throw new PorchError(
        'ACCESS_DENIED',
        `This organisation requires its own provider keys (strict BYOK), and none is set for provider "${model.provider}".`,
      );
    }
    return key;
  }

  /** Reserve → call → settle → usage record, as described at the top of this file. */
  async function meteredCall(ctx: ModelCallContext, request: ModelCallRequest): Promise<Omit<ModelCallResult, 'guardrailFindings'>> {
    const started = clock.now();
    const byokApiKey = await byokKeyFor(ctx, request.model);
    const completion = { ...request, signal: ctx.signal, ...(byokApiKey === null ? {} : { byokApiKey }) };

    if (byokApiKey !== null) {
      try {
        const result = await ai.complete(completion);
        await record(ctx, {
          model: result.modelUsed,
          usage: result.usage,
          status: 'succeeded',
          byok: true,
          chargedTokens: 0,
          durationMs: clock.now() - started,
        });
        return { content: result.content, modelUsed: result.modelUsed, usage: result.usage, byok: true, chargedTokens: 0 };
      } catch (err) {
        await record(ctx, { model: request.model.id, usage: NO_USAGE, status: 'failed', byok: true, chargedTokens: 0, durationMs: clock.now() - started });
        throw err;
      }
    }

    // The balance check needs no estimate, so an account that cannot start a call is refused
    // before its prompt is counted: counting is the costly step, and it must not be free to repeat.
    await credits.requireMinimum(ctx.caller.account.id);
    const outputCap = Math.min(request.maxOutputTokens ?? request.model.maxOutputTokens, request.model.maxOutputTokens);
    const reservation: Reservation = await credits.reserve(ctx.caller.account.id, ai.estimateTokens(request.messages) + outputCap);
    let result: CompletionResult;
    try {
      result = await ai.complete(completion);
    } catch (err) {
      await credits.release(reservation);
      await record(ctx, { model: request.model.id, usage: NO_USAGE, status: 'failed', byok: false, chargedTokens: 0, durationMs: clock.now() - started });
      throw err;
    }
    const succeeded = usageRecord(ctx, {
      model: result.modelUsed,
      usage: result.usage,
      status: 'succeeded',
      byok: false,
      chargedTokens: result.usage.total_tokens,
      durationMs: clock.now() - started,
    });
    try {
      // The record is written with the charge, in one transaction (one commit less per call).
      await credits.settle(reservation, result.usage.total_tokens, `usage:${ctx.operation}:${ctx.resourceId ?? ''}`, succeeded);
    } catch (err) {
      await record(ctx, {
        model: result.modelUsed,
        usage: result.usage,
        status: 'billing_failed',
        byok: false,
        chargedTokens: 0,
        durationMs: clock.now() - started,
      });
      throw err;
    }
    return { content: result.content, modelUsed: result.modelUsed, usage: result.usage, byok: false, chargedTokens: result.usage.total_tokens };
  }

  return {
    /**
     * Work done in place of a model call (the judge's rubric when the model is echo): no tokens,
     * nothing charged, but a usage row like any execution's, so the audit trail is complete.
     */
    async runLocally<T>(ctx: ModelCallContext, model: ResolvedModel, work: () => T): Promise<T> {
      const started = clock.now();
      const fields = { model: model.id, usage: NO_USAGE, byok: false, chargedTokens: 0 };
      let result: T;
      try {
        result = work();
      } catch (err) {
        await record(ctx, { ...fields, status: 'failed', durationMs: clock.now() - started });
        throw err;
      }
      await record(ctx, { ...fields, status: 'succeeded', durationMs: clock.now() - started });
      return result;
    },

    /**
     * One model call under the organisation's guardrails: the input is checked (blocked or
     * redacted) before anything is reserved or sent, the answer before it is returned.
     */
    async call(ctx: ModelCallContext, request: ModelCallRequest): Promise<ModelCallResult> {
      const input = await guardrails.checkInput(ctx.organisation, request.messages);
      const result = await meteredCall(ctx, input.messages === request.messages ? request : { ...request, messages: input.messages });
      const output = await guardrails.checkOutput(ctx.organisation, result.content);
      return { ...result, content: output.content, guardrailFindings: [...input.findings, ...output.findings] };
    },
  };
}

export type ModelCaller = ReturnType<typeof createModelCaller>;
