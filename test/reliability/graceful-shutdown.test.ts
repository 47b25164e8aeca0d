/**
 * A clean shutdown with executions still running, on each engine: the grace period runs out, the
 * server cuts their connections, and each execution, aborted, still settles before the database
 * closes: its charge for what the model produced, its failed usage row and its run. (Regression:
 * the database closed under them, so the calls were never billed nor recorded.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { startServer } from '../../src/main.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { baseEnv, openDirect, SUITE_ENGINES, type SuiteDatabase } from './porch-process.js';

let fake: FakeOpenAi;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  configDir = await mkdtemp(join(tmpdir(), 'porch-shutdown-config-'));
  configPath = join(configDir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake) }));
});

afterAll(async () => {
  await fake.close();
  await rm(configDir, { recursive: true, force: true });
});

/**
 * An Expert account with a key and the demo catalog on `databaseUrl`, and a server over it whose
 * shutdown grace is `graceMs`; `execute` runs the demo composition with the headers given.
 */
async function serveComposition(databaseUrl: string, email: string, graceMs: number) {
  const setup = await openDirect(databaseUrl);
  const account = await setup.core.accounts.createAccount({ email, plan: 'expert', credits: 100 });
  const { plaintext: key } = await setup.core.accounts.createKey({ accountId: account.id });
  const compositionId = (await setup.core.bundles.importBundle(account.id, DEMO_BUNDLE)).ids['composition:release-notes'];
  await setup.close();

  const config = loadConfig(baseEnv(databaseUrl, { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-shutdown', LOG_LEVEL: 'silent' }));
  const server = await startServer(config, {
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    processMetrics: false,
    serverTimeouts: { shutdownGraceMs: graceMs },
  });
  const execute = (headers: Record<string, string>) =>
    fetch(`${server.url}/api/public/v1/compositions/${compositionId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ variables: RELEASE_VARIABLES }),
    });
  return { account, server, execute };
}

describe.each(SUITE_ENGINES)('a shutdown that cuts running executions on $name', (engine) => {
  let database: SuiteDatabase;
  beforeAll(async () => {
    database = await engine.open();
  });
  afterAll(() => database.remove());

  it('settles each one (charge, usage row, run) before the database closes', async () => {
    const { account, server, execute } = await serveComposition(database.url, 'shutdown@example.com', 300);
    // The streamed call produces a word every 200 ms; the other waits a minute for its answer.
    fake.setBehaviour((request) => ((request.body as { stream?: boolean }).stream ? { chunkDelayMs: 200 } : { delayMs: 60_000 }));
    // The fake serves every engine's test: count this test's requests from here.
    const requestsBefore = fake.requests.length;
    const streamed = await execute({ accept: 'text/event-stream' });
    const reader = streamed.body?.getReader();
    let received = '';
    while (!received.includes('event: delta')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) throw new Error(`the stream ended before its first delta: ${received}`);
      received += new TextDecoder().decode(chunk.value);
    }
    const waiting = execute({}).catch((err: unknown) => err);
    await fake.waitForRequests(requestsBefore + 2);

    await server.close();
    expect(await waiting, 'the waiting call was cut').toBeInstanceOf(Error);
    await reader?.cancel().catch(() => undefined);

    const after = await openDirect(database.url);
    try {
      const usage = await after.store.usage.listByAccount(account.id);
      expect(usage.map((record) => record.status).sort()).toEqual(['failed', 'failed']);
      const streamedUsage = usage.find((record) => record.outputTokens > 0);
      expect(streamedUsage?.chargedTokens, 'the streamed words produced are charged').toBeGreaterThan(0);
      const charges = (await after.store.credits.ledger(account.id)).filter((entry) => entry.kind === 'usage');
      expect(charges.reduce((sum, entry) => sum - entry.deltaTokens, 0)).toBe(usage.reduce((sum, record) => sum + record.chargedTokens, 0));
      const runs = await after.store.runs.list({ accountId: account.id, page: {} } as never);
      // A request the shutdown cut was stopped from outside, not failed: its run is cancelled (docs/runs.md).
      expect(runs.map((run) => [run.status, run.chargedTokens]).sort(), 'each call has its run, with its charge').toEqual(
        usage.map((record) => ['cancelled', record.chargedTokens]).sort(),
      );
      expect((await after.store.credits.balance(account.id)).reservedTokens, 'nothing is left reserved').toBe(0);
    } finally {
      await after.close();
    }
  }, 30_000);
});

describe('a shutdown with a request and a queued run both running', () => {
  it('gives the run the same grace as the request, from the same moment (regression: the run’s began after the request’s)', async () => {
    const database = await SUITE_ENGINES[0]?.open();
    if (database === undefined) throw new Error('no SQLite engine');
    try {
      const graceMs = 3_000;
      const { server, execute } = await serveComposition(database.url, 'both@example.com', graceMs);
      fake.setBehaviour({ delayMs: 60_000 });
      const requestsBefore = fake.requests.length;
      const queued = await execute({ prefer: 'respond-async' });
      expect(queued.status).toBe(202);
      const waiting = execute({}).catch((err: unknown) => err);
      await fake.waitForRequests(requestsBefore + 2);

      const started = performance.now();
      await server.close();
      const tookMs = performance.now() - started;
      await waiting;
      // One grace period and the settling of what it cut; two grace periods one after the other before.
      expect(tookMs, `the shutdown took ${Math.round(tookMs)} ms`).toBeLessThan(graceMs * 1.5);
      expect(tookMs).toBeGreaterThanOrEqual(graceMs - 50);
    } finally {
      await database.remove();
    }
  }, 30_000);
});
