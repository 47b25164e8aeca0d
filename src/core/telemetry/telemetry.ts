/**
 * What the domain reports about itself while it works: spans for tracing and events for metrics.
 * Core knows only the OpenTelemetry API and the event interface below; the composition root
 * decides whether spans are exported (an OTLP exporter) and where events go (a Prometheus
 * registry), so with both off every hook here costs a function call and nothing more.
 *
 * A request's scope (its id, its account once known, its current span) is carried explicitly,
 * not in an AsyncLocalStorage: on Node 20 an AsyncLocalStorage, once used, runs promise hooks for
 * every promise of the process, and a request makes hundreds (the store, fetch, the SDK), which
 * cost more than every other part of telemetry together (bench/RESULTS.md, Observability). The
 * doors create the scope and hand it to the invocation path; from the point the caller is known,
 * core finds it from the caller (`scopeOf`), which every service that calls a model already
 * receives, so no service signature carries it.
 */
import {
  ROOT_CONTEXT,
  type Attributes,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
  INVALID_SPAN_CONTEXT,
} from '@opentelemetry/api';
import type { Caller } from '../access/caller.js';
import { isPorchError } from '../errors.js';
import { recordStopped, stoppedFromOutside } from './stopped-calls.js';
import { formatTraceparent, formatTracestate, parseTraceparent, parseTracestate } from './traceparent.js';

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

/**
 * What one request carries along its path. `span` is the innermost span of the request's
 * sequential path (request, then operation, then execution): each of those replaces it while its
 * work runs and puts the outer one back after. Workflow nodes run side by side, so they never
 * replace it; their spans are kept by node id for their model calls to find.
 */
export interface RequestScope {
  requestId: string;
  accountId?: string;
  /** The current span, or the caller's span context when not recording; undefined outside any trace. */
  span?: Span | undefined;
  /** The door's span for the whole request, when tracing records one. */
  requestSpan?: Span | undefined;
  /** Spans of the workflow nodes running now, by node id. */
  nodeSpans?: Map<string, Span>;
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

/** W3C Trace Context as a request's headers carry it, or as a queued run keeps its request's. */
export interface TraceHeaders {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/**
 * The caller's span context, from a valid `traceparent` and, with it, a valid `tracestate`
 * (without a valid traceparent the specification has tracestate ignored); undefined for none.
 */
function remoteContextOf(headers: TraceHeaders | undefined): SpanContext | undefined {
  const remote = headers?.traceparent === undefined ? undefined : parseTraceparent(headers.traceparent);
  if (remote === undefined || headers?.tracestate === undefined) return remote;
  const traceState = parseTracestate(headers.tracestate);
  return traceState === undefined ? remote : { ...remote, traceState };
}

/** A span that records nothing: what every hook gets while tracing is off. */
const NON_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Fields every log line written for a request carries: its id, its account once known, its trace. */
export function logFieldsOf(scope: RequestScope | undefined): Record<string, string> {
  if (scope === undefined) return {};
  const fields: Record<string, string> = { requestId: scope.requestId };
  if (scope.accountId !== undefined) fields.accountId = scope.accountId;
  const context = scope.span?.spanContext();
  if (context !== undefined) {
    fields.traceId = context.traceId;
    fields.spanId = context.spanId;
  }
  return fields;
}

/** The W3C traceparent of `span`, for outbound calls; undefined outside any trace. */
export function traceparentOf(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  return context === undefined ? undefined : formatTraceparent(context);
}

/**
 * The trace's W3C tracestate, as the caller sent it, from any span of the trace (Porch writes no
 * member of its own, so each span carries the caller's list): what goes out with a traceparent.
 */
export function tracestateOf(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  return context === undefined ? undefined : formatTracestate(context);
}

/** Both W3C headers of `span`, for work that continues its trace later (a queued run); undefined outside any trace. */
export function traceHeadersOf(span: Span | undefined): { traceparent: string; tracestate?: string } | undefined {
  const traceparent = traceparentOf(span);
  if (traceparent === undefined) return undefined;
  const tracestate = tracestateOf(span);
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

export function createTelemetry(options: TelemetryOptions = {}) {
  const tracer = options.tracer;
  const events = options.events ?? NO_EVENTS;
  // A Caller is built once per request, so it identifies the request for as long as core holds it.
  const scopes = new WeakMap<Caller, RequestScope>();

  function startSpan(recording: Tracer, name: string, kind: SpanKind, spanOptions: SpanOptions, parent: Span | undefined): Span {
    const attributes = spanOptions.attributes ? { attributes: spanOptions.attributes } : {};
    return recording.startSpan(
      name,
      { kind: spanOptions.kind ?? kind, ...attributes },
      parent === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, parent),
    );
  }

  /** Runs `work` and ends `span` with its outcome, whether it throws at once or rejects later. */
  async function ended<T>(span: Span, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * Runs `work` in a child span of the scope's current one, which it becomes while `work` runs
   * (so the request's next step nests under it); ends it with `work`'s outcome.
   */
  async function span<T>(scope: RequestScope | undefined, name: string, spanOptions: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
    if (tracer === undefined) return work(NON_RECORDING);
    const parent = scope?.span;
    const child = startSpan(tracer, name, SpanKind.INTERNAL, spanOptions, parent);
    if (scope === undefined) return ended(child, () => work(child));
    scope.span = child;
    try {
      return await ended(child, () => work(child));
    } finally {
      scope.span = parent;
    }
  }

  return {
    events,
    tracing: tracer !== undefined,
    captureMessageContent: tracer !== undefined && options.captureMessageContent === true,

    /**
     * A request's scope with its root span (a child of the caller's `traceparent` when it sent a
     * valid one, carrying its `tracestate`), or, when not recording, the caller's span context
     * alone, so the caller's trace still reaches the providers and the log lines. The door ends the
     * span when it answers.
     */
    request(requestId: string, name: string, traceHeaders: TraceHeaders | undefined, spanOptions: SpanOptions): { scope: RequestScope; span: Span } {
      const remote = remoteContextOf(traceHeaders);
      let span: Span | undefined;
      if (tracer !== undefined) {
        const parent = remote === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
        span = tracer.startSpan(
          name,
          { kind: spanOptions.kind ?? SpanKind.SERVER, ...(spanOptions.attributes ? { attributes: spanOptions.attributes } : {}) },
          parent,
        );
      } else if (remote !== undefined) {
        span = trace.wrapSpanContext(remote);
      }
      return { scope: { requestId, span, requestSpan: tracer === undefined ? undefined : span }, span: span ?? NON_RECORDING };
    },

    span,

    /**
     * Runs a queued run's execution in a scope of its own, `requestId` its run id, continuing the
     * trace of the request that queued it (`queuedBy`, the headers kept with the run): a CONSUMER
     * span named `name`, a child of that request's operation span, as OpenTelemetry's messaging
     * conventions model work a consumer does later for a producer. The run's execution, nodes
     * and model calls nest under it, in the caller's trace. Not recording, the kept context
     * alone goes on to the providers and the log lines, as a request's does.
     */
    async queuedRun<T>(
      requestId: string,
      queuedBy: TraceHeaders | null,
      name: string,
      spanOptions: SpanOptions & { signal?: AbortSignal | undefined },
      work: (scope: RequestScope) => Promise<T>,
    ): Promise<T> {
      const remote = remoteContextOf(queuedBy ?? undefined);
      const parent = remote === undefined ? undefined : trace.wrapSpanContext(remote);
      if (tracer === undefined) return work({ requestId, span: parent });
      const span = startSpan(tracer, name, SpanKind.CONSUMER, spanOptions, parent);
      try {
        return await work({ requestId, span });
      } catch (err) {
        // Cancelled by its owner, or cut off by a shutdown: stopped, not failed (review: ERROR).
        if (stoppedFromOutside(spanOptions.signal)) recordStopped(span);
        else recordFailure(span, err);
        throw err;
      } finally {
        span.end();
      }
    },

    /**
     * Runs `work` in the request's own span, which gets `spanOptions.attributes` and `work`'s
     * failure, when that span is the current one; elsewhere (no request span: stdio, the CLI, or
     * tracing that records nothing) in a span of its own, as `span` does. For a call that opens no
     * span below it (a read): a child covering the same interval as the request would say nothing
     * more, and each span recorded and exported is a large share of what a short request costs.
     */
    async inRequestSpan<T>(scope: RequestScope | undefined, name: string, spanOptions: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
      const requestSpan = scope?.requestSpan;
      if (requestSpan === undefined || scope?.span !== requestSpan) return span(scope, name, spanOptions, work);
      if (spanOptions.attributes !== undefined) requestSpan.setAttributes(spanOptions.attributes);
      try {
        return await work(requestSpan);
      } catch (err) {
        recordFailure(requestSpan, err);
        throw err;
      }
    },

    /** Runs a workflow node in its span, a child of the execution's, where the node's model calls find it. */
    async nodeSpan<T>(scope: RequestScope | undefined, nodeId: string, name: string, spanOptions: SpanOptions, work: () => Promise<T>): Promise<T> {
      if (tracer === undefined) return work();
      const span = startSpan(tracer, name, SpanKind.INTERNAL, spanOptions, scope?.span);
      if (scope === undefined) return ended(span, work);
      scope.nodeSpans ??= new Map();
      scope.nodeSpans.set(nodeId, span);
      try {
        return await ended(span, work);
      } finally {
        scope.nodeSpans.delete(nodeId);
      }
    },

    /**
     * Starts a leaf span under `parent` that the caller ends (with `recordFailure` first when it
     * failed): for work that is not one promise, such as a streamed model call.
     */
    startLeafSpan(parent: Span | undefined, name: string, spanOptions: SpanOptions): Span {
      return tracer === undefined ? NON_RECORDING : startSpan(tracer, name, SpanKind.INTERNAL, spanOptions, parent);
    },

    /** Runs a leaf span (a model call) under `parent`, without touching any scope. */
    async leafSpan<T>(parent: Span | undefined, name: string, spanOptions: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
      if (tracer === undefined) return work(NON_RECORDING);
      const span = startSpan(tracer, name, SpanKind.INTERNAL, spanOptions, parent);
      return ended(span, () => work(span));
    },

    /**
     * Records who the request's caller is: the account goes into the scope (log lines and the
     * current span carry it from then on), and core finds the scope from the caller.
     */
    setCaller(scope: RequestScope | undefined, caller: Caller): void {
      if (scope === undefined) return;
      scope.accountId = caller.account.id;
      scopes.set(caller, scope);
      if (tracer !== undefined) scope.span?.setAttribute('porch.account.id', caller.account.id);
    },

    /** The scope of the request `caller` came with; undefined outside a request (stdio, maintenance). */
    scopeOf(caller: Caller): RequestScope | undefined {
      return scopes.get(caller);
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
