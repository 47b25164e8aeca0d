/**
 * The domain's services wrapped with spans and metric events, applied once in createCore: the
 * services themselves stay free of telemetry, and what is measured is stated here in one place.
 */
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import { type CompletionRequest, type CompletionStreamEvent, outputTokenCap, type TokenUsage } from '../ai/ai-types.js';
import type { ExecuteNode } from '../engine/node-kinds/index.js';
import type { ExecutionHooks } from '../execution/executions.js';
import {
  type ModelCallContext,
  type ModelCaller,
  type ModelCallRequest,
  type ModelCallResult,
  refusedBeforeCalling,
  withCallScope,
} from '../execution/model-calls.js';
import type { ScanResult } from '../sanitiser/types.js';
import { isPorchError } from '../errors.js';
import { GEN_AI, inputMessagesOf, outputMessagesOf } from './gen-ai.js';
import { recordStopped, STOPPED_CODE, stoppedFromOutside } from './stopped-calls.js';
import { recordFailure, type RequestScope, type Span, SpanKind, type Telemetry, traceparentOf } from './telemetry.js';

function isCaller(value: unknown): value is Caller {
  return typeof value === 'object' && value !== null && 'account' in value && 'credential' in value;
}

function errorCodeOf(err: unknown): string {
  return isPorchError(err) ? err.code : 'INTERNAL_ERROR';
}

function secondsSince(startedAt: bigint): number {
  return Number(process.hrtime.bigint() - startedAt) / 1e9;
}

/**
 * The configured model id of the model call each caller's execution made, set when a call was
 * sent to a provider (not when it was refused before): the `model` of porch_executions_total, and
 * whether the execution started at all. A Caller is built once per request, so it names one
 * execution; a WeakMap, as model-calls.ts marks errors, holds nothing once the request is gone.
 */
const modelCalledBy = new WeakMap<Caller, string>();

/**
 * Every provider call: a CLIENT span named as the conventions say (`chat {model}`), the provider's
 * latency, tokens and failures as events, and the current traceparent passed to the provider, so
 * a trace continues into an upstream that speaks W3C Trace Context.
 */
export function instrumentAiGateway(ai: AiGateway, telemetry: Telemetry): AiGateway {
  /** The call's span name and attributes, as the conventions say; the output cap is the one the provider is sent. */
  const spanOf = (request: CompletionRequest) => {
    const provider = request.model.provider;
    const attributes = {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: provider,
      [GEN_AI.system]: provider,
      [GEN_AI.requestModel]: request.model.name,
      [GEN_AI.requestMaxTokens]: outputTokenCap(request),
      ...(request.temperature === undefined ? {} : { [GEN_AI.requestTemperature]: request.temperature }),
    };
    return { name: `chat ${request.model.name}`, options: { kind: SpanKind.CLIENT, attributes } };
  };
  /** Starts the call on `span`: its prompt recorded when asked for, and the request the provider is sent. */
  const begin = (request: CompletionRequest, span: Span): CompletionRequest => {
    if (telemetry.captureMessageContent) span.setAttribute(GEN_AI.inputMessages, JSON.stringify(inputMessagesOf(request.messages)));
    // The provider continues the trace from this call's span, or from the caller's when not recording.
    const traceparent = traceparentOf(telemetry.tracing ? span : request.scope?.span);
    return traceparent === undefined ? request : { ...request, traceparent };
  };
  /** Reports a call that answered. An answer an output guardrail checks next is not recorded: it may be what it withholds. */
  const succeeded = (
    request: CompletionRequest,
    span: Span,
    startedAt: bigint,
    answer: { content: string; modelUsed: string; usage: TokenUsage | null; finishReason?: string | undefined },
  ) => {
    const provider = request.model.provider;
    const usage = answer.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    telemetry.events.modelCall({
      provider,
      model: request.model.id,
      code: 'OK',
      durationSeconds: secondsSince(startedAt),
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
    });
    // A provider that does not say why it stopped (echo) stopped at its cap, or because it was done.
    const finishReason = answer.finishReason ?? (usage.output_tokens >= outputTokenCap(request) ? 'length' : 'stop');
    span.setAttributes({
      [GEN_AI.responseModel]: answer.modelUsed.slice(provider.length + 1) || answer.modelUsed,
      [GEN_AI.responseFinishReasons]: [finishReason],
      [GEN_AI.inputTokens]: usage.input_tokens,
      [GEN_AI.outputTokens]: usage.output_tokens,
    });
    if (telemetry.captureMessageContent && request.answerGuarded !== true) {
      span.setAttribute(GEN_AI.outputMessages, JSON.stringify(outputMessagesOf(answer.content, finishReason)));
    }
  };
  /**
   * Reports a call that ended without an answer: a failure (the error's code, the span failed for
   * a fault), or a call stopped from outside, `CANCELLED` (regression: a client that went away was
   * counted as the provider failing, and its spans marked as errors).
   */
  const failed = (request: CompletionRequest, span: Span, startedAt: bigint, err: unknown) => {
    const stopped = stoppedFromOutside(request.signal);
    telemetry.events.modelCall({
      provider: request.model.provider,
      model: request.model.id,
      code: stopped ? STOPPED_CODE : errorCodeOf(err),
      durationSeconds: secondsSince(startedAt),
      inputTokens: 0,
      outputTokens: 0,
    });
    if (stopped) recordStopped(span);
    else recordFailure(span, err);
  };

  const complete = async (request: CompletionRequest) => {
    const { name, options } = spanOf(request);
    const span = telemetry.startLeafSpan(request.scope?.span, name, options);
    const sent = begin(request, span);
    const startedAt = process.hrtime.bigint();
    try {
      const result = await ai.complete(sent);
      succeeded(request, span, startedAt, result);
      return result;
    } catch (err) {
      failed(request, span, startedAt, err);
      throw err;
    } finally {
      span.end();
    }
  };

  /** A streamed call: its span lasts as long as the stream, and ends however the stream does. */
  async function* stream(request: CompletionRequest): AsyncGenerator<CompletionStreamEvent> {
    const { name, options } = spanOf(request);
    const span = telemetry.startLeafSpan(request.scope?.span, name, options);
    const sent = begin(request, span);
    const startedAt = process.hrtime.bigint();
    let content = '';
    let usage: TokenUsage | null = null;
    let settled = false;
    try {
      for await (const event of ai.stream(sent)) {
        if (event.type === 'delta') {
          if (telemetry.captureMessageContent) content += event.text;
        } else if (event.type === 'usage') {
          usage = event.usage;
        } else {
          settled = true;
          succeeded(request, span, startedAt, { content, modelUsed: event.modelUsed, usage: event.usage ?? usage, finishReason: event.finishReason });
        }
        yield event;
      }
    } catch (err) {
      settled = true;
      failed(request, span, startedAt, err);
      throw err;
    } finally {
      // Its reader stopped before the end (the caller went away, a delta could not be sent): the
      // call did not answer, which the span and the metrics say (regression: it looked like a success).
      if (!settled) {
        telemetry.events.modelCall({
          provider: request.model.provider,
          model: request.model.id,
          code: STOPPED_CODE,
          durationSeconds: secondsSince(startedAt),
          inputTokens: 0,
          outputTokens: 0,
        });
        recordStopped(span);
      }
      span.end();
    }
  }

  return { ...ai, complete, stream };
}

/**
 * The credits each metered call charged, by model (a call on the caller's own key charges none);
 * and the request's scope handed to the provider call, whose span nests under the workflow node
 * the call serves, else under the execution.
 */
export function instrumentModelCaller(modelCaller: ModelCaller, telemetry: Telemetry): ModelCaller {
  const scoped = (ctx: ModelCallContext, request: ModelCallRequest): ModelCallRequest => {
    const scope = telemetry.scopeOf(ctx.caller);
    const nodeSpan = ctx.nodeId === null || ctx.nodeId === undefined ? undefined : scope?.nodeSpans?.get(ctx.nodeId);
    const callScope: RequestScope | undefined = scope === undefined || nodeSpan === undefined ? scope : { ...scope, span: nodeSpan };
    return callScope === undefined ? request : withCallScope(request, callScope);
  };
  const charged = (ctx: ModelCallContext, request: ModelCallRequest, result: ModelCallResult): ModelCallResult => {
    modelCalledBy.set(ctx.caller, request.model.id);
    if (result.chargedTokens > 0) telemetry.events.creditsCharged(request.model.id, result.chargedTokens);
    return result;
  };
  /** A call that failed after it was sent to a provider still started its execution. */
  const failedAfterCalling = (ctx: ModelCallContext, request: ModelCallRequest, err: unknown): unknown => {
    if (!refusedBeforeCalling(err)) modelCalledBy.set(ctx.caller, request.model.id);
    return err;
  };
  return {
    ...modelCaller,
    async call(ctx, request) {
      try {
        return charged(ctx, request, await modelCaller.call(ctx, scoped(ctx, request)));
      } catch (err) {
        throw failedAfterCalling(ctx, request, err);
      }
    },
    // Regression: streamed calls were outside the request's trace and their charges uncounted.
    async stream(ctx, request, onDelta) {
      try {
        return charged(ctx, request, await modelCaller.stream(ctx, scoped(ctx, request), onDelta));
      } catch (err) {
        throw failedAfterCalling(ctx, request, err);
      }
    },
  };
}

type ExecutionMethod = 'executeComposition' | 'executeSkill' | 'executePersona' | 'executeWorkflow';

const EXECUTION_KINDS: Readonly<Record<ExecutionMethod, string>> = {
  executeComposition: 'composition',
  executeSkill: 'skill',
  executePersona: 'persona',
  executeWorkflow: 'workflow',
};

/**
 * One span and one event per execution that started: a single-call execution reports the
 * configured id of the model it called (never the provider's answer, which may name a dated
 * snapshot: labels stay bounded and match porch_model_calls_total); a workflow reports `workflow`
 * and whether the run completed, its nodes' calls report their models. An execution refused
 * before any model was called (unknown resource, invalid input, too few credits) is not counted:
 * its refusal is counted by the operation (regression: every 400, 402 and 404 was a failed
 * execution). Nor is one stopped from outside (the client went away, the run was cancelled):
 * nothing failed, and its span says so without an error status.
 */
export function instrumentExecutions<Service extends Record<ExecutionMethod, (caller: never, id: string, ...rest: never[]) => Promise<unknown>>>(
  executions: Service,
  telemetry: Telemetry,
): Service {
  const wrapped: Partial<Record<ExecutionMethod, unknown>> = {};
  for (const method of Object.keys(EXECUTION_KINDS) as ExecutionMethod[]) {
    const kind = EXECUTION_KINDS[method];
    const original = executions[method] as (...args: unknown[]) => Promise<unknown>;
    // Every execution method takes the caller first and its hooks (with the abort signal) fourth.
    wrapped[method] = async (...args: unknown[]) => {
      const caller = isCaller(args[0]) ? args[0] : undefined;
      const signal = (args[3] as ExecutionHooks | undefined)?.signal;
      if (caller !== undefined) modelCalledBy.delete(caller);
      /** The `model` label once a model was called for it: whether a failed execution started. */
      const calledModel = () => {
        const model = caller === undefined ? undefined : modelCalledBy.get(caller);
        return model === undefined || kind !== 'workflow' ? model : kind;
      };
      const settled = await telemetry.span(
        caller === undefined ? undefined : telemetry.scopeOf(caller),
        `execute ${kind}`,
        { attributes: { 'porch.execution.kind': kind, 'porch.resource.id': String(args[1]) } },
        async (span): Promise<{ result: unknown } | { stopped: unknown }> => {
          const startedAt = process.hrtime.bigint();
          try {
            const result = (await original(...args)) as { status?: unknown; run_id?: unknown };
            if (typeof result.run_id === 'string') span.setAttribute('porch.run.id', result.run_id);
            // A workflow run its client stopped ends as failed: it was cancelled. An answer is an answer.
            if (result.status === 'failed' && stoppedFromOutside(signal)) {
              recordStopped(span);
              return { result };
            }
            const outcome = result.status === 'failed' ? 'failed' : 'succeeded';
            span.setAttribute('porch.execution.outcome', outcome);
            // A workflow without model nodes calls none, and still ran.
            const model = kind === 'workflow' ? kind : (calledModel() ?? 'unknown');
            telemetry.events.execution({ kind, model, outcome, durationSeconds: secondsSince(startedAt) });
            return { result };
          } catch (err) {
            // Returned rather than thrown, so the span is not marked failed on the way out.
            if (stoppedFromOutside(signal)) {
              recordStopped(span);
              return { stopped: err };
            }
            const model = calledModel();
            if (model !== undefined) {
              span.setAttribute('porch.execution.outcome', 'failed');
              telemetry.events.execution({ kind, model, outcome: 'failed', durationSeconds: secondsSince(startedAt) });
            }
            throw err;
          }
        },
      );
      if ('stopped' in settled) throw settled.stopped;
      return settled.result;
    };
  }
  return { ...executions, ...wrapped };
}

/** A span per workflow node, parent of the node's model call. */
export function traceNodes(executeNode: ExecuteNode, telemetry: Telemetry, scope: RequestScope | undefined): ExecuteNode {
  if (!telemetry.tracing) return executeNode;
  return async (node, resolved, ctx) => {
    const attributes = { 'porch.node.id': node.id, 'porch.node.kind': resolved.kind };
    const settled = await telemetry.nodeSpan(scope, ctx.nodeId, `workflow node ${node.id}`, { attributes }, async () => {
      try {
        return { result: await executeNode(node, resolved, ctx) };
      } catch (err) {
        if (!stoppedFromOutside(ctx.signal)) throw err;
        // A node of a run its client stopped did not fail: returned, so its span is not marked failed.
        const span = scope?.nodeSpans?.get(ctx.nodeId);
        if (span !== undefined) recordStopped(span);
        return { stopped: err };
      }
    });
    if ('stopped' in settled) throw settled.stopped;
    return settled.result;
  };
}

/** Scans and their findings by severity (the rule ids would be bounded too, but severity is what alerts need). */
export function instrumentSanitiser<Service extends { scan(organisationId: string, text: string): Promise<ScanResult> }>(
  sanitiser: Service,
  telemetry: Telemetry,
): Service {
  return {
    ...sanitiser,
    async scan(organisationId: string, text: string) {
      const result = await sanitiser.scan(organisationId, text);
      telemetry.events.sanitiserScan(result.findings.map((finding) => finding.severity));
      return result;
    },
  };
}
