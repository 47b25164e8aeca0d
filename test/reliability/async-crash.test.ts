/**
 * Durable asynchronous runs, on each engine: 20 runs are queued, `kill -9` stops the server while
 * some run (their provider calls held open) and the rest wait; once the dead process's lease runs
 * out (an injected clock) its runs go back to the queue, a restarted server executes every one,
 * and the ledger balances with nothing left reserved.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DEFAULT_LEASE_MS } from '../../src/core/instance.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { api, openDirect, SUITE_ENGINES, startPorchProcess, type SuiteDatabase } from './porch-process.js';

/** Longer than the test: these calls are still in flight when the server is killed. */
const HELD_OPEN_MS = 120_000;
const QUEUED_RUNS = 20;
const RUNNING_AT_ONCE = 4;
const LEASE_SECONDS = 5;
/** Bounds the wait for the restarted server to end every run; a working one needs a few seconds. */
const FINISH_DEADLINE_MS = 30_000;

let fake: FakeOpenAi;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  configDir = await mkdtemp(join(tmpdir(), 'porch-async-crash-'));
  configPath = join(configDir, 'porch.config.yaml');
  await writeFile(
    configPath,
    stringify({
      ai: fakeProviderAiConfig(fake, { timeoutMs: HELD_OPEN_MS * 2 }),
      processes: { lease_seconds: LEASE_SECONDS },
      limits: { max_running_runs_per_account: RUNNING_AT_ONCE },
      runs: { poll_interval_ms: 100 },
    }),
  );
});

afterAll(async () => {
  await fake.close();
  await rm(configDir, { recursive: true, force: true });
});

describe.each(SUITE_ENGINES)('kill -9 with asynchronous runs queued and running on $name', (engine) => {
  let database: SuiteDatabase;
  beforeAll(async () => {
    database = await engine.open();
  });
  afterAll(() => database.remove());

  it('loses no run: the cut-off ones are retried, every run completes, and the ledger balances', async () => {
    const env = { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-async-crash-test' };
    const setup = await openDirect(database.url);
    const { account, plaintext: key } = await (async () => {
      const created = await setup.core.accounts.createAccount({ email: `async-crash-${engine.name}@example.com`, plan: 'expert', credits: 1_000 });
      const issued = await setup.core.accounts.createKey({ accountId: created.id });
      return { account: created, plaintext: issued.plaintext };
    })();
    const compositionId = (await setup.core.bundles.importBundle(account.id, DEMO_BUNDLE)).ids['composition:release-notes'];
    await setup.close();

    fake.setBehaviour({ delayMs: HELD_OPEN_MS });
    const requestsBefore = fake.requests.length;
    const server = await startPorchProcess(database.url, env);
    const runIds: string[] = [];
    for (let index = 0; index < QUEUED_RUNS; index++) {
      const accepted = await api(server.url, 'POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { prefer: 'respond-async' },
      });
      expect(accepted.status, accepted.text).toBe(202);
      runIds.push(String(accepted.body?.data?.run_id));
    }
    await fake.waitForRequests(requestsBefore + RUNNING_AT_ONCE);
    server.child.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');

    // The next process to look, once the dead one's lease has run out, puts its runs back in the queue.
    const clock = new ManualClock(Date.now());
    const after = await openDirect(database.url, clock);
    try {
      const statuses = await Promise.all(runIds.map(async (id) => (await after.store.runs.findOwned({ accountId: account.id, id }))?.status));
      expect(statuses.filter((status) => status === 'running')).toHaveLength(RUNNING_AT_ONCE);
      expect(statuses.filter((status) => status === 'queued')).toHaveLength(QUEUED_RUNS - RUNNING_AT_ONCE);
      expect((await after.core.credits.balance(account.id)).reservedTokens, 'the crash left the running runs reserved').toBeGreaterThan(0);
      // A process just started waits a renewal period before it takes an expired lease for a dead process's.
      const settlingMs = DEFAULT_LEASE_MS / 3;
      expect(await after.core.maintenance.sweep()).toMatchObject({ retiredInstances: 0, requeuedRuns: 0, releaseDeferredMs: settlingMs });
      // Past both the dead process's lease (5 s) and this one's settling.
      clock.advance(Math.max(LEASE_SECONDS * 1_000 + 1, settlingMs));
      expect(await after.core.maintenance.sweep()).toMatchObject({ retiredInstances: 1, requeuedRuns: RUNNING_AT_ONCE, failedRuns: 0, releaseDeferredMs: 0 });
      expect(await after.core.credits.balance(account.id)).toMatchObject({ reservedTokens: 0 });
    } finally {
      await after.close();
    }

    fake.setBehaviour({ usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } });
    const restarted = await startPorchProcess(database.url, env);
    try {
      const deadline = Date.now() + FINISH_DEADLINE_MS;
      let unfinished = runIds;
      while (unfinished.length > 0 && Date.now() < deadline) {
        const polled = await Promise.all(unfinished.map(async (id) => ({ id, run: await api(restarted.url, 'GET', `/runs/${id}`, { key }) })));
        unfinished = polled.filter(({ run }) => run.body?.data?.status === 'queued' || run.body?.data?.status === 'running').map(({ id }) => id);
        if (unfinished.length > 0) await delay(200);
      }
      expect(unfinished, 'every run ended').toEqual([]);
    } finally {
      restarted.child.kill('SIGTERM');
      expect(await restarted.exited, 'SIGTERM is a clean shutdown').toBe(0);
    }

    const reader = await openDirect(database.url);
    try {
      const runs = await Promise.all(runIds.map((id) => reader.store.runs.findOwned({ accountId: account.id, id })));
      expect(runs.map((run) => run?.status)).toEqual(runIds.map(() => 'completed'));
      expect(
        runs.filter((run) => run?.attempts === 2),
        'the runs the crash cut off ran a second time',
      ).toHaveLength(RUNNING_AT_ONCE);
      const ledger = await reader.store.credits.ledger(account.id);
      const charges = ledger.filter((entry) => entry.kind === 'usage');
      expect(charges, 'one charge per run: the cut-off calls never answered, so never charged').toHaveLength(QUEUED_RUNS);
      expect(charges.every((entry) => entry.deltaTokens === -50)).toBe(true);
      const balance = await reader.core.credits.balance(account.id);
      expect(balance).toEqual({ balanceTokens: ledger.reduce((sum, entry) => sum + entry.deltaTokens, 0), reservedTokens: 0 });
    } finally {
      await reader.close();
    }
  }, 90_000);
});
