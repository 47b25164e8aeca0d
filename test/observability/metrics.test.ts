/**
 * GET /metrics after a scripted mix of calls (REST and MCP, answers and refusals, executions on
 * the echo model and through a fake OpenAI-compatible upstream): every counter has exactly the
 * value the script implies, labels carry no account or key id, and the endpoint is served only
 * with its token (main port) or on its own loopback port.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { connectHttp } from '../helpers/mcp-client.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { describeSamples, parsePrometheusText, sampleValue, type PrometheusSample } from '../helpers/prometheus-text.js';

const METRICS_TOKEN = 'metrics-token-for-the-test-0123456789';
const FAKE_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

let fake: FakeOpenAi;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  configDir = await mkdtemp(join(tmpdir(), 'porch-metrics-'));
  configPath = join(configDir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake), metrics: { port: 0 } }));
});

afterAll(async () => {
  await fake.close();
  await rm(configDir, { recursive: true, force: true });
});

async function scrape(url: string, token?: string): Promise<{ status: number; text: string; contentType: string | null }> {
  const response = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') };
}

describe('GET /metrics after a scripted mix of calls', () => {
  let harness: Harness;
  let samples: PrometheusSample[];
  let text: string;
  let ids: string[];

  beforeAll(async () => {
    harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-metrics', PORCH_METRICS_TOKEN: METRICS_TOKEN } });
    const { key, accountId, keyId } = await harness.expertWithKey({ credits: 1_000 });
    const imported = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const compositionId = imported.ids['composition:release-notes'];
    if (compositionId === undefined) throw new Error('the demo bundle has no release-notes composition');
    ids = [accountId, keyId, compositionId];

    // REST: one list, one refused for a missing key, one for a bad body.
    expect((await harness.api('GET', '/context-cards', { key })).status).toBe(200);
    expect((await harness.api('GET', '/context-cards')).status).toBe(401);
    expect((await harness.api('POST', '/context-cards', { key, body: { title: 42 } })).status).toBe(400);
    // Executions: echo, the fake upstream (succeeding, then failing).
    const execute = `/compositions/${compositionId}/execute`;
    // The echo execution is sent twice with one Idempotency-Key: the second answer is a replay.
    for (let attempt = 0; attempt < 2; attempt++) {
      const echo = await harness.api('POST', execute, {
        key,
        body: { variables: RELEASE_VARIABLES, model: 'echo/echo' },
        headers: { 'idempotency-key': 'metrics-echo-1' },
      });
      expect(echo.status, describeResponse(echo)).toBe(200);
    }
    fake.setBehaviour({ usage: FAKE_USAGE });
    const upstream = await harness.api('POST', execute, { key, body: { variables: RELEASE_VARIABLES } });
    expect(upstream.status, describeResponse(upstream)).toBe(200);
    fake.setBehaviour({ status: 500 });
    const failed = await harness.api('POST', execute, { key, body: { variables: RELEASE_VARIABLES } });
    expect(failed.status, describeResponse(failed)).toBe(500);
    fake.setBehaviour({});
    // The sanitiser: one text with an e-mail address.
    const scan = await harness.api('POST', '/sanitiser/scan', { key, body: { text: 'Write to jane.doe@example.com today.' } });
    expect(scan.status, describeResponse(scan)).toBe(200);
    // MCP: one tool call answered, one refused by validation.
    const mcp = await connectHttp(harness, { key });
    try {
      const listed = await mcp.client.callTool({ name: 'list_context_cards', arguments: {} });
      expect(listed.isError).not.toBe(true);
      const refused = await mcp.client.callTool({ name: 'get_context_card', arguments: { id: 42 } });
      expect(refused.isError).toBe(true);
    } finally {
      await mcp.close();
    }

    const scraped = await scrape(`${harness.url}/metrics`, METRICS_TOKEN);
    expect(scraped.status, scraped.text).toBe(200);
    expect(scraped.contentType).toContain('text/plain');
    text = scraped.text;
    samples = parsePrometheusText(text);
  });

  afterAll(() => harness.close());

  it('counts each operation call by operation, door and outcome code', () => {
    const calls = (labels: Record<string, string>) => sampleValue(samples, 'porch_operation_calls_total', labels);
    const message = describeSamples(samples, 'porch_operation_calls_total');
    expect(calls({ operation: 'list_context_cards', door: 'rest', code: 'OK' }), message).toBe(1);
    expect(calls({ operation: 'list_context_cards', door: 'rest', code: 'MISSING_API_KEY' }), message).toBe(1);
    expect(calls({ operation: 'create_context_card', door: 'rest', code: 'VALIDATION_ERROR' }), message).toBe(1);
    expect(calls({ operation: 'execute_composition', door: 'rest', code: 'OK' }), message).toBe(3);
    expect(calls({ operation: 'execute_composition', door: 'rest', code: 'AI_SERVICE_ERROR' }), message).toBe(1);
    expect(calls({ operation: 'scan_text', door: 'rest', code: 'OK' }), message).toBe(1);
    expect(calls({ operation: 'list_context_cards', door: 'mcp', code: 'OK' }), message).toBe(1);
    expect(calls({ operation: 'get_context_card', door: 'mcp', code: 'VALIDATION_ERROR' }), message).toBe(1);
    const total = samples.filter((sample) => sample.name === 'porch_operation_calls_total').reduce((sum, sample) => sum + sample.value, 0);
    expect(total, message).toBe(10);
    expect(sampleValue(samples, 'porch_operation_duration_seconds_count', { operation: 'execute_composition', door: 'rest' })).toBe(4);
  });

  it('counts executions by kind, model and outcome, and model calls by provider, model and code', () => {
    const message = `${describeSamples(samples, 'porch_executions_total')}\n${describeSamples(samples, 'porch_model_calls_total')}`;
    expect(sampleValue(samples, 'porch_executions_total', { kind: 'composition', model: 'echo/echo', outcome: 'succeeded' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_executions_total', { kind: 'composition', model: 'fake/fast', outcome: 'succeeded' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_executions_total', { kind: 'composition', model: 'fake/fast', outcome: 'failed' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_model_calls_total', { provider: 'echo', model: 'echo/echo', code: 'OK' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_model_calls_total', { provider: 'fake', model: 'fake/fast', code: 'OK' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_model_calls_total', { provider: 'fake', model: 'fake/fast', code: 'AI_SERVICE_ERROR' }), message).toBe(1);
    expect(sampleValue(samples, 'porch_model_call_duration_seconds_count', { provider: 'fake', model: 'fake/fast' })).toBe(2);
  });

  it('counts the tokens the upstream reported and the tokens charged', () => {
    const message = `${describeSamples(samples, 'porch_model_tokens_total')}\n${describeSamples(samples, 'porch_charged_tokens_total')}`;
    expect(sampleValue(samples, 'porch_model_tokens_total', { model: 'fake/fast', direction: 'input' }), message).toBe(FAKE_USAGE.prompt_tokens);
    expect(sampleValue(samples, 'porch_model_tokens_total', { model: 'fake/fast', direction: 'output' }), message).toBe(FAKE_USAGE.completion_tokens);
    expect(sampleValue(samples, 'porch_charged_tokens_total', { model: 'fake/fast' }), message).toBe(FAKE_USAGE.total_tokens);
  });

  it('counts the replay, the scan and its finding, HTTP answers by door and status, and store transactions', () => {
    expect(sampleValue(samples, 'porch_idempotent_replays_total', { operation: 'execute_composition' })).toBe(1);
    expect(sampleValue(samples, 'porch_sanitiser_scans_total')).toBe(1);
    expect(sampleValue(samples, 'porch_sanitiser_findings_total', { severity: 'warn' }), describeSamples(samples, 'porch_sanitiser_findings_total')).toBe(1);
    const http = describeSamples(samples, 'porch_http_requests_total');
    expect(sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status: '200' }), http).toBe(5);
    expect(sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status: '401' }), http).toBe(1);
    expect(sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status: '400' }), http).toBe(1);
    expect(sampleValue(samples, 'porch_http_requests_total', { door: 'rest', status: '500' }), http).toBe(1);
    expect(
      samples.some((sample) => sample.name === 'porch_http_requests_total' && sample.labels.door === 'mcp'),
      http,
    ).toBe(true);
    expect(sampleValue(samples, 'porch_store_transaction_duration_seconds_count', { call: 'credits.reserve' })).toBe(3);
    expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total')).toBe(true);
  });

  it('names no account, key or resource id anywhere', () => {
    for (const id of ids) expect(text).not.toContain(id);
  });

  it('answers 401 without the token or with a wrong one, and serves the same registry on metrics.port', async () => {
    expect((await scrape(`${harness.url}/metrics`)).status).toBe(401);
    expect((await scrape(`${harness.url}/metrics`, `${METRICS_TOKEN}x`)).status).toBe(401);
    const metricsServer = harness.server.metricsServer;
    if (metricsServer === null) throw new Error('metrics.port was set, yet no metrics server started');
    expect(metricsServer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const loopback = await scrape(`${metricsServer.url}/metrics`);
    expect(loopback.status).toBe(200);
    expect(sampleValue(parsePrometheusText(loopback.text), 'porch_idempotent_replays_total', { operation: 'execute_composition' })).toBe(1);
  });
});

describe('porch_executions_total', () => {
  it('names the configured model, never the provider’s answer (regression: "fake/gpt-snap-2024", unbounded and not joinable)', async () => {
    const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-metrics', PORCH_METRICS_TOKEN: METRICS_TOKEN } });
    try {
      const { key, accountId } = await harness.expertWithKey({ credits: 1_000 });
      const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
      fake.setBehaviour({ usage: FAKE_USAGE, model: 'gpt-snap-2024' });
      const response = await harness.api<{ model_used: string }>('POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
      });
      expect(response.status, describeResponse(response)).toBe(200);
      expect(response.body.data.model_used).toBe('fake/gpt-snap-2024');
      const samples = parsePrometheusText((await scrape(`${harness.url}/metrics`, METRICS_TOKEN)).text);
      const message = describeSamples(samples, 'porch_executions_total');
      expect(sampleValue(samples, 'porch_executions_total', { kind: 'composition', model: 'fake/fast', outcome: 'succeeded' }), message).toBe(1);
      expect(
        samples.filter((sample) => sample.name === 'porch_executions_total' && sample.labels.model !== 'fake/fast'),
        message,
      ).toEqual([]);
    } finally {
      fake.setBehaviour({});
      await harness.close();
    }
  });

  it('does not count refusals made before any model was called (regression: 400, 402 and 404 were failed executions)', async () => {
    const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-metrics', PORCH_METRICS_TOKEN: METRICS_TOKEN } });
    try {
      const { key, accountId } = await harness.expertWithKey({ credits: 1_000 });
      const compositionId = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await harness.api('POST', `/compositions/${missing}/execute`, { key, body: {} })).status).toBe(404);
      expect((await harness.api('POST', `/workflows/${missing}/execute`, { key, body: {} })).status).toBe(404);
      expect(
        (await harness.api('POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES, model: 'fake/none' } })).status,
      ).toBe(400);
      const broke = await harness.expertWithKey({ credits: 0 });
      const brokeIds = (await harness.core.bundles.importBundle(broke.accountId, DEMO_BUNDLE)).ids;
      const refused = [
        await harness.api('POST', `/compositions/${brokeIds['composition:release-notes']}/execute`, { key: broke.key, body: { variables: RELEASE_VARIABLES } }),
        await harness.api('POST', `/workflows/${brokeIds['workflow:release-announcement']}/execute`, {
          key: broke.key,
          body: { variables: RELEASE_VARIABLES },
        }),
      ];
      for (const response of refused) expect(response.status, describeResponse(response)).toBe(402);

      const samples = parsePrometheusText((await scrape(`${harness.url}/metrics`, METRICS_TOKEN)).text);
      expect(
        samples.filter((sample) => sample.name === 'porch_executions_total'),
        describeSamples(samples, 'porch_executions_total'),
      ).toEqual([]);
      expect(sampleValue(samples, 'porch_refusals_total', { code: 'INSUFFICIENT_CREDITS' })).toBe(2);
    } finally {
      await harness.close();
    }
  });
});

describe('GET /metrics on metrics.port', () => {
  it('ignores a query string, as the main port does (regression: GET /metrics?x=1 answered 404)', async () => {
    const harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-metrics' } });
    try {
      const metricsServer = harness.server.metricsServer;
      if (metricsServer === null) throw new Error('metrics.port was set, yet no metrics server started');
      const answer = await scrape(`${metricsServer.url}/metrics?x=1`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).toContain('porch_http_requests_total');
      expect((await scrape(`${metricsServer.url}/other?x=1`)).status).toBe(404);
    } finally {
      await harness.close();
    }
  });
});

describe('GET /metrics without PORCH_METRICS_TOKEN', () => {
  it('is not served on the main port at all', async () => {
    const harness = await createHarness();
    try {
      const response = await harness.site('GET', '/metrics');
      expect(response.status).toBe(404);
      expect(harness.server.metricsServer).toBeNull();
    } finally {
      await harness.close();
    }
  });

  it('refuses a token short enough to guess, naming the setting', async () => {
    await expect(createHarness({ env: { PORCH_METRICS_TOKEN: 'short' } })).rejects.toThrow(/PORCH_METRICS_TOKEN/);
  });
});
