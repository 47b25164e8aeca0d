/**
 * The domain's services wrapped with spans and metric events, applied once in createCore: the
 * services themselves stay free of telemetry, and what is measured is stated here in one place.
 */
import type { Caller } from '../access/caller.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { CompletionRequest, CompletionStreamEvent, TokenUsage } from '../ai/ai-types.js';
import type { ExecuteNode } from '../engine/node-kinds/index.js';
import { type ModelCallContext, type ModelCaller, type ModelCallRequest, type ModelCallResult, withCallScope } from '../execution/model-calls.js';
import type { ScanResult } from '../sanitiser/types.js';
import { isPorchError } from '../errors.js';
import { GEN_AI } from './gen-ai.js';
import { recordFailure, type RequestScope, type Span, SpanKind, type Telemetry, traceparentOf } from './telemetry.js';

function isCaller(value: unknown): value is Caller {
  return typeof value === 'object' && value !== null && 'account' in value && 'credential' in value;
}

function errorCodeOf(err: unknown): string {
  if (err === STREAM_ABANDONED) return STREAM_ABANDONED.code;
  return isPorchError(err) ? err.code : 'INTERNAL_ERROR';
}

function secondsSince(startedAt: bigint): number {
  return Number(process.hrtime.bigint() - startedAt) / 1e9;
}

/**
 * Every provider call: a CLIENT span named as the conventions say (`chat {model}`), the provider's
 * latency, tokens and failures as events, and the current traceparent passed to the provider, so
 * a trace continues into an upstream that speaks W3C Trace Context.
 */
/** What a streamed call whose reader stopped before its end is reported as: not a fault of the provider's or Porch's. */
const STREAM_ABANDONED = { code: 'CANCELLED' } as const;

export function instrumentAiGateway(ai: AiGateway, telemetry: Telemetry): AiGateway {
  /** The call's span name and attributes, as the conventions say. */
  const spanOf = (request: CompletionRequest) => {
    const provider = request.model.provider;
    const attributes = {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: provider,
      [GEN_AI.system]: provider,
      [GEN_AI.requestModel]: request.model.name,
      ...(request.temperature === undefined ? {} : { [GEN_AI.requestTemperature]: request.temperature }),
      ...(request.maxOutputTokens === undefined ? {} : { [GEN_AI.requestMaxTokens]: request.maxOutputTokens }),
    };
    return { name: `chat ${request.model.name}`, options: { kind: SpanKind.CLIENT, attributes } };
  };
  /** Starts the call on `span`: its prompt recorded when asked for, and the request the provider is sent. */
  const begin = (request: CompletionRequest, span: Span): CompletionRequest => {
    if (telemetry.captureMessageContent) span.setAttribute(GEN_AI.inputMessages, JSON.stringify(request.messages));
    // The provider continues the trace from this call's span, or from the caller's when not recording.
    const traceparent = traceparentOf(telemetry.tracing ? span : request.scope?.span);
    return traceparent === undefined ? request : { ...request, traceparent };
  };
  /** Reports a call that answered. An answer an output guardrail checks next is not recorded: it may be what it withholds. */
  const succeeded = (request: CompletionRequest, span: Span, startedAt: bigint, answer: { content: string; modelUsed: string; usage: TokenUsage | null }) => {
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
    span.setAttributes({
      [GEN_AI.responseModel]: answer.modelUsed.slice(provider.length + 1) || answer.modelUsed,
      [GEN_AI.inputTokens]: usage.input_tokens,
      [GEN_AI.outputTokens]: usage.output_tokens,
    });
    if (telemetry.captureMessageContent && request.answerGuarded !== true) {
      span.setAttribute(GEN_AI.outputMessages, JSON.stringify([{ role: 'assistant', content: answer.content }]));
    }
  };
  const failed = (request: CompletionRequest, startedAt: bigint, err: unknown) => {
    telemetry.events.modelCall({
      provider: request.model.provider,
      model: request.model.id,
      code: errorCodeOf(err),
      durationSeconds: secondsSince(startedAt),
      inputTokens: 0,
      outputTokens: 0,
    });
  };

  const complete = (request: CompletionRequest) => {
    const { name, options } = spanOf(request);
    return telemetry.leafSpan(request.scope?.span, name, options, async (span: Span) => {
      const sent = begin(request, span);
      const startedAt = process.hrtime.bigint();
      try {
        const result = await ai.complete(sent);
        succeeded(request, span, startedAt, result);
        return result;
      } catch (err) {
        failed(request, startedAt, err);
        throw err;
      }
    });
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
          succeeded(request, span, startedAt, { content, modelUsed: event.modelUsed, usage: event.usage ?? usage });
        }
        yield event;
      }
    } catch (err) {
      settled = true;
      failed(request, startedAt, err);
      recordFailure(span, err);
      throw err;
    } finally {
      // Its reader stopped before the end (the caller went away, a delta could not be sent): the
      // call did not answer, which the span and the metrics say (regression: it looked like a success).
      if (!settled) {
        failed(request, startedAt, STREAM_ABANDONED);
        span.setAttribute('error.type', STREAM_ABANDONED.code);
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
  const charged = (request: ModelCallRequest, result: ModelCallResult): ModelCallResult => {
    if (result.chargedTokens > 0) telemetry.events.creditsCharged(request.model.id, result.chargedTokens);
    return result;
  };
  return {
    ...modelCaller,
    async call(ctx, request) {
      return charged(request, await modelCaller.call(ctx, scoped(ctx, request)));
    },
    // Regression: streamed calls were outside the request's trace and their charges uncounted.
    async stream(ctx, request, onDelta) {
      return charged(request, await modelCaller.stream(ctx, scoped(ctx, request), onDelta));
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
 * One span and one event per execution. A single-call execution reports the model it used; a
 * workflow reports `workflow` and whether the run completed, its nodes' calls report their models.
 */
export function instrumentExecutions<Service extends Record<ExecutionMethod, (caller: never, id: string, ...rest: never[]) => Promise<unknown>>>(
  executions: Service,
  telemetry: Telemetry,
): Service {
  const wrapped: Partial<Record<ExecutionMethod, unknown>> = {};
  // Every execution method takes the caller first.
  const scopeOfCaller = (caller: unknown) => (isCaller(caller) ? telemetry.scopeOf(caller) : undefined);
  for (const method of Object.keys(EXECUTION_KINDS) as ExecutionMethod[]) {
    const kind = EXECUTION_KINDS[method];
    const original = executions[method] as (...args: unknown[]) => Promise<unknown>;
    wrapped[method] = (...args: unknown[]) =>
      telemetry.span(
        scopeOfCaller(args[0]),
        `execute ${kind}`,
        { attributes: { 'porch.execution.kind': kind, 'porch.resource.id': String(args[1]) } },
        async (span) => {
          const startedAt = process.hrtime.bigint();
          try {
            const result = (await original(...args)) as { model_used?: unknown; status?: unknown; run_id?: unknown };
            const model = typeof result.model_used === 'string' ? result.model_used : kind;
            const outcome = result.status === 'failed' ? 'failed' : 'succeeded';
            if (typeof result.run_id === 'string') span.setAttribute('porch.run.id', result.run_id);
            span.setAttribute('porch.execution.outcome', outcome);
            telemetry.events.execution({ kind, model, outcome, durationSeconds: secondsSince(startedAt) });
            return result;
          } catch (err) {
            telemetry.events.execution({ kind, model: kind === 'workflow' ? kind : 'unknown', outcome: 'failed', durationSeconds: secondsSince(startedAt) });
            throw err;
          }
        },
      );
  }
  return { ...executions, ...wrapped };
}

/** A span per workflow node, parent of the node's model call. */
export function traceNodes(executeNode: ExecuteNode, telemetry: Telemetry, scope: RequestScope | undefined): ExecuteNode {
  if (!telemetry.tracing) return executeNode;
  return (node, resolved, ctx) =>
    telemetry.nodeSpan(scope, ctx.nodeId, `workflow node ${node.id}`, { attributes: { 'porch.node.id': node.id, 'porch.node.kind': resolved.kind } }, () =>
      executeNode(node, resolved, ctx),
    );
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
