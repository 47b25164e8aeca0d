/**
 * A client that goes away while its execution waits on the model (a closed tab, a `curl -m 1`):
 * the call is stopped, which is nobody's failure. Regression: it was counted as the provider
 * failing (porch_model_calls_total, porch_operation_calls_total and porch_executions_total), logged
 * as a provider-failure warning and traced as an error, while the request itself got no access
 * line, no HTTP metric, and a server span that was never exported.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { describeSamples, parsePrometheusText, sampleValue, type PrometheusSample } from '../helpers/prometheus-text.js';

const METRICS_TOKEN = 'metrics-token-for-the-client-closed-test';
/** OTLP's span status code for an error. */
const STATUS_ERROR = 2;
/** Longer than the test: the upstream answers only once the client is long gone. */
const SLOW_UPSTREAM_MS = 60_000;

let fake: FakeOpenAi;
let receiver: OtlpReceiver;
let configDir: string;
let server: RunningServer;
let key: string;
let compositionId: string;
let workflowId: string;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  fake = await startFakeOpenAi();
  receiver = await startOtlpReceiver();
  configDir = await mkdtemp(join(tmpdir(), 'porch-client-closed-'));
  const configPath = join(configDir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake) }));
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PORT: '0',
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'info',
    PORCH_CONFIG: configPath,
    FAKE_PROVIDER_KEY: 'sk-fake-client-closed',
    PORCH_METRICS_TOKEN: METRICS_TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  });
  server = await startServer(config, { logDestination: destination, processMetrics: false });
  const helpers = accountHelpers(server.application.core);
  const account = await helpers.expertWithKey({ credits: 1_000 });
  key = account.key;
  const { ids } = await server.application.core.bundles.importBundle(account.accountId, DEMO_BUNDLE);
  const composition = ids['composition:release-notes'];
  const workflow = ids['workflow:release-announcement'];
  if (composition === undefined || workflow === undefined) throw new Error('the demo bundle changed');
  compositionId = composition;
  workflowId = workflow;
  fake.setBehaviour({ delayMs: SLOW_UPSTREAM_MS });
});

afterAll(async () => {
  await server.close();
  await fake.close();
  await receiver.close();
  await rm(configDir, { recursive: true, force: true });
});

async function scrape(): Promise<PrometheusSample[]> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return parsePrometheusText(await response.text());
}

/** The path of what is executed: the demo's composition, or its workflow. */
function executePath(kind: 'composition' | 'workflow'): string {
  return kind === 'composition' ? `/api/public/v1/compositions/${compositionId}/execute` : `/api/public/v1/workflows/${workflowId}/execute`;
}

/** Sends an execution, and goes away once the upstream has its (first) call. */
async function executeAndLeave(kind: 'composition' | 'workflow', traceId: string, accept: string): Promise<void> {
  const requestsBefore = fake.requests.length;
  const controller = new AbortController();
  const sent = fetch(`${server.url}${executePath(kind)}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ variables: RELEASE_VARIABLES }),
    signal: controller.signal,
  }).then((response) => response.text());
  await fake.waitForRequests(requestsBefore + 1);
  controller.abort();
  await expect(sent).rejects.toThrow();
}

describe.each([
  ['a composition’s JSON answer', 'composition', 'application/json', '4bf92f3577b34da6a3ce929d0e0e4701'],
  ['a composition’s event stream', 'composition', 'text/event-stream', '4bf92f3577b34da6a3ce929d0e0e4702'],
  ['a workflow run', 'workflow', 'application/json', '4bf92f3577b34da6a3ce929d0e0e4703'],
] as const)('a client that goes away while waiting for %s', (_name, kind, accept, traceId) => {
  let samples: PrometheusSample[];
  const operation = `execute_${kind}`;

  beforeAll(async () => {
    const cancelledBefore = sampleValue(await scrape(), 'porch_operation_calls_total', { operation, door: 'rest', code: 'CANCELLED' });
    await executeAndLeave(kind, traceId, accept);
    // The stopped call settles on the server after the client is gone.
    await vi.waitFor(
      async () => {
        samples = await scrape();
        expect(
          sampleValue(samples, 'porch_operation_calls_total', { operation, door: 'rest', code: 'CANCELLED' }),
          ['porch_operation_calls_total', 'porch_model_calls_total', 'porch_executions_total', 'porch_http_requests_total']
            .map((n) => describeSamples(samples, n))
            .join('\n'),
        ).toBeGreaterThan(cancelledBefore);
      },
      { timeout: 5_000, interval: 20 },
    );
    await server.application.flushTraces();
  });

  it('counts the call as CANCELLED, not as a provider, operation or execution failure', () => {
    const message = ['porch_model_calls_total', 'porch_operation_calls_total', 'porch_executions_total']
      .map((name) => describeSamples(samples, name))
      .join('\n');
    const failures = samples.filter(
      (sample) =>
        (sample.name === 'porch_model_calls_total' || sample.name === 'porch_operation_calls_total') &&
        sample.labels.code !== 'OK' &&
        sample.labels.code !== 'CANCELLED',
    );
    expect(failures, message).toEqual([]);
    expect(sampleValue(samples, 'porch_model_calls_total', { provider: 'fake', model: 'fake/fast', code: 'CANCELLED' }), message).toBeGreaterThan(0);
    expect(
      samples.filter((sample) => sample.name === 'porch_executions_total' && sample.labels.outcome === 'failed'),
      message,
    ).toEqual([]);
  });

  it('writes the request’s access line and HTTP metric with status 499, and no provider-failure warning', async () => {
    await vi.waitFor(() => expect(lines.some((line) => line.msg === 'request' && line.traceId === traceId)).toBe(true));
    const ofTrace = lines.filter((line) => line.traceId === traceId);
    const access = ofTrace.find((line) => line.msg === 'request');
    expect(access, JSON.stringify(ofTrace)).toMatchObject({ status: 499, path: executePath(kind) });
    expect(
      ofTrace.filter((line) => Number(line.level) >= 40),
      JSON.stringify(ofTrace),
    ).toEqual([]);
    expect(
      sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status: '499' }),
      describeSamples(samples, 'porch_http_requests_total'),
    ).toBeGreaterThan(0);
  });

  it('exports the request’s server span, and marks none of its spans as failed', () => {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const outline = spans.map((span) => `${span.name} status=${span.statusCode} error.type=${String(span.attributes['error.type'])}`).join('\n');
    const request = spans.find((span) => span.attributes['http.request.method'] === 'POST');
    expect(request, outline).toBeDefined();
    expect(request?.attributes['error.type'], outline).toBe('CANCELLED');
    expect(
      spans.filter((span) => span.statusCode === STATUS_ERROR),
      outline,
    ).toEqual([]);
    for (const name of [operation, `execute ${kind}`, 'chat fast']) {
      expect(spans.find((span) => span.name === name)?.attributes['error.type'], `${name}\n${outline}`).toBe('CANCELLED');
    }
    // Every span's parent arrived (regression: the children pointed at a server span never exported).
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans) if (span !== request) expect(ids.has(span.parentSpanId ?? ''), outline).toBe(true);
  });
});

describe('an MCP client that goes away while its tool call waits for the model', () => {
  it('counts the call as CANCELLED, not as a provider failure (review: the SDK aborts without CallStopped)', async () => {
    const before = await scrape();
    const cancelledBefore = sampleValue(before, 'porch_model_calls_total', { provider: 'fake', model: 'fake/fast', code: 'CANCELLED' });
    const requestsBefore = fake.requests.length;
    const controller = new AbortController();
    const sent = fetch(`${server.url}/api/public/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'execute_composition', arguments: { id: compositionId, variables: RELEASE_VARIABLES } },
      }),
      signal: controller.signal,
    }).then((response) => response.text());
    await fake.waitForRequests(requestsBefore + 1);
    controller.abort();
    await expect(sent).rejects.toThrow();
    await vi.waitFor(
      async () => {
        const samples = await scrape();
        expect(sampleValue(samples, 'porch_model_calls_total', { provider: 'fake', model: 'fake/fast', code: 'CANCELLED' })).toBeGreaterThan(cancelledBefore);
      },
      { timeout: 5_000, interval: 20 },
    );
    const samples = await scrape();
    expect(
      samples.filter((sample) => sample.name === 'porch_model_calls_total' && sample.labels.code === 'AI_SERVICE_ERROR'),
      describeSamples(samples, 'porch_model_calls_total'),
    ).toEqual([]);
  });
});
