/**
 * W3C Trace Context carried through Porch: a run queued with `Prefer: respond-async` (or as an MCP
 * task) is one trace with the request that queued it (request → operation → the run's CONSUMER
 * span → execution → workflow nodes → model calls), and its provider calls carry that trace; a
 * caller's `tracestate` is kept on every exported span and sent on with every `traceparent`, with
 * tracing on or off, and a malformed one is dropped whole. Spans are read from an in-process OTLP
 * receiver, provider headers from the fake upstream.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import { TASKS_EXTENSION } from '../../src/mcp/tasks.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp, CURRENT_REVISION, mcpUrl, taskDispatch } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const PROVIDER_KEY = 'sk-fake-provider-key-for-trace-context';
const CALLER_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN_ID = 'b7ad6b7169203331';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;
const CALLER_TRACESTATE = 'vendor=abc,other=1';
const CALLER_HEADERS = { traceparent: CALLER_TRACEPARENT, tracestate: CALLER_TRACESTATE };
/** OTLP's span kinds (the protocol's numbering: the API's plus one). */
const OTLP_KIND = { internal: 1, server: 2, client: 3, consumer: 5 } as const;
const CLIENT_INFO = { name: 'porch-tests', version: '1.0.0' };
const WORKFLOW_NODES = ['workflow node draft', 'workflow node plain', 'workflow node scan', 'workflow node summary'];

let fake: FakeOpenAi;
let receiver: OtlpReceiver;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  receiver = await startOtlpReceiver();
  configDir = await mkdtemp(join(tmpdir(), 'porch-trace-context-'));
  configPath = join(configDir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake) }));
});

afterAll(async () => {
  await fake.close();
  await receiver.close();
  await rm(configDir, { recursive: true, force: true });
});

beforeEach(() => {
  receiver.spans.length = 0;
  fake.requests.length = 0;
  fake.setBehaviour({ usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }, content: 'Done.' });
});

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId);
}

function only(spans: readonly ReceivedSpan[], description: string): ReceivedSpan {
  if (spans.length !== 1) throw new Error(`expected one ${description}, got ${spans.length}: ${spans.map((span) => span.name).join(', ')}`);
  return spans[0] as ReceivedSpan;
}

/** Every exported span as an indented outline with its trace id, for failure messages. */
function outline(spans: readonly ReceivedSpan[]): string {
  const lines: string[] = [];
  const walk = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name} (${span.traceId})`);
    for (const child of childrenOf(spans, span)) walk(child, depth + 1);
  };
  for (const root of spans.filter((span) => !spans.some((other) => other.spanId === span.parentSpanId))) walk(root, 0);
  return lines.join('\n');
}

async function harnessWith(env: Record<string, string>): Promise<{ harness: Harness; key: string; ids: Record<string, string> }> {
  const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: PROVIDER_KEY, ...env } });
  const { key, accountId } = await harness.expertWithKey({ credits: 1_000 });
  const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  return { harness, key, ids };
}

/**
 * The queued run's spans under `operation` (the queuing request's operation span), checked as one
 * tree: a CONSUMER span, the workflow's execution, its four nodes and the three nodes' model
 * calls, every one in the caller's trace and carrying its tracestate; and each provider call was
 * sent the traceparent of its model-call span, with the tracestate.
 */
function expectQueuedRunTree(spans: readonly ReceivedSpan[], operation: ReceivedSpan, runId: string): void {
  const tree = outline(spans);
  const consumer = only(childrenOf(spans, operation), `queued run span under the operation\n${tree}`);
  expect(consumer.name).toBe('process execute_workflow');
  expect(consumer.kind).toBe(OTLP_KIND.consumer);
  expect(consumer.attributes).toMatchObject({ 'porch.operation': 'execute_workflow', 'porch.run.id': runId, 'porch.run.attempt': 1 });
  const execution = only(childrenOf(spans, consumer), `workflow execution span\n${tree}`);
  expect(execution.name).toBe('execute workflow');
  const nodes = childrenOf(spans, execution);
  expect(nodes.map((node) => node.name).sort(), tree).toEqual(WORKFLOW_NODES);
  const calls = nodes.flatMap((node) => childrenOf(spans, node));
  expect(
    calls.map((call) => call.kind),
    tree,
  ).toEqual([OTLP_KIND.client, OTLP_KIND.client, OTLP_KIND.client]);
  for (const span of [consumer, execution, ...nodes, ...calls]) {
    expect(span.traceId, `${span.name}\n${tree}`).toBe(CALLER_TRACE_ID);
    expect(span.traceState, span.name).toBe(CALLER_TRACESTATE);
  }
  expect(fake.requests.map((request) => request.headers.traceparent).sort()).toEqual(calls.map((call) => `00-${CALLER_TRACE_ID}-${call.spanId}-01`).sort());
  expect(fake.requests.map((request) => request.headers.tracestate)).toEqual(Array(3).fill(CALLER_TRACESTATE));
}

describe('a queued run, with tracing on', () => {
  let harness: Harness;
  let key: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    ({ harness, key, ids } = await harnessWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }));
  });
  afterAll(() => harness.close());

  it('is one trace with the request that queued it, down to each model call, and passes it to the provider (regression: each span began a trace)', async () => {
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/workflows/${ids['workflow:release-announcement']}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { ...CALLER_HEADERS, prefer: 'respond-async' },
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    await harness.core.runQueue.idle();
    await harness.server.application.flushTraces();

    const spans = receiver.spans;
    const tree = outline(spans);
    expect(new Set(spans.map((span) => span.traceId)), tree).toEqual(new Set([CALLER_TRACE_ID]));
    const request = only(
      spans.filter((span) => span.parentSpanId === CALLER_SPAN_ID),
      `request span under the caller's span\n${tree}`,
    );
    expect(request.kind).toBe(OTLP_KIND.server);
    const operation = only(childrenOf(spans, request), `operation span\n${tree}`);
    expect(operation.name).toBe('execute_workflow');
    expectQueuedRunTree(spans, operation, accepted.body.data.run_id);
  });

  it('ends the run span of a cancelled run as stopped, not failed (review: status ERROR)', async () => {
    fake.setBehaviour({ usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }, content: 'Done.', delayMs: 5_000 });
    const accepted = await harness.api<QueuedRunAcceptance>('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { ...CALLER_HEADERS, prefer: 'respond-async' },
    });
    expect(accepted.status, describeResponse(accepted)).toBe(202);
    await fake.waitForRequests(1);
    const cancel = await harness.api('POST', `/runs/${accepted.body.data.run_id}/cancel`, { key });
    expect(cancel.status, describeResponse(cancel)).toBe(200);
    await harness.core.runQueue.idle();
    await harness.server.application.flushTraces();
    const consumer = only(
      receiver.spans.filter((span) => span.name === 'process execute_composition'),
      `run span\n${outline(receiver.spans)}`,
    );
    expect(consumer.statusCode, 'status unset').toBe(0);
    expect(consumer.attributes['error.type']).toBe('CANCELLED');
  });

  it('is one trace with the MCP request that made it a task', async () => {
    const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    const connection = await connectHttp(harness, { key, era: 'modern', capabilities, headers: CALLER_HEADERS });
    const session = createTaskSessionFromClient(connection.client, {
      endpointId: 'porch-tests',
      rawDispatch: taskDispatch(mcpUrl(harness), () => ({ 'x-api-key': key, ...CALLER_HEADERS })),
      v2RequestFraming: { protocolVersion: CURRENT_REVISION, clientInfo: CLIENT_INFO, clientCapabilities: capabilities },
    });
    let taskId = '';
    try {
      const execution = await session.callTool('execute_workflow', { id: ids['workflow:release-announcement'] ?? '', variables: RELEASE_VARIABLES });
      expect(execution.kind).toBe('task');
      taskId = execution.kind === 'task' ? execution.handle.taskId : '';
      await harness.core.runQueue.idle();
    } finally {
      await session.close();
      await connection.close();
    }
    await harness.server.application.flushTraces();

    const spans = receiver.spans;
    const operation = only(
      spans.filter((span) => span.name === 'execute_workflow'),
      `operation span\n${outline(spans)}`,
    );
    expect(operation.attributes).toMatchObject({ 'porch.door': 'mcp' });
    expectQueuedRunTree(spans, operation, taskId);
  });
});

describe('a queued run, with tracing off', () => {
  it('passes the caller’s traceparent and tracestate on to the provider unchanged', async () => {
    const { harness, key, ids } = await harnessWith({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    try {
      expect(harness.core.telemetry.tracing).toBe(false);
      const accepted = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { ...CALLER_HEADERS, prefer: 'respond-async' },
      });
      expect(accepted.status, describeResponse(accepted)).toBe(202);
      await harness.core.runQueue.idle();
      expect(fake.requests.map((request) => [request.headers.traceparent, request.headers.tracestate])).toEqual([[CALLER_TRACEPARENT, CALLER_TRACESTATE]]);
      expect(receiver.spans).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

describe('a caller’s tracestate', () => {
  it('is on every exported span and goes to the provider with the traceparent (regression: dropped)', async () => {
    const { harness, key, ids } = await harnessWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    try {
      const response = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { ...CALLER_HEADERS, tracestate: ` ${CALLER_TRACESTATE.replace(',', ' , ,')} ` },
      });
      expect(response.status, describeResponse(response)).toBe(200);
      await harness.server.application.flushTraces();
      const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID);
      expect(spans.map((span) => span.name).sort()).toEqual([
        'POST /api/public/v1/compositions/{id}/execute',
        'chat fast',
        'execute composition',
        'execute_composition',
      ]);
      for (const span of spans) expect(span.traceState, span.name).toBe(CALLER_TRACESTATE);
      const call = only(
        spans.filter((span) => span.name === 'chat fast'),
        'model call span',
      );
      expect(fake.requests.map((request) => [request.headers.traceparent, request.headers.tracestate])).toEqual([
        [`00-${CALLER_TRACE_ID}-${call.spanId}-01`, CALLER_TRACESTATE],
      ]);
    } finally {
      await harness.close();
    }
  });

  it('goes to the provider unchanged with tracing off (no endpoint), and is dropped whole when malformed', async () => {
    const { harness, key, ids } = await harnessWith({});
    try {
      expect(harness.core.telemetry.tracing).toBe(false);
      const tooMany = Array.from({ length: 33 }, (_, index) => `k${index}=v`).join(',');
      const cases: Array<[string, string | undefined]> = [
        [CALLER_TRACESTATE, CALLER_TRACESTATE],
        ['tenant@vendor=a b', 'tenant@vendor=a b'],
        ['vendor=abc,Upper=1', undefined],
        ['vendor=abc,other=a=b', undefined],
        ['vendor=abc,vendor=def', undefined],
        ['vendor', undefined],
        [tooMany, undefined],
      ];
      for (const [tracestate, sent] of cases) {
        fake.requests.length = 0;
        const response = await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
          key,
          body: { variables: RELEASE_VARIABLES },
          headers: { traceparent: CALLER_TRACEPARENT, tracestate },
        });
        expect(response.status, describeResponse(response)).toBe(200);
        expect(fake.requests[0]?.headers.traceparent, tracestate).toBe(CALLER_TRACEPARENT);
        expect(fake.requests[0]?.headers.tracestate, tracestate).toBe(sent);
      }
      // Without a valid traceparent, the specification has tracestate ignored.
      fake.requests.length = 0;
      await harness.api('POST', `/compositions/${ids['composition:release-notes']}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { traceparent: '00-zz-00-01', tracestate: CALLER_TRACESTATE },
      });
      expect(fake.requests[0]?.headers.tracestate).toBeUndefined();
    } finally {
      await harness.close();
    }
  });
});
