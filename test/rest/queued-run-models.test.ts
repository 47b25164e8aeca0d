/**
 * Queued runs execute on the models the accepting server resolved, on a process that serves
 * them: two Porch processes on one SQLite file, the server with provider `fake` (default model
 * fake/fast) and another with the built-in echo provider only, as a `porch mcp` started without
 * the server's provider keys is. Runs the server queued are never executed by the echo-only
 * process: they wait for a process that serves their models.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { QueuedRunAcceptance } from '../../src/core/runs/run-queue.js';
import type { RunDetailView } from '../../src/core/runs/runs.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { GATEWAY_KEY } from '../helpers/provider-harness.js';

const ASYNC = { prefer: 'respond-async' };

let directory: string;
let fake: FakeOpenAi;
/** Accepts the runs; executes none until the test starts its queue. */
let server: Harness;
/** Echo only, executing queued runs all along. */
let echoOnly: Harness;
let key: string;
let compositionId: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-run-models-'));
  fake = await startFakeOpenAi();
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake) }));
  const databaseUrl = `file:${join(directory, 'porch.db')}`;
  server = await createHarness({ env: { DATABASE_URL: databaseUrl, PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: GATEWAY_KEY }, backgroundWork: false });
  // No provider configured: only the built-in echo provider, echo/echo the default.
  const echoConfigPath = join(directory, 'echo-only.yaml');
  await writeFile(echoConfigPath, stringify({ limits: { max_running_runs_per_account: 4 } }));
  echoOnly = await createHarness({ env: { DATABASE_URL: databaseUrl, PORCH_CONFIG: echoConfigPath } });
  ({ key } = await server.expertWithKey({ credits: 1_000 }));
  const created = await server.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Greeting', template: 'Say hello to {{who}}.' } });
  expect(created.status, describeResponse(created)).toBe(201);
  compositionId = created.body.data.id;
});
afterEach(async () => {
  await echoOnly?.close();
  await server?.close();
  await fake?.close();
  await rm(directory, { recursive: true, force: true });
});

async function queue(harness: Harness, body: Record<string, unknown>): Promise<string> {
  const response = await harness.api<QueuedRunAcceptance>('POST', `/compositions/${compositionId}/execute`, {
    key,
    body: { variables: { who: 'Ada' }, ...body },
    headers: ASYNC,
  });
  expect(response.status, describeResponse(response)).toBe(202);
  return response.body.data.run_id;
}

async function run(id: string): Promise<RunDetailView> {
  const response = await server.api<RunDetailView>('GET', `/runs/${id}`, { key });
  expect(response.status, describeResponse(response)).toBe(200);
  return response.body.data;
}

describe('queued runs and the models of the process that claims them', () => {
  it('a run the server queued is never executed by a process without its model, nor on that process’s default model (regression: failed "Unknown model", or completed on echo/echo)', async () => {
    expect(echoOnly.core.ai.listModels().map((model) => model.id)).toEqual(['echo/echo']);
    const named = await queue(server, { model: 'fake/fast' });
    const onDefault = await queue(server, {});
    const onEcho = await queue(server, { model: 'echo/echo' });
    // A run queued through the echo-only process makes it look at the queue at once.
    const ownRun = await queue(echoOnly, {});
    await echoOnly.core.runQueue.idle();

    expect(await run(onEcho), 'a run on a model both serve is the echo-only process’s to take').toMatchObject({ status: 'completed', model: 'echo/echo' });
    expect(await run(ownRun)).toMatchObject({ status: 'completed', model: 'echo/echo' });
    // Waiting, each shows the model it will call (regression: null until it completed).
    for (const id of [named, onDefault]) {
      expect(await run(id), 'left queued for a process serving fake/fast').toMatchObject({ status: 'queued', attempts: 0, model: 'fake/fast' });
    }
    expect(fake.requests).toHaveLength(0);

    server.server.application.startRunQueue();
    await server.core.runQueue.idle();
    for (const id of [named, onDefault]) {
      const ended = await run(id);
      expect(ended, JSON.stringify(ended.result)).toMatchObject({ status: 'completed', model: 'fake/fast', attempts: 1, result: { model_used: 'fake/fast' } });
    }
    expect(fake.requests).toHaveLength(2);
  });
});
