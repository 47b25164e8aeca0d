/**
 * The observability settings as config parses them: the standard OTEL_* variables (endpoint
 * precedence, headers, sampler, batch span processor), the metrics token and port, and refusals that name the setting.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const BASE = { DATABASE_URL: ':memory:' };
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-observability-config-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('tracing settings', () => {
  it('are off without an endpoint, and with OTEL_SDK_DISABLED whatever else is set', () => {
    expect(loadConfig(BASE).tracing).toBeNull();
    expect(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeNull();
  });

  it('append /v1/traces to the base endpoint, and take the traces endpoint as it is when both are set', () => {
    expect(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing?.endpoint).toBe('http://collector:4318/v1/traces');
    const both = loadConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp',
    });
    expect(both.tracing?.endpoint).toBe('https://traces.example.com/otlp');
  });

  it('read headers as percent-encoded key=value pairs, the traces-specific ones winning', () => {
    const config = loadConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc, x-tenant=one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=two',
    });
    expect(config.tracing?.headers).toEqual({ authorization: 'Basic abc', 'x-tenant': 'two' });
    expect(() => loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
  });

  it('default to recording every trace without content, and refuse an unknown sampler naming the setting', () => {
    const config = loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(config.tracing).toMatchObject({ serviceName: 'porch', sampler: 'parentbased_always_on', samplerRatio: 1, captureMessageContent: false });
    const sampled = loadConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    expect(sampled.tracing).toMatchObject({ sampler: 'parentbased_traceidratio', samplerRatio: 0.1 });
    expect(() => loadConfig({ ...BASE, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('read the batch span processor’s OTEL_BSP_* settings, leave unset ones to the defaults, and refuse a non-number naming the setting', () => {
    const endpoint = { ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig(endpoint).tracing?.batch).toEqual({});
    const config = loadConfig({
      ...endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      OTEL_BSP_EXPORT_TIMEOUT: '10000',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '256',
    });
    expect(config.tracing?.batch).toEqual({ scheduledDelayMs: 1000, exportTimeoutMs: 10_000, maxQueueSize: 4096, maxExportBatchSize: 256 });
    expect(() => loadConfig({ ...endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'many' })).toThrow(/OTEL_BSP_MAX_EXPORT_BATCH_SIZE/);
    expect(() => loadConfig({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '0' })).toThrow(/OTEL_BSP_MAX_QUEUE_SIZE/);
  });
});

describe('tracing settings as OpenTelemetry defines them', () => {
  it('read OTEL_SDK_DISABLED and content capture case-insensitively (regression: OTEL_SDK_DISABLED=TRUE refused to start)', () => {
    const endpoint = { ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'False' }).tracing).not.toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'True' }).tracing?.captureMessageContent).toBe(true);
  });

  it('refuse an endpoint without its scheme, naming the setting (regression: localhost:4318 was accepted and nothing was ever sent)', () => {
    expect(() => loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT.*http:\/\/localhost:4318/);
    expect(() => loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318/v1/traces' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  });

  it('read OTEL_RESOURCE_ATTRIBUTES, whose service.name yields to OTEL_SERVICE_NAME (regression: ignored)', () => {
    const endpoint = { ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const attributes = 'deployment.environment.name=prod,service.name=porch-eu, host.name=web%2C1';
    expect(loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes }).tracing).toMatchObject({
      serviceName: 'porch-eu',
      resourceAttributes: { 'deployment.environment.name': 'prod', 'service.name': 'porch-eu', 'host.name': 'web,1' },
    });
    expect(loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'api' }).tracing?.serviceName).toBe('api');
    expect(() => loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'no-value' })).toThrow(/OTEL_RESOURCE_ATTRIBUTES/);
  });
});

describe('metrics settings', () => {
  it('give each worker its own metrics port, metrics.port plus its index', async () => {
    const path = join(directory, 'porch.config.yaml');
    await writeFile(path, 'metrics:\n  port: 9464\n');
    expect(loadConfig({ ...BASE, PORCH_CONFIG: path }).metrics).toEqual({ token: undefined, port: 9464 });
    expect(loadConfig({ ...BASE, PORCH_CONFIG: path, PORCH_WORKER_INDEX: '2' }).metrics.port).toBe(9466);
  });

  it('refuse a metrics port out of range, naming it', async () => {
    const path = join(directory, 'bad.yaml');
    await writeFile(path, 'metrics:\n  port: 70000\n');
    expect(() => loadConfig({ ...BASE, PORCH_CONFIG: path })).toThrow(/metrics\.port/);
  });
});
