/**
 * Crash safety, on each engine: `kill -9` a server in the middle of a stream of writes and
 * executions (some held open by a slow provider, so their credit reservations are outstanding),
 * restart on the same database, and check that every acknowledged write is there, the ledger
 * balances, the dead process's reservations and claims are released once its lease runs out
 * (driven by an injected clock), and the request the crash cut off runs when retried.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { api, openDirect, SUITE_ENGINES, startPorchProcess, type SuiteDatabase } from './porch-process.js';

/** Longer than the test: these calls are still in flight when the server is killed. */
const HELD_OPEN_MS = 120_000;
const ACKNOWLEDGED_ROUNDS = 12;
const IN_FLIGHT_EXECUTIONS = 4;
/** Short, so the retry below finds the killed process's claim released within seconds. */
const LEASE_SECONDS = 10;
const RETRIED_KEY = 'cut-off-by-the-crash';

let fake: FakeOpenAi;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  configDir = await mkdtemp(join(tmpdir(), 'porch-crash-config-'));
  configPath = join(configDir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake, { timeoutMs: HELD_OPEN_MS * 2 }), processes: { lease_seconds: LEASE_SECONDS } }));
});

afterAll(async () => {
  await fake.close();
  await rm(configDir, { recursive: true, force: true });
});

describe.each(SUITE_ENGINES)('kill -9 during a stream of executions and writes on $name', (engine) => {
  let database: SuiteDatabase;
  beforeAll(async () => {
    database = await engine.open();
  });
  afterAll(() => database.remove());

  /** The usage charges in the account's ledger, read through a fresh handle on the database. */
  async function usageCharges(accountId: string) {
    const reader = await openDirect(database.url);
    try {
      return (await reader.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage');
    } finally {
      await reader.close();
    }
  }

  it('keeps every acknowledged write, balances the ledger, and the sweeper releases the reservations the crash left', async () => {
    const setup = await openDirect(database.url);
    const account = await setup.core.accounts.createAccount({ email: 'crash@example.com', plan: 'expert', credits: 1_000 });
    const { plaintext: key } = await setup.core.accounts.createKey({ accountId: account.id, requestsPerMinute: 100_000, requestsPerDay: 100_000 });
    const compositionId = (await setup.core.bundles.importBundle(account.id, DEMO_BUNDLE)).ids['composition:release-notes'];
    if (!compositionId) throw new Error('no composition');
    await setup.close();

    const env = { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-crash-test' };
    const server = await startPorchProcess(database.url, env);
    const acknowledgedCards: string[] = [];
    let acknowledgedExecutions = 0;
    for (let round = 0; round < ACKNOWLEDGED_ROUNDS; round += 1) {
      const card = await api(server.url, 'POST', '/context-cards', {
        key,
        body: { title: `Card ${round}`, content: `Written before the crash, round ${round}.` },
      });
      expect(card.status, card.text).toBe(201);
      acknowledgedCards.push(String(card.body?.data?.id));
      const run = await api(server.url, 'POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } });
      expect(run.status, run.text).toBe(200);
      acknowledgedExecutions += 1;
    }

    // Now the provider stalls: these executions reserve credits and wait on the model when the process dies.
    fake.setBehaviour({ delayMs: HELD_OPEN_MS });
    const receivedBefore = fake.requests.length;
    // The first of them carries an Idempotency-Key: its claim dies with the process.
    const inFlight = Array.from({ length: IN_FLIGHT_EXECUTIONS }, (_, index) =>
      api(server.url, 'POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: index === 0 ? { 'idempotency-key': RETRIED_KEY } : {},
      }).catch((err: unknown) => err),
    );
    await fake.waitForRequests(receivedBefore + IN_FLIGHT_EXECUTIONS);
    const lastCard = await api(server.url, 'POST', '/context-cards', { key, body: { title: 'Last', content: 'Acknowledged just before the kill.' } });
    expect(lastCard.status).toBe(201);
    acknowledgedCards.push(String(lastCard.body?.data?.id));

    server.child.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');
    const outcomes = await Promise.all(inFlight);
    expect(
      outcomes.every((outcome) => outcome instanceof Error),
      'no in-flight execution was acknowledged',
    ).toBe(true);

    // Reopen the database as the next process would, with a clock the test moves.
    const clock = new ManualClock(Date.now());
    const after = await openDirect(database.url, clock);
    try {
      for (const id of acknowledgedCards) {
        expect(await after.store.contextCards.findOwned({ accountId: account.id, id }), `acknowledged card ${id} survived`).toBeTruthy();
      }
      const ledger = await after.store.credits.ledger(account.id);
      expect(
        ledger.filter((entry) => entry.kind === 'usage'),
        'one charge per acknowledged execution',
      ).toHaveLength(acknowledgedExecutions);
      const balance = await after.core.credits.balance(account.id);
      expect(balance.balanceTokens, 'the balance is the sum of the ledger').toBe(ledger.reduce((sum, entry) => sum + entry.deltaTokens, 0));
      expect(balance.reservedTokens, 'the crash left the in-flight reservations open').toBeGreaterThan(0);

      // The killed process's lease has not run out: the sweeper leaves its reservations (it could be a live process on another host).
      expect(await after.core.maintenance.sweep()).toMatchObject({ retiredInstances: 0, releasedReservations: 0 });
      clock.advance(LEASE_SECONDS * 1_000 + 1);
      expect((await after.core.maintenance.sweep()).retiredInstances, 'the dead process is retired').toBe(1);
      const swept = await after.core.credits.balance(account.id);
      expect(swept).toEqual({ balanceTokens: balance.balanceTokens, reservedTokens: 0 });
    } finally {
      await after.close();
    }

    // And a restarted server serves the acknowledged data.
    fake.setBehaviour({});
    const restarted = await startPorchProcess(database.url, env);
    try {
      const list = await api(restarted.url, 'GET', '/context-cards', { key });
      const ids = new Set(((list.body?.data?.items ?? []) as Array<{ id: string }>).map((item) => item.id));
      for (const id of acknowledgedCards) expect(ids.has(id)).toBe(true);

      // The retry of the request the crash cut off runs (the sweep above released its claim with the process) and is charged once.
      const chargesBefore = (await usageCharges(account.id)).length;
      const retry = await api(restarted.url, 'POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { 'idempotency-key': RETRIED_KEY },
      });
      expect(retry.status, retry.text).toBe(200);
      const replay = await api(restarted.url, 'POST', `/compositions/${compositionId}/execute`, {
        key,
        body: { variables: RELEASE_VARIABLES },
        headers: { 'idempotency-key': RETRIED_KEY },
      });
      expect(replay.body?.data).toEqual(retry.body?.data);
      expect(await usageCharges(account.id)).toHaveLength(chargesBefore + 1);
    } finally {
      restarted.child.kill('SIGTERM');
      expect(await restarted.exited, 'SIGTERM is a clean shutdown').toBe(0);
    }
  }, 60_000);
});
