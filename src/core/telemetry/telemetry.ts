/**
 * What the domain reports about itself while it works: spans for tracing and events for metrics.
 * Core knows only the OpenTelemetry API and the event interface below; the composition root
 * decides whether spans are exported (an OTLP exporter) and where events go (a Prometheus
 * registry), so with both off every hook here costs a function call and nothing more.
 *
 * One AsyncLocalStorage carries a request's scope: its id, its account once known, and the span
 * that is current. Log lines read it (the logger's mixin), child spans take their parent from it,
 * and provider calls read the traceparent they pass on from it, so nothing is threaded through
 * every signature.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Attributes, type Span, SpanKind, SpanStatusCode, type Tracer, trace, INVALID_SPAN_CONTEXT } from '@opentelemetry/api';
import { isPorchError } from '../errors.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

export { SpanKind };
export type { Span, Attributes };

/** Which door a call came through: a metric label and a span attribute. */
export type Door = 'rest' | 'mcp' | 'console' | 'cli';

export interface OperationEvent {
  operation: string;
  door: Door;
  /** `OK` for an answer, else the error code (`RATE_LIMITED`, `VALIDATION_ERROR`, ...). */
  code: string;
  durationSeconds: number;
}

export interface ExecutionEvent {
  /** `composition`, `skill`, `persona`, `workflow`. */
  kind: string;
  /** The configured model id a single-call execution used; `workflow` for a workflow, whose nodes report their own. */
  model: string;
  outcome: 'succeeded' | 'failed';
  durationSeconds: number;
}

export interface ModelCallEvent {
  provider: string;
  /** The configured model id (`openai/gpt-4o-mini`), never the provider's free-form answer: labels stay bounded. */
  model: string;
  /** `OK`, or the error code the call ended with. */
  code: string;
  durationSeconds: number;
  inputTokens: number;
  outputTokens: number;
}

/** Events the domain emits; a metrics registry implements them, or nothing does. */
export interface TelemetryEvents {
  operation(event: OperationEvent): void;
  execution(event: ExecutionEvent): void;
  modelCall(event: ModelCallEvent): void;
  /** Tokens charged against the shared gateway's credits (BYOK calls charge none). */
  creditsCharged(model: string, tokens: number): void;
  sanitiserScan(findingSeverities: readonly string[]): void;
  idempotentReplay(operation: string): void;
}

export const NO_EVENTS: TelemetryEvents = {
  operation() {},
  execution() {},
  modelCall() {},
  creditsCharged() {},
  sanitiserScan() {},
  idempotentReplay() {},
};

/** What one request carries along its asynchronous path. */
export interface RequestScope {
  requestId: string;
  accountId?: string;
}

interface ScopeFrame {
  request: RequestScope | undefined;
  span: Span | undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
}

export interface TelemetryOptions {
  /** The tracer of an SDK that exports; absent, no span is recorded (the caller's trace context still passes through). */
  tracer?: Tracer | undefined;
  events?: TelemetryEvents | undefined;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts and answers go into spans only when true. */
  captureMessageContent?: boolean;
}

/** A span that records nothing: what every hook gets while tracing is off. */
const NON_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function createTelemetry(options: TelemetryOptions = {}) {
  const storage = new AsyncLocalStorage<ScopeFrame>();
  const tracer = options.tracer;
  const events = options.events ?? NO_EVENTS;

  function parentContext() {
    const parent = storage.getStore()?.span;
    return parent === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, parent);
  }

  return {
    events,
    tracing: tracer !== undefined,
    captureMessageContent: tracer !== undefined && options.captureMessageContent === true,

    /**
     * Runs `work` as one request: a root span (child of the caller's `traceparent` when it sent a
     * valid one) and the scope every log line and child span of the request reads.
     */
    request<T>(scope: RequestScope, name: string, traceparent: string | undefined, spanOptions: SpanOptions, work: (span: Span) => T): T {
      const remote = traceparent === undefined ? undefined : parseTraceparent(traceparent);
      let span: Span | undefined;
      if (tracer !== undefined) {
        const parent = remote === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
        span = tracer.startSpan(
          name,
          { kind: spanOptions.kind ?? SpanKind.SERVER, ...(spanOptions.attributes ? { attributes: spanOptions.attributes } : {}) },
          parent,
        );
      } else if (remote !== undefined) {
        // Not recording, but the caller's trace still reaches the providers and the log lines.
        span = trace.wrapSpanContext(remote);
      }
      return storage.run({ request: scope, span }, () => work(span ?? NON_RECORDING));
    },

    /** Runs `work` in a child span of the current one; ends it with `work`'s outcome. */
    async span<T>(name: string, spanOptions: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
      if (tracer === undefined) return work(NON_RECORDING);
      const frame = storage.getStore();
      const span = tracer.startSpan(
        name,
        { kind: spanOptions.kind ?? SpanKind.INTERNAL, ...(spanOptions.attributes ? { attributes: spanOptions.attributes } : {}) },
        parentContext(),
      );
      try {
        const result = await storage.run({ request: frame?.request, span }, () => work(span));
        return result;
      } catch (err) {
        recordFailure(span, err);
        throw err;
      } finally {
        span.end();
      }
    },

    /** Adds the account to the request's scope once the caller is known (log lines from then on carry it). */
    setAccount(accountId: string): void {
      const request = storage.getStore()?.request;
      if (request !== undefined) request.accountId = accountId;
      storage.getStore()?.span?.setAttribute('porch.account.id', accountId);
    },

    /** The W3C traceparent of the current span, for outbound calls; undefined outside any trace. */
    traceparent(): string | undefined {
      const context = storage.getStore()?.span?.spanContext();
      return context === undefined ? undefined : formatTraceparent(context);
    },

    /** Fields every log line of the current request carries (pino's mixin). */
    logFields(): Record<string, string> {
      const frame = storage.getStore();
      if (frame === undefined) return {};
      const fields: Record<string, string> = {};
      if (frame.request !== undefined) {
        fields.requestId = frame.request.requestId;
        if (frame.request.accountId !== undefined) fields.accountId = frame.request.accountId;
      }
      const context = frame.span?.spanContext();
      if (context !== undefined) {
        fields.traceId = context.traceId;
        fields.spanId = context.spanId;
      }
      return fields;
    },
  };
}

/**
 * Names the error's code on the span, never its message (which may quote input). Only faults
 * (5xx, or anything that is not a PorchError) mark the span as failed: a refused or invalid call
 * is the caller's problem, and a trace backend would otherwise count it as Porch's error.
 */
export function recordFailure(span: Span, err: unknown): void {
  const code = isPorchError(err) ? err.code : 'INTERNAL_ERROR';
  span.setAttribute('error.type', code);
  if (!isPorchError(err) || err.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

export type Telemetry = ReturnType<typeof createTelemetry>;
