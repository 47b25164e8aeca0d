/**
 * Every model call goes through here: BYOK routing, then reserve → call → settle → usage record.
 * A call can never overdraw (the reservation covers the prompt estimate plus the output cap),
 * a failed call is released, and a settlement that no longer fits withholds the result.
 *
 * Streamed calls (`stream`) follow the same steps, with two differences that come from text
 * already having reached the caller:
 * - a stream cut short (the caller went away, or the provider failed after it started answering)
 *   is still settled: on the usage the provider reported, or, when it reported none, on the
 *   tokenizer's count of the prompt plus what was produced; never more than the reservation;
 * - when the organisation's output guardrail is `redact` or `block`, the answer is buffered whole,
 *   checked, and handed on as one piece: a guardrail cannot take back text already sent. With
 *   `report` or `off` the text passes through as it arrives, and the findings come with the result.
 */
import type { OrganisationRecord, UsageRecord, UsageRepository } from '../../db/store.js';
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { ChatMessage, CompletionRequest, CompletionResult, JsonSchemaResponseFormat, ResolvedModel, TokenUsage } from '../ai/ai-types.js';
import { addTokenUsage } from '../ai/token-usage.js';
import type { ByokService } from '../byok/byok.js';
import type { Clock } from '../clock.js';
import type { DeferredWrites } from '../deferred-writes.js';
import { type CreditService, type Reservation, type RunBudget, settlementClosedReservation } from '../credits/credits.js';
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
  /** A repeat of the request's model call (the judge's retry after an unreadable verdict): its usage record counts no request. */
  retry?: boolean | undefined;
  /**
   * The caller applies the output guardrail itself, to what it returns instead of the answer
   * (the judge, to its verdict's text through `checkOutputParts`): the raw answer is not checked.
   */
  guardsOwnOutput?: boolean | undefined;
  /**
   * The caller applied the input guardrail itself, to the parts it built the messages from (the
   * judge, to the prompt and criteria through `checkInputParts`): the messages are not checked again.
   */
  guardsOwnInput?: boolean | undefined;
  /** The body's `use_byok`: false forces the shared gateway. */
  useByok?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** A workflow run's credits: its calls are paid from the run's one reservation, settled when the run ends. */
  budget?: RunBudget | undefined;
  /**
   * Where the usage record of a call whose charge the store's outage refused waits for the store
   * (the executions pass theirs, so the run's usage counts the call). Without it, that write's
   * failure is the call's.
   */
  deferredWrites?: DeferredWrites | undefined;
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
  /** The call's usage record, which `markFailed` marks when the request it served fails after it. */
  usageRecordId: string;
  /** What the organisation's guardrails found in the input and output (rule ids and positions only). */
  guardrailFindings: GuardrailFinding[];
}

const NO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/** Strict BYOK refusing `use_byok: false`: no call of the organisation may use the shared gateway. */
export function strictByokForbidsGateway(): PorchError {
  return new PorchError('ACCESS_DENIED', 'This organisation requires its own provider keys (strict BYOK); use_byok: false is not allowed.');
}

/** Strict BYOK refusing a call to a provider the caller has no key for. */
export function strictByokNeedsKey(provider: string): PorchError {
  return new PorchError('ACCESS_DENIED', `This organisation requires its own provider keys (strict BYOK), and none is set for provider "${provider}".`);
}

/** What a call that failed still used and cost. */
export interface FailedCallCost {
  /** The model that answered (or, for a stream cut short, was asked). */
  model: string;
  usage: TokenUsage;
  chargedTokens: number;
}

/**
 * The cost of calls that failed after they were charged (a stream cut short, charged on what it
 * used; an answer the output guardrail blocked), by the error they failed with: the run the call
 * belongs to records what the ledger holds, not nothing.
 */
const failedCallCosts = new WeakMap<object, FailedCallCost>();

function noteCost(err: unknown, cost: FailedCallCost): void {
  if (typeof err === 'object' && err !== null) failedCallCosts.set(err, cost);
}

/** What the call that failed with `err` still used and cost; nothing for a call released whole. */
export function costOfFailedCall(err: unknown): FailedCallCost | undefined {
  return typeof err === 'object' && err !== null ? failedCallCosts.get(err) : undefined;
}

/**
 * Refusals made before anything was sent to a model (the input guardrail's block, strict BYOK,
 * too few credits): the request did not run, so a single execute records no run for it, as a
 * workflow refused at its start records none (docs/self-service.md, Runs).
 */
const refusals = new WeakSet<object>();

/** Marks `err` as a refusal made before any model was called, and answers it (to be thrown). */
function refused(err: unknown): unknown {
  if (typeof err === 'object' && err !== null) refusals.add(err);
  return err;
}

/** Whether the call failed with `err` before anything was sent to a model. */
export function refusedBeforeCalling(err: unknown): boolean {
  return typeof err === 'object' && err !== null && refusals.has(err);
}

/**
 * Adds `cost` to what the failure `err` cost: calls of the same request that answered and were
 * charged before it failed (the judge's first call, when its retry fails or cannot be read).
 */
export function addFailedCallCost(err: unknown, cost: FailedCallCost): void {
  const known = costOfFailedCall(err);
  noteCost(
    err,
    known === undefined ? cost : { model: known.model, usage: addTokenUsage(known.usage, cost.usage), chargedTokens: known.chargedTokens + cost.chargedTokens },
  );
}

/*
 * The requests and results below are written out field by field, never as a spread copy with
 * a property added (`{ ...request, signal }`): on Node 20 each such copy gets a map of its own,
 * which costs a slow store, a cache miss at every later read of it, and room in V8's shared
 * cache of property lookups for the whole process (bench/RESULTS-NOTES.md, "Objects of one shape").
 */

/** The ledger reference of a call's charge: `usage:<operation>:<resource id>`, or `usage:run_judge` without a resource (regression: a trailing colon). */
function chargeReference(ctx: ModelCallContext): string {
  return ctx.resourceId === null || ctx.resourceId === undefined ? `usage:${ctx.operation}` : `usage:${ctx.operation}:${ctx.resourceId}`;
}

/** `request` with `messages`, for the request whose scope is `scope` (its span's parent, its log lines' ids). */
function modelCallRequest(request: ModelCallRequest, messages: readonly ChatMessage[], scope: RequestScope | undefined): ModelCallRequest {
  return {
    model: request.model,
    messages,
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens,
    responseFormat: request.responseFormat,
    scope,
  };
}

/** `request` made for the request whose scope is `scope`. */
export function withCallScope(request: ModelCallRequest, scope: RequestScope | undefined): ModelCallRequest {
  return modelCallRequest(request, request.messages, scope);
}

/** `request` with the guardrails' version of its messages. */
function withMessages(request: ModelCallRequest, messages: readonly ChatMessage[]): ModelCallRequest {
  return messages === request.messages ? request : modelCallRequest(request, messages, request.scope);
}

/** What the provider is sent for `request`, made under `ctx`. */
function completionOf(request: ModelCallRequest, ctx: ModelCallContext, byokApiKey: string | null): CompletionRequest {
  const outputs = ctx.organisation.guardrailOutputs;
  return {
    model: request.model,
    messages: request.messages,
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens,
    responseFormat: request.responseFormat,
    signal: ctx.signal,
    byokApiKey: byokApiKey ?? undefined,
    traceparent: undefined,
    scope: request.scope,
    answerGuarded: outputs === 'redact' || outputs === 'block',
  };
}

/** A metered call's result with the output guardrail's version of the answer and every finding. */
function guardedResult(result: Omit<ModelCallResult, 'guardrailFindings'>, content: string, guardrailFindings: GuardrailFinding[]): ModelCallResult {
  return {
    content,
    modelUsed: result.modelUsed,
    usage: result.usage,
    byok: result.byok,
    chargedTokens: result.chargedTokens,
    usageRecordId: result.usageRecordId,
    guardrailFindings,
  };
}

/** A call through the shared gateway, charged every token it used, as its usage record `usageRecordId` says. */
function paidCall(result: CompletionResult, usageRecordId: string): Omit<ModelCallResult, 'guardrailFindings'> {
  return { content: result.content, modelUsed: result.modelUsed, usage: result.usage, byok: false, chargedTokens: result.usage.total_tokens, usageRecordId };
}

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
      retry: ctx.retry ?? false,
      createdAt: clock.now(),
    };
  }

  /** Writes the call's usage record; resolves to its id. */
  async function record(ctx: ModelCallContext, fields: Parameters<typeof usageRecord>[1]): Promise<string> {
    const row = usageRecord(ctx, fields);
    await usage.insert(row);
    return row.id;
  }

  /**
   * Writes the `billing_failed` record of a call that answered but could not be charged. The
   * store may be out of reach (it is what refused the charge, often): the record then waits for
   * it (`ctx.deferredWrites`), and the call fails with the charge's error, not with this write's
   * (regression: the record was lost, and with it the run's only usage record of a single call).
   */
  async function recordBillingFailed(ctx: ModelCallContext, fields: Omit<Parameters<typeof usageRecord>[1], 'status' | 'chargedTokens'>): Promise<void> {
    const row = usageRecord(ctx, { ...fields, status: 'billing_failed', chargedTokens: 0 });
    if (ctx.deferredWrites === undefined) await usage.insert(row);
    else await ctx.deferredWrites.attempt(`the usage record of a call of ${ctx.operation} that was not charged`, () => usage.insert(row));
  }

  /** The BYOK key this call must use, or null for the shared gateway; enforces strict_byok. */
  async function byokKeyFor(ctx: ModelCallContext, model: ResolvedModel): Promise<string | null> {
    // The echo model runs locally: there is no provider key to bring.
    if (ai.isEcho(model)) return null;
    if (ctx.useByok === false) {
      if (ctx.organisation.strictByok) throw strictByokForbidsGateway();
      return null;
    }
    const key = await byok.activeKeyFor(ctx.caller.account, model.provider);
    if (key === null && ctx.organisation.strictByok) throw strictByokNeedsKey(model.provider);
    return key;
  }

  /** The most a call may cost: the prompt estimate plus the output cap. */
  function reservationTokens(request: ModelCallRequest): number {
    const outputCap = Math.min(request.maxOutputTokens ?? request.model.maxOutputTokens, request.model.maxOutputTokens);
    return ai.estimateTokens(request.messages) + outputCap;
  }

  /** Reserve → call → settle → usage record, as described at the top of this file. */
  async function meteredCall(ctx: ModelCallContext, request: ModelCallRequest): Promise<Omit<ModelCallResult, 'guardrailFindings'>> {
    const started = clock.now();
    let byokApiKey: string | null;
    try {
      byokApiKey = await byokKeyFor(ctx, request.model);
    } catch (err) {
      throw refused(err);
    }
    const completion = completionOf(request, ctx, byokApiKey);

    if (byokApiKey !== null) {
      try {
        const result = await ai.complete(completion);
        const usageRecordId = await record(ctx, {
          model: result.modelUsed,
          usage: result.usage,
          status: 'succeeded',
          byok: true,
          chargedTokens: 0,
          durationMs: clock.now() - started,
        });
        return { content: result.content, modelUsed: result.modelUsed, usage: result.usage, byok: true, chargedTokens: 0, usageRecordId };
      } catch (err) {
        await record(ctx, { model: request.model.id, usage: NO_USAGE, status: 'failed', byok: true, chargedTokens: 0, durationMs: clock.now() - started });
        throw err;
      }
    }

    if (ctx.budget !== undefined) return budgetedCall(ctx, ctx.budget, request, completion, started);

    // The balance check needs no estimate, so an account that cannot start a call is refused
    // before its prompt is counted: counting is the costly step, and it must not be free to repeat.
    let reservation: Reservation;
    try {
      await credits.requireMinimum(ctx.caller.account.id);
      reservation = await credits.reserve(ctx.caller.account.id, reservationTokens(request));
    } catch (err) {
      throw refused(err);
    }
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
      await credits.settle(reservation, result.usage.total_tokens, chargeReference(ctx), succeeded);
    } catch (err) {
      await recordBillingFailed(ctx, { model: result.modelUsed, usage: result.usage, byok: false, durationMs: clock.now() - started });
      // The answer is withheld and nothing charged, but the run says what the model used.
      noteCost(err, { model: result.modelUsed, usage: result.usage, chargedTokens: 0 });
      throw err;
    }
    return paidCall(result, succeeded.id);
  }

  /**
   * A call of a workflow run: held from and accrued under the run's reservation (see RunBudget),
   * with the same outcomes as a call of its own: refused before the call when the balance cannot
   * cover it, recorded as failed when the call fails, withheld when its cost no longer fits.
   */
  async function budgetedCall(
    ctx: ModelCallContext,
    budget: RunBudget,
    request: ModelCallRequest,
    completion: CompletionRequest,
    started: number,
  ): Promise<Omit<ModelCallResult, 'guardrailFindings'>> {
    const held = reservationTokens(request);
    await budget.hold(held);
    let result: CompletionResult;
    try {
      result = await ai.complete(completion);
    } catch (err) {
      await budget.drop(
        held,
        usageRecord(ctx, { model: request.model.id, usage: NO_USAGE, status: 'failed', byok: false, chargedTokens: 0, durationMs: clock.now() - started }),
      );
      throw err;
    }
    const fields = { model: result.modelUsed, usage: result.usage, byok: false, durationMs: clock.now() - started };
    const accrued = usageRecord(ctx, { ...fields, status: 'succeeded', chargedTokens: result.usage.total_tokens });
    try {
      await budget.charge(held, accrued);
    } catch (err) {
      await recordBillingFailed(ctx, fields);
      // As for a call of its own: withheld and not charged, but the run says what the model used.
      noteCost(err, { model: result.modelUsed, usage: result.usage, chargedTokens: 0 });
      throw err;
    }
    return paidCall(result, accrued.id);
  }

  /** Usage of a streamed answer: what the provider reported, else the tokenizer's count of prompt and text. */
  function streamedUsage(request: ModelCallRequest, content: string, reported: TokenUsage | null): TokenUsage {
    if (reported !== null) return reported;
    const input = ai.estimateTokens(request.messages);
    const output = ai.countTokens(content);
    return { input_tokens: input, output_tokens: output, total_tokens: input + output };
  }

  /**
   * Reserve → stream → settle → usage record. `onDelta` receives the text as it arrives. A stream
   * that ends early is settled on what it cost (see the top of this file) and its error rethrown;
   * one that failed before the provider produced or reported anything is released, as a failed
   * call is, unless the caller went away: the provider has then read the prompt, which is charged.
   */
  async function meteredStream(
    ctx: ModelCallContext,
    request: ModelCallRequest,
    onDelta: (text: string) => void,
  ): Promise<Omit<ModelCallResult, 'guardrailFindings'>> {
    const started = clock.now();
    let byokApiKey: string | null;
    let reservation: Reservation | null = null;
    try {
      byokApiKey = await byokKeyFor(ctx, request.model);
      if (byokApiKey === null) {
        await credits.requireMinimum(ctx.caller.account.id);
        reservation = await credits.reserve(ctx.caller.account.id, reservationTokens(request));
      }
    } catch (err) {
      throw refused(err);
    }
    const completion = completionOf(request, ctx, byokApiKey);
    const byok = byokApiKey !== null;

    let content = '';
    let reported: TokenUsage | null = null;
    let modelUsed: string = request.model.id;
    try {
      for await (const event of ai.stream(completion)) {
        if (event.type === 'delta') {
          content += event.text;
          onDelta(event.text);
        } else if (event.type === 'usage') {
          reported = event.usage;
        } else {
          modelUsed = event.modelUsed;
          reported = event.usage ?? reported;
        }
      }
    } catch (err) {
      noteCost(err, await settleInterrupted(ctx, request, { reservation, byok, content, reported, started, callerLeft: ctx.signal?.aborted === true }));
      throw err;
    }

    const usageOfCall = streamedUsage(request, content, reported);
    if (reservation === null) {
      const usageRecordId = await record(ctx, {
        model: modelUsed,
        usage: usageOfCall,
        status: 'succeeded',
        byok: true,
        chargedTokens: 0,
        durationMs: clock.now() - started,
      });
      return { content, modelUsed, usage: usageOfCall, byok: true, chargedTokens: 0, usageRecordId };
    }
    const succeeded = usageRecord(ctx, {
      model: modelUsed,
      usage: usageOfCall,
      status: 'succeeded',
      byok: false,
      chargedTokens: usageOfCall.total_tokens,
      durationMs: clock.now() - started,
    });
    try {
      await credits.settle(reservation, usageOfCall.total_tokens, chargeReference(ctx), succeeded);
    } catch (err) {
      const fields = { model: modelUsed, usage: usageOfCall, status: 'succeeded' as const, byok: false, durationMs: clock.now() - started };
      if (!settlementClosedReservation(err)) {
        // The store was out of reach (docs/deployment.md): nothing was charged and the reservation
        // is still open, to be released when it expires or the process stops. The stream ends as
        // the JSON call answers, unbilled, with the error after its text; charging it from a
        // second reservation would leave the first held beside the charge.
        await recordBillingFailed(ctx, fields);
        noteCost(err, { model: modelUsed, usage: usageOfCall, chargedTokens: 0 });
        throw err;
      }
      // More than the reservation and the balance can cover (a provider reporting past the output
      // cap): unlike a JSON answer, this one cannot be withheld, its text has been sent. It is
      // charged what was reserved for it, as a stream cut short is, rather than nothing. The
      // refused settlement closed the reservation, so the capped charge is reserved anew.
      const capped = Math.min(usageOfCall.total_tokens, reservation.tokens);
      const cappedRecord = usageRecord(ctx, { ...fields, chargedTokens: capped });
      try {
        const again = await credits.reserve(ctx.caller.account.id, capped);
        await credits.settle(again, capped, chargeReference(ctx), cappedRecord);
      } catch (cappedErr) {
        await recordBillingFailed(ctx, fields);
        // The balance refusing the capped charge too is the settlement's 402 BILLING_FAILED; the
        // store out of reach meanwhile is said as such (its reservation then waits to expire).
        const failure = cappedErr instanceof PorchError ? err : cappedErr;
        noteCost(failure, { model: modelUsed, usage: usageOfCall, chargedTokens: 0 });
        throw failure;
      }
      return { content, modelUsed, usage: usageOfCall, byok: false, chargedTokens: capped, usageRecordId: cappedRecord.id };
    }
    return { content, modelUsed, usage: usageOfCall, byok: false, chargedTokens: usageOfCall.total_tokens, usageRecordId: succeeded.id };
  }

  /** The settlement of a stream that ended early: charged on what it cost, capped at its reservation. */
  async function settleInterrupted(
    ctx: ModelCallContext,
    request: ModelCallRequest,
    state: { reservation: Reservation | null; byok: boolean; content: string; reported: TokenUsage | null; started: number; callerLeft: boolean },
  ): Promise<FailedCallCost> {
    const { reservation, byok, content, reported, started } = state;
    const nothingHappened = content === '' && reported === null && !state.callerLeft;
    const usageOfCall = nothingHappened ? NO_USAGE : streamedUsage(request, content, reported);
    const fields = { model: request.model.id, usage: usageOfCall, status: 'failed' as const, byok };
    if (reservation === null || nothingHappened) {
      if (reservation !== null) await credits.release(reservation);
      await record(ctx, { ...fields, chargedTokens: 0, durationMs: clock.now() - started });
      return { model: request.model.id, usage: usageOfCall, chargedTokens: 0 };
    }
    // The reservation was sized for the whole answer, so a part of it always fits within it; a
    // provider that reports more than was reserved cannot make an interrupted call cost more.
    const chargedTokens = Math.min(usageOfCall.total_tokens, reservation.tokens);
    const failed = usageRecord(ctx, { ...fields, chargedTokens, durationMs: clock.now() - started });
    try {
      await credits.settle(reservation, chargedTokens, chargeReference(ctx), failed);
    } catch {
      // A reservation already closed by the sweeper lands here (the release is then a no-op), or
      // the store out of reach: the release gives the reservation back if the store is back by
      // then, else its error ends the call and the reservation waits to expire. Either way nothing
      // is charged; the caller's error (the reason the stream ended) is what they must see, so the
      // charge is recorded as failed.
      await credits.release(reservation);
      await record(ctx, { ...fields, status: 'billing_failed', chargedTokens: 0, durationMs: clock.now() - started });
      return { model: request.model.id, usage: usageOfCall, chargedTokens: 0 };
    }
    return { model: request.model.id, usage: usageOfCall, chargedTokens };
  }

  /**
   * The output guardrail's check of a charged answer: a refusal still cost what the answer did,
   * and its usage record says the request failed.
   */
  async function checkChargedOutput(ctx: ModelCallContext, result: Omit<ModelCallResult, 'guardrailFindings'>) {
    try {
      return await guardrails.checkOutput(ctx.organisation, result.content);
    } catch (err) {
      noteCost(err, { model: result.modelUsed, usage: result.usage, chargedTokens: result.chargedTokens });
      await usage.markFailed(result.usageRecordId);
      throw err;
    }
  }

  return {
    /** The output guardrail over the parts of an answer a caller returns instead of it (see `guardsOwnOutput`). */
    checkOutputParts: (organisation: OrganisationRecord, parts: readonly string[]) => guardrails.checkOutputParts(organisation, parts),
    /** The input guardrail over the parts a caller builds its messages from (see `guardsOwnInput`). */
    checkInputParts: (organisation: OrganisationRecord, parts: readonly string[]) => guardrails.checkInputParts(organisation, parts),

    /** Marks the call that gave `result` failed in usage: the request it served failed after it answered. */
    async markFailed(result: Pick<ModelCallResult, 'usageRecordId'>): Promise<void> {
      await usage.markFailed(result.usageRecordId);
    },

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
      let input: Awaited<ReturnType<typeof guardrails.checkInput>>;
      try {
        input = ctx.guardsOwnInput === true ? { messages: request.messages, findings: [] } : await guardrails.checkInput(ctx.organisation, request.messages);
      } catch (err) {
        throw refused(err);
      }
      const result = await meteredCall(ctx, withMessages(request, input.messages));
      if (ctx.guardsOwnOutput === true) return guardedResult(result, result.content, input.findings);
      const output = await checkChargedOutput(ctx, result);
      return guardedResult(result, output.content, [...input.findings, ...output.findings]);
    },

    /**
     * `call`, streamed: `onDelta` receives the answer as it arrives (or whole, after the check,
     * when the output guardrail is `redact` or `block`); the result is what `call` answers.
     */
    async stream(ctx: ModelCallContext, request: ModelCallRequest, onDelta: (text: string) => void): Promise<ModelCallResult> {
      let input: Awaited<ReturnType<typeof guardrails.checkInput>>;
      try {
        input = await guardrails.checkInput(ctx.organisation, request.messages);
      } catch (err) {
        throw refused(err);
      }
      const buffered = ctx.organisation.guardrailOutputs === 'redact' || ctx.organisation.guardrailOutputs === 'block';
      const sent = withMessages(request, input.messages);
      const result = await meteredStream(ctx, sent, buffered ? () => undefined : onDelta);
      const output = await checkChargedOutput(ctx, result);
      if (buffered && output.content !== '') onDelta(output.content);
      return guardedResult(result, output.content, [...input.findings, ...output.findings]);
    },
  };
}

export type ModelCaller = ReturnType<typeof createModelCaller>;
