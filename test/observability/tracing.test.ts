/**
 * Traces as a collector receives them: an in-process OTLP/HTTP receiver gets the spans of an
 * execution and of a workflow run, which form one tree under the caller's traceparent
 * (request → operation → execution → workflow node → model call), carry the GenAI semantic
 * conventions' attributes, and hold no prompt, answer or key unless content capture is asked for.
 * The trace continues into the provider: the fake upstream records the traceparent it was sent.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { API_VERSION } from '../../src/core/health.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const FAKE_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
/** The output cap of fakeProviderAiConfig's model `fast`. */
const FAST_MAX_OUTPUT_TOKENS = 200;
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const PROVIDER_KEY = 'sk-fake-provider-key-for-tracing';
const ANSWER = 'The release notes, as the fake model wrote them.';
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;
/** OTLP's span kinds (the protocol's numbering: the API's plus one). */
const OTLP_KIND = { internal: 1, server: 2, client: 3 } as const;

let fake: FakeOpenAi;
let receiver: OtlpReceiver;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  receiver = await startOtlpReceiver();
  configDir = await mkdtemp(join(tmpdir(), 'porch-tracing-'));
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
  receiver.bodies.length = 0;
  fake.requests.length = 0;
  fake.setBehaviour({ usage: FAKE_USAGE, content: ANSWER });
});

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId);
}

function only(spans: readonly ReceivedSpan[], description: string): ReceivedSpan {
  if (spans.length !== 1) throw new Error(`expected one ${description}, got ${spans.length}: ${spans.map((span) => span.name).join(', ')}`);
  return spans[0] as ReceivedSpan;
}

/** The spans of one trace as an indented outline, for failure messages. */
function outline(spans: readonly ReceivedSpan[]): string {
  const lines: string[] = [];
  const walk = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}`);
    for (const child of childrenOf(spans, span)) walk(child, depth + 1);
  };
  for (const root of spans.filter((span) => !spans.some((other) => other.spanId === span.parentSpanId))) walk(root, 0);
  return lines.join('\n');
}

async function harnessWith(
  env: Record<string, string> = {},
): Promise<{ harness: Harness; key: string; accountId: string; organisationId: string; compositionId: string; workflowId: string }> {
  const harness = await createHarness({
    env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: PROVIDER_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...env },
  });
  const { key, accountId, organisationId } = await harness.expertWithKey({ credits: 1_000 });
  const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  const compositionId = ids['composition:release-notes'];
  const workflowId = ids['workflow:release-announcement'];
  if (compositionId === undefined || workflowId === undefined) throw new Error('the demo bundle changed');
  return { harness, key, accountId, organisationId, compositionId, workflowId };
}

describe('traces exported over OTLP/HTTP', () => {
  let harness: Harness;
  let key: string;
  let compositionId: string;
  let workflowId: string;

  beforeAll(async () => {
    ({ harness, key, compositionId, workflowId } = await harnessWith());
  });
  afterAll(() => harness.close());

  it('puts an execution under the caller’s traceparent as request → operation → execution → model call, and passes the trace to the provider', async () => {
    const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { traceparent: CALLER_TRACEPARENT },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    await harness.server.application.flushTraces();

    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID);
    const tree = outline(spans);
    const request = only(
      spans.filter((span) => span.parentSpanId === CALLER_SPAN_ID),
      `request span under the caller's span\n${tree}`,
    );
    expect(request.kind).toBe(OTLP_KIND.server);
    expect(request.name).toBe('POST /api/public/v1/compositions/{id}/execute');
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/public/v1/compositions/{id}/execute',
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'porch.door': 'rest',
    });
    // Regression: service.version held the API date, and nothing told processes apart.
    expect(request.resource).toMatchObject({
      'service.name': 'porch',
      'service.version': PACKAGE_VERSION,
      'porch.api.version': API_VERSION,
      'service.instance.id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const operation = only(childrenOf(spans, request), `operation span\n${tree}`);
    expect(operation.name).toBe('execute_composition');
    expect(operation.attributes).toMatchObject({ 'porch.operation': 'execute_composition', 'porch.door': 'rest' });
    const execution = only(
      childrenOf(spans, operation).filter((span) => span.name === 'execute composition'),
      `execution span\n${tree}`,
    );
    expect(execution.attributes).toMatchObject({ 'porch.execution.kind': 'composition', 'porch.execution.outcome': 'succeeded' });
    const call = only(childrenOf(spans, execution), `model call span\n${tree}`);
    expect(call.name).toBe('chat fast');
    expect(call.kind).toBe(OTLP_KIND.client);
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.system': 'fake',
      'gen_ai.request.model': 'fast',
      'gen_ai.response.model': 'fast',
      'gen_ai.usage.input_tokens': FAKE_USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': FAKE_USAGE.completion_tokens,
    });

    expect(fake.requests).toHaveLength(1);
    // The cap sent to the provider, the model's own when the request sets none (regression: missing then).
    expect(fake.requests[0]?.body).toMatchObject({ max_tokens: FAST_MAX_OUTPUT_TOKENS });
    expect(call.attributes['gen_ai.request.max_tokens']).toBe(FAST_MAX_OUTPUT_TOKENS);
    expect(fake.requests[0]?.headers.traceparent).toBe(`00-${CALLER_TRACE_ID}-${call.spanId}-01`);
  });

  it('gives a streamed execution its model call span, and passes the trace to the provider (regression: neither)', async () => {
    const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
      key,
      body: { variables: RELEASE_VARIABLES },
      headers: { traceparent: CALLER_TRACEPARENT, accept: 'text/event-stream' },
    });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.text).toContain('event: done');
    await harness.server.application.flushTraces();

    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID);
    const execution = only(
      spans.filter((span) => span.name === 'execute composition'),
      `execution span\n${outline(spans)}`,
    );
    const call = only(childrenOf(spans, execution), `model call span\n${outline(spans)}`);
    expect(call).toMatchObject({ name: 'chat fast', kind: OTLP_KIND.client });
    expect(call.attributes).toMatchObject({ 'gen_ai.request.model': 'fast', 'gen_ai.response.model': 'fast' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.traceparent).toBe(`00-${CALLER_TRACE_ID}-${call.spanId}-01`);
  });

  it('records a read as one span, the request’s, which names the operation and the error code of a refusal', async () => {
    const listed = await harness.api('GET', '/context-cards', { key, headers: { traceparent: CALLER_TRACEPARENT } });
    expect(listed.status, describeResponse(listed)).toBe(200);
    const missing = await harness.api('GET', '/context-cards/00000000-0000-4000-8000-000000000000', { key, headers: { traceparent: CALLER_TRACEPARENT } });
    expect(missing.status, describeResponse(missing)).toBe(404);
    await harness.server.application.flushTraces();

    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID);
    expect(
      spans.map((span) => span.parentSpanId),
      outline(spans),
    ).toEqual([CALLER_SPAN_ID, CALLER_SPAN_ID]);
    const [list, get] = spans.map((span) => span.attributes);
    expect(list).toMatchObject({ 'porch.operation': 'list_context_cards', 'porch.door': 'rest', 'http.response.status_code': 200 });
    expect(list?.['error.type']).toBeUndefined();
    expect(get).toMatchObject({ 'porch.operation': 'get_context_card', 'http.response.status_code': 404, 'error.type': 'RESOURCE_NOT_FOUND' });
  });

  it('puts an MCP tool call’s execution under its HTTP request, as the door mcp, and passes the trace to the provider', async () => {
    const connection = await connectHttp(harness, { key, headers: { traceparent: CALLER_TRACEPARENT } });
    try {
      const result = await connection.client.callTool({ name: 'execute_composition', arguments: { id: compositionId, variables: RELEASE_VARIABLES } });
      expect(result.isError, describeResult(result)).not.toBe(true);
    } finally {
      await connection.close();
    }
    await harness.server.application.flushTraces();

    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID);
    const tree = outline(spans);
    const operation = only(
      spans.filter((span) => span.name === 'execute_composition'),
      `operation span\n${tree}`,
    );
    expect(operation.attributes).toMatchObject({ 'porch.door': 'mcp' });
    const request = only(
      spans.filter((span) => span.spanId === operation.parentSpanId),
      `request span above the operation\n${tree}`,
    );
    expect(request.kind).toBe(OTLP_KIND.server);
    expect(request.attributes).toMatchObject({ 'porch.door': 'mcp', 'http.response.status_code': 200 });
    const execution = only(childrenOf(spans, operation), `execution span\n${tree}`);
    const call = only(childrenOf(spans, execution), `model call span\n${tree}`);
    expect(call.name).toBe('chat fast');
    expect(fake.requests.map((upstream) => upstream.headers.traceparent)).toEqual([`00-${CALLER_TRACE_ID}-${call.spanId}-01`]);
  });

  it('exports no prompt, answer or key by default', async () => {
    const response = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
    expect(response.status, describeResponse(response)).toBe(200);
    await harness.server.application.flushTraces();
    const exported = receiver.bodies.join('\n');
    expect(receiver.spans.some((span) => span.name === 'chat fast')).toBe(true);
    for (const secret of [RELEASE_VARIABLES.changes, 'Faster lists', ANSWER, key, PROVIDER_KEY]) expect(exported).not.toContain(secret);
    for (const span of receiver.spans) {
      expect(span.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(span.attributes['gen_ai.output.messages']).toBeUndefined();
    }
  });

  it('gives each workflow node its span, the parent of that node’s model call', async () => {
    const response = await harness.api<{ status: string }>('POST', `/workflows/${workflowId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('completed');
    await harness.server.application.flushTraces();

    const spans = receiver.spans;
    const tree = outline(spans);
    const operation = only(
      spans.filter((span) => span.name === 'execute_workflow'),
      `workflow operation span\n${tree}`,
    );
    const execution = only(
      childrenOf(spans, operation).filter((span) => span.name === 'execute workflow'),
      `workflow execution span\n${tree}`,
    );
    expect(execution.attributes['porch.run.id']).toEqual(expect.any(String));
    const nodes = childrenOf(spans, execution);
    expect(nodes.map((node) => node.name).sort(), tree).toEqual(['workflow node draft', 'workflow node plain', 'workflow node scan', 'workflow node summary']);
    for (const node of nodes) {
      const calls = childrenOf(spans, node).filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect(calls, `${node.name}\n${tree}`).toHaveLength(node.attributes['porch.node.kind'] === 'sanitise' ? 0 : 1);
    }
    expect(new Set(spans.map((span) => span.traceId)).size, tree).toBe(1);
    expect(fake.requests.map((request) => request.headers.traceparent?.slice(0, 35))).toEqual(Array(3).fill(`00-${operation.traceId}`));
  });
});

describe('traces with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', () => {
  it('carry the prompt and the answer on the model call span, as the conventions’ message schemas shape them', async () => {
    const { harness, key, accountId, compositionId } = await harnessWith({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    try {
      const response = await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
      expect(response.status, describeResponse(response)).toBe(200);
      await harness.server.application.flushTraces();
      const call = only(
        receiver.spans.filter((span) => span.name === 'chat fast'),
        'model call span',
      );
      // Regression: `[{"role":"user","content":"..."}]`, which gen-ai-input-messages.json does not allow.
      const input = JSON.parse(String(call.attributes['gen_ai.input.messages'])) as unknown;
      expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: expect.stringContaining('Faster lists') }] }]);
      const output = JSON.parse(String(call.attributes['gen_ai.output.messages'])) as unknown;
      expect(output).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finish_reason: 'stop' }]);

      // A persona's card is the system prompt: sent to the provider as a message of the history, so recorded among the input messages.
      const persona = await harness.core.contextCards.create(accountId, { title: 'Editor', content: 'You edit release notes.', category: 'persona', tags: [] });
      receiver.spans.length = 0;
      const executed = await harness.api('POST', `/personas/${persona.id}/execute`, { key, body: { input: 'Tighten this.' } });
      expect(executed.status, describeResponse(executed)).toBe(200);
      await harness.server.application.flushTraces();
      const personaCall = only(
        receiver.spans.filter((span) => span.name === 'chat fast'),
        'persona model call span',
      );
      expect(JSON.parse(String(personaCall.attributes['gen_ai.input.messages']))).toEqual([
        { role: 'system', parts: [{ type: 'text', content: 'You edit release notes.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Tighten this.' }] },
      ]);
      expect(receiver.bodies.join('\n')).not.toContain(PROVIDER_KEY);
    } finally {
      await harness.close();
    }
  });
});

describe('traces with content capture and an output guardrail that blocks or redacts', () => {
  it('carry the prompt but not the answer, which the guardrail may withhold (regression: a blocked answer was exported)', async () => {
    const { harness, key, organisationId, compositionId } = await harnessWith({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    const leaked = `Leaked: ghp_${'Z9y8X7w6V5'.repeat(3)}123456`;
    fake.setBehaviour({ usage: FAKE_USAGE, content: leaked });
    try {
      await harness.core.accounts.setOrganisationPolicy(organisationId, { guardrailOutputs: 'block' });
      for (const accept of ['application/json', 'text/event-stream']) {
        receiver.spans.length = 0;
        const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
          key,
          body: { variables: RELEASE_VARIABLES },
          headers: { accept },
        });
        expect(response.text).toContain('CONTENT_BLOCKED');
        await harness.server.application.flushTraces();
        const call = only(
          receiver.spans.filter((span) => span.name === 'chat fast'),
          `model call span (${accept})`,
        );
        expect(String(call.attributes['gen_ai.input.messages'])).toContain('Faster lists');
        expect(call.attributes['gen_ai.output.messages'], accept).toBeUndefined();
      }
      expect(receiver.bodies.join('\n')).not.toContain('Z9y8X7w6V5');
    } finally {
      await harness.close();
    }
  });
});

describe('traces with OTEL_BSP_MAX_EXPORT_BATCH_SIZE set', () => {
  it('are sent as soon as a batch of that many spans has ended, without waiting for the schedule delay', async () => {
    const { harness, key } = await harnessWith({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2', OTEL_BSP_SCHEDULE_DELAY: '600000' });
    try {
      for (let index = 0; index < 2; index++) {
        const listed = await harness.api('GET', '/context-cards', { key, headers: { traceparent: CALLER_TRACEPARENT } });
        expect(listed.status, describeResponse(listed)).toBe(200);
      }
      // No flush: with the SDK's defaults (512 spans, 5 s) nothing would arrive within waitFor's second.
      await vi.waitFor(() => expect(receiver.spans.filter((span) => span.traceId === CALLER_TRACE_ID)).toHaveLength(2));
    } finally {
      await harness.close();
    }
  });
});

describe('without an OTLP endpoint', () => {
  it('records no span, yet passes the caller’s traceparent on to the provider unchanged', async () => {
    const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: PROVIDER_KEY } });
    try {
      expect(harness.core.telemetry.tracing).toBe(false);
      const { key, accountId } = await harness.expertWithKey();
      const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
      const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { traceparent: CALLER_TRACEPARENT },
      });
      expect(response.status, describeResponse(response)).toBe(200);
      expect(fake.requests[0]?.headers.traceparent).toBe(CALLER_TRACEPARENT);
      expect(receiver.spans).toEqual([]);
    } finally {
      await harness.close();
    }
  });

  it('ignores a malformed traceparent instead of failing the request', async () => {
    const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: PROVIDER_KEY } });
    try {
      const { key, accountId } = await harness.expertWithKey();
      const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
      for (const traceparent of ['00-zz-00-01', `00-${'0'.repeat(32)}-${CALLER_SPAN_ID}-01`, `ff-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`]) {
        fake.requests.length = 0;
        const response = await harness.api('POST', `/compositions/${compositionId}/execute`, {
          key,
          body: { variables: RELEASE_VARIABLES },
          headers: { traceparent },
        });
        expect(response.status, describeResponse(response)).toBe(200);
        expect(fake.requests[0]?.headers.traceparent).toBeUndefined();
      }
    } finally {
      await harness.close();
    }
  });
});
