/**
 * Porch's Prometheus metrics: one registry per application, built by the composition root, never
 * prom-client's global default registry (two applications in one process, as in the tests and the
 * bench, would otherwise count into each other).
 *
 * Labels are bounded sets only: operation names, doors, status and error codes, configured model
 * and provider ids, severities. Account, key, resource and request ids never become labels: one
 * series per account would grow without end and put customers' ids in the metrics store.
 * docs/operations.md lists every metric with its meaning; keep the two in step.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { ExecutionEvent, ModelCallEvent, OperationEvent, TelemetryEvents } from '../core/telemetry/telemetry.js';

/** Refusals an operator alerts on: a caller over its rate, its in-flight executions or its credits. */
const REFUSAL_CODES: ReadonlySet<string> = new Set(['RATE_LIMITED', 'DAILY_LIMIT_EXCEEDED', 'INSUFFICIENT_CREDITS', 'QUOTA_EXCEEDED']);

/**
 * Latency buckets in seconds: API answers take milliseconds, model calls seconds; one set covers
 * both from 5 ms to 2 minutes, so quantiles of either are meaningful without a bucket per series kind.
 */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** How often the event-loop lag is sampled, in milliseconds (see createMetrics). */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Store transactions are far shorter than requests. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event-loop lag, GC); off in tests that count exact series. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  // The event-loop lag histogram samples every 100 ms rather than prom-client's 10 ms: its timer
  // wakes the process at that rate whether or not it serves anything (at 10 ms, 4.3 ms of CPU per
  // second on an idle process in bench/RESULTS.md), and ten samples a second are plenty for the
  // lag percentiles of one scrape interval.
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];

  const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[]) => new Counter({ name, help, labelNames, registers });
  const histogram = <Label extends string>(name: string, help: string, labelNames: readonly Label[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers });

  const httpRequests = counter('porch_http_requests_total', 'HTTP requests answered, by door (rest, mcp, console, oauth, site, operations) and status code.', [
    'door',
    'status',
  ]);
  const httpDuration = histogram(
    'porch_http_request_duration_seconds',
    'Time from a request arriving to its answer being sent, by door.',
    ['door'],
    LATENCY_BUCKETS,
  );
  const operationCalls = counter(
    'porch_operation_calls_total',
    'Operation calls, by operation, door (rest, mcp, console) and outcome code (OK or the error code).',
    ['operation', 'door', 'code'],
  );
  const operationDuration = histogram(
    'porch_operation_duration_seconds',
    'Time an operation call took, from authentication to its answer, by operation and door.',
    ['operation', 'door'],
    LATENCY_BUCKETS,
  );
  const refusals = counter(
    'porch_refusals_total',
    'Calls refused for a caller limit: RATE_LIMITED (per-minute rate or in-flight executions), DAILY_LIMIT_EXCEEDED, INSUFFICIENT_CREDITS, QUOTA_EXCEEDED.',
    ['code'],
  );
  const executions = counter(
    'porch_executions_total',
    'Executions, by kind (composition, skill, persona, workflow), model (workflow for workflows) and outcome.',
    ['kind', 'model', 'outcome'],
  );
  const executionDuration = histogram('porch_execution_duration_seconds', 'Time an execution took, model calls included, by kind.', ['kind'], LATENCY_BUCKETS);
  const modelCalls = counter(
    'porch_model_calls_total',
    'Calls to model providers (echo included), by provider, model and outcome code (OK, AI_SERVICE_ERROR, BYOK_KEY_INVALID, ...).',
    ['provider', 'model', 'code'],
  );
  const modelCallDuration = histogram(
    'porch_model_call_duration_seconds',
    "A provider's latency: one completion, its retries included, by provider and model.",
    ['provider', 'model'],
    LATENCY_BUCKETS,
  );
  const modelTokens = counter('porch_model_tokens_total', 'Tokens providers reported, by model and direction (input, output).', ['model', 'direction']);
  const chargedTokens = counter('porch_charged_tokens_total', "Tokens charged against accounts' credits, by model (calls on a caller's own key charge none).", [
    'model',
  ]);
  const sanitiserScans = counter('porch_sanitiser_scans_total', 'Texts the sanitiser scanned.', []);
  const sanitiserFindings = counter('porch_sanitiser_findings_total', 'Sanitiser findings, by rule severity.', ['severity']);
  const idempotentReplays = counter(
    'porch_idempotent_replays_total',
    'Answers replayed for a repeated Idempotency-Key instead of running the operation again, by operation.',
    ['operation'],
  );
  const storeTransactions = histogram(
    'porch_store_transaction_duration_seconds',
    'Time the store took for a check-and-update transaction (rate window, credit reservation and settlement, idempotency claim, in-flight slot), by call (credits.reserve, ...).',
    ['call'],
    STORE_BUCKETS,
  );

  const droppedSpans = counter(
    'porch_trace_spans_dropped_total',
    'Spans never sent to the OTLP receiver: it refused them, failed, timed out or could not be reached, or they were unsent when the process stopped.',
    [],
  );

  const events: TelemetryEvents = {
    operation({ operation, door, code, durationSeconds }: OperationEvent) {
      operationCalls.inc({ operation, door, code });
      operationDuration.observe({ operation, door }, durationSeconds);
      if (REFUSAL_CODES.has(code)) refusals.inc({ code });
    },
    execution({ kind, model, outcome, durationSeconds }: ExecutionEvent) {
      executions.inc({ kind, model, outcome });
      executionDuration.observe({ kind }, durationSeconds);
    },
    modelCall({ provider, model, code, durationSeconds, inputTokens, outputTokens }: ModelCallEvent) {
      modelCalls.inc({ provider, model, code });
      modelCallDuration.observe({ provider, model }, durationSeconds);
      if (inputTokens > 0) modelTokens.inc({ model, direction: 'input' }, inputTokens);
      if (outputTokens > 0) modelTokens.inc({ model, direction: 'output' }, outputTokens);
    },
    creditsCharged(model: string, tokens: number) {
      chargedTokens.inc({ model }, tokens);
    },
    sanitiserScan(findingSeverities: readonly string[]) {
      sanitiserScans.inc();
      for (const severity of findingSeverities) sanitiserFindings.inc({ severity });
    },
    idempotentReplay(operation: string) {
      idempotentReplays.inc({ operation });
    },
  };

  return {
    registry,
    events,
    /** One answered HTTP request; `door` is where its path leads. */
    httpRequest(door: string, status: number, durationSeconds: number) {
      httpRequests.inc({ door, status: String(status) });
      httpDuration.observe({ door }, durationSeconds);
    },
    storeTransaction(call: string, durationSeconds: number) {
      storeTransactions.observe({ call }, durationSeconds);
    },
    /** Spans tracing could not send (only ever counted with tracing on). */
    spansDropped(spans: number) {
      droppedSpans.inc(spans);
    },
    /** The Prometheus text exposition of every metric. */
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
