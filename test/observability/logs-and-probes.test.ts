/**
 * Logs that tie together and the orchestrator probes: every log line written while a request is
 * served carries its request id, trace id and account id; a proxy's X-Request-Id is kept only when
 * trusted and well-formed; /livez answers while the process runs and /readyz only while the store,
 * its migrations and the providers are in order and no shutdown has begun.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { accountHelpers } from '../helpers/core-harness.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { startFakeOpenAi, fakeProviderAiConfig, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { recordNewerMigration } from '../helpers/store-inspection.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-00f067aa0ba902b7-01`;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('log lines of a request', () => {
  it('all carry its request id, trace id and account id, whichever part of Porch writes them', async () => {
    const fake: FakeOpenAi = await startFakeOpenAi();
    const configDir = await mkdtemp(join(tmpdir(), 'porch-logs-'));
    cleanup.push(async () => {
      await fake.close();
      await rm(configDir, { recursive: true, force: true });
    });
    const configPath = join(configDir, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake) }));
    const lines: Array<Record<string, unknown>> = [];
    // The access line is written when the answer finishes, which may be after the client has it.
    let accessLineWritten: () => void = () => undefined;
    const accessLine = new Promise<void>((resolve) => {
      accessLineWritten = resolve;
    });
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line.trim() === '') continue;
          const parsed = JSON.parse(line) as Record<string, unknown>;
          lines.push(parsed);
          if (parsed.msg === 'request' && String(parsed.path).endsWith('/execute')) accessLineWritten();
        }
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
      FAKE_PROVIDER_KEY: 'sk-fake-logs',
    });
    const server: RunningServer = await startServer(config, { logDestination: destination, processMetrics: false });
    cleanup.push(() => server.close());
    const { core } = server.application;
    const { key, accountId } = await accountHelpers(core).expertWithKey();
    const compositionId = (await core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
    // A failing upstream makes the provider layer log a warning in the middle of the request.
    fake.setBehaviour({ status: 500 });
    const response = await fetch(`${server.url}/api/public/v1/compositions/${compositionId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', traceparent: CALLER_TRACEPARENT },
      body: JSON.stringify({ variables: RELEASE_VARIABLES }),
    });
    expect(response.status).toBe(500);
    const requestId = response.headers.get('x-request-id');
    await accessLine;

    const ofRequest = lines.filter((line) => line.requestId === requestId);
    const messages = ofRequest.map((line) => String(line.msg));
    expect(messages, JSON.stringify(lines)).toEqual(expect.arrayContaining(["AI provider 'fake' call failed", 'request']));
    for (const line of ofRequest) expect(line, JSON.stringify(line)).toMatchObject({ requestId, traceId: CALLER_TRACE_ID, accountId });
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});

describe('log lines of a client mistake at the MCP endpoint', () => {
  it('are no warning with a stack: an anonymous client cannot fill the logs (regression: a kilobyte of stack per request)', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'info' });
    const server: RunningServer = await startServer(config, { logDestination: destination, processMetrics: false });
    cleanup.push(() => server.close());
    const streamable = { accept: 'application/json, text/event-stream' };
    const refused: Array<{ headers: Record<string, string>; body: unknown }> = [
      { headers: { accept: 'application/json' }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      { headers: { ...streamable, 'mcp-protocol-version': '2030-01-01' }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      // Messages the protocol layer drops (review: a response to nothing, a stray progress notification).
      { headers: streamable, body: { jsonrpc: '2.0', id: 77, result: {} } },
      { headers: streamable, body: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'nobody', progress: 1 } } },
    ];
    for (const { headers, body } of refused) {
      const response = await fetch(`${server.url}/api/public/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(response.status).toBeLessThan(500);
      await response.text();
    }
    const loud = lines.filter((line) => Number(line.level) >= 40);
    expect(loud, JSON.stringify(loud)).toEqual([]);
  });
});

describe('X-Request-Id from a proxy', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('is replaced by a new id unless PORCH_TRUST_REQUEST_ID is set', async () => {
    harness = await createHarness();
    const response = await harness.api('GET', '/health', { headers: { 'x-request-id': 'proxy-id-1' } });
    expect(response.headers.get('x-request-id')).not.toBe('proxy-id-1');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is kept when trusted and well-formed, and replaced when too long or not plain', async () => {
    harness = await createHarness({ env: { PORCH_TRUST_REQUEST_ID: '1' } });
    expect((await harness.api('GET', '/health', { headers: { 'x-request-id': 'proxy-id-1' } })).headers.get('x-request-id')).toBe('proxy-id-1');
    for (const unsafe of ['x'.repeat(65), 'has spaces', 'quote"d', 'line\\nbreak']) {
      const answered = (await harness.api('GET', '/health', { headers: { 'x-request-id': unsafe } })).headers.get('x-request-id');
      expect(answered, unsafe).not.toBe(unsafe);
      expect(answered).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('the probes', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('answer live and ready while the store, its migrations and the providers are in order', async () => {
    harness = await createHarness();
    const live = await harness.site<{ status: string }>('GET', '/livez');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await harness.site('GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: 'ok', migrations: 'ok', providers: 'ok', shutdown: 'no' } });
    // Another method is 405 with Allow, as on every known path (regression: 404).
    for (const path of ['/livez', '/readyz']) {
      const posted = await harness.site<{ error: { code: string; message: string } }>('POST', path);
      expect(posted.status, path).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD');
      expect(posted.body.error.message).toBe(`POST is not allowed on ${path}.`);
    }
    expect(ready.headers.get('cache-control')).toBe('no-store');
    // The spec-shaped health answer is unchanged.
    const health = await harness.api<Record<string, unknown>>('GET', '/health');
    expect(Object.keys(health.body.data).sort()).toEqual(['database', 'status', 'time', 'version']);
  });

  it('answer not ready once a newer Porch migrated the database', async () => {
    harness = await createHarness();
    recordNewerMigration(harness.store);
    const ready = await harness.site('GET', '/readyz');
    expect(ready.status, ready.text).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not ready', checks: { migrations: 'ahead', store: 'ok' } });
    expect((await harness.site('GET', '/livez')).status).toBe(200);
  });

  it('answer not ready once a shutdown began, and when the store is gone', async () => {
    harness = await createHarness();
    harness.server.application.beginShutdown();
    const draining = await harness.site('GET', '/readyz');
    expect(draining.status).toBe(503);
    expect(draining.body).toMatchObject({ checks: { shutdown: 'in progress' } });

    const other = await createHarness();
    cleanup.push(() => other.close());
    await other.store.close();
    const storeGone = await other.site('GET', '/readyz');
    expect(storeGone.status).toBe(503);
    expect(storeGone.body).toMatchObject({ checks: { store: 'unavailable' } });
  });

  it('keep answering, /readyz with 503, on new connections for processes.drain_seconds after a stop, then close the port (regression: the port closed at once, so a load balancer never saw the 503)', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'porch-drain-'));
    cleanup.push(() => rm(configDir, { recursive: true, force: true }));
    const configPath = join(configDir, 'porch.config.yaml');
    await writeFile(configPath, stringify({ processes: { drain_seconds: 1 } }));
    const config = loadConfig({
      DATABASE_URL: ':memory:',
      PORT: '0',
      HOST: '127.0.0.1',
      PORCH_NO_BOOTSTRAP: '1',
      LOG_LEVEL: 'silent',
      PORCH_CONFIG: configPath,
    });
    expect(config.shutdownDrainMs).toBe(1_000);
    const server = await startServer(config, { logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }), processMetrics: false });
    const { key, accountId } = await accountHelpers(server.application.core).expertWithKey();
    const compositionId = (await server.application.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids['composition:release-notes'];
    const stopping = server.close();
    // Each request on a connection of its own, as a load balancer's probe opens it.
    const fresh = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { ...init, headers: { connection: 'close', ...init.headers } });
    const draining = await fresh('/readyz');
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ checks: { shutdown: 'in progress' } });
    expect((await fresh('/api/public/v1/health')).status, 'requests still sent meanwhile are served').toBe(200);
    const queued = await fresh(`/api/public/v1/compositions/${compositionId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ variables: RELEASE_VARIABLES }),
    });
    expect(queued.status).toBe(202);
    const { data } = (await queued.json()) as { data: { run_id: string } };
    await new Promise((resolve) => setTimeout(resolve, 300));
    const run = await fresh(`/api/public/v1/runs/${data.run_id}`, { headers: { 'x-api-key': key } });
    expect(((await run.json()) as { data: { status: string } }).data.status, 'a stopping process claims no queued run').toBe('queued');
    await stopping;
    await expect(fresh('/livez'), 'the port is closed once the drain is over').rejects.toThrow();
  });
});
