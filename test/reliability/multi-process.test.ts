/**
 * Several `porch serve` processes on one database under concurrent load, on each engine: two on
 * one SQLite file (one host), four on PostgreSQL (as many hosts would). Per-minute, per-day and
 * in-flight limits, the credit ledger, idempotency and revocation stay exact across them, and
 * contention never surfaces as an error.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { Application } from '../../src/main.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { api, openDirect, SUITE_ENGINES, startPorchProcess, type PorchProcess, type SuiteDatabase } from './porch-process.js';

const UNLIMITED = 10_000_000;
const MAX_IN_FLIGHT = 3;

/** Two processes on one SQLite file (one host); four on PostgreSQL, as many hosts would run. */
const DEPLOYMENTS = SUITE_ENGINES.map((engine) => ({ ...engine, processes: engine.name === 'SQLite' ? 2 : 4 }));

function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe.each(DEPLOYMENTS)('$processes porch serve processes on one $name database', (deployment) => {
  let fake: FakeOpenAi;
  let configDir: string;
  let database: SuiteDatabase;
  let direct: Application;
  let servers: PorchProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    configDir = await mkdtemp(join(tmpdir(), 'porch-multi-config-'));
    const configPath = join(configDir, 'porch.config.yaml');
    await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake, { timeoutMs: 30_000 }), limits: { max_in_flight_per_key: MAX_IN_FLIGHT } }));
    database = await deployment.open();
    // The test process migrates the database first, so the servers start on an existing schema.
    direct = await openDirect(database.url);
    const env = { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: 'sk-fake-multi-process' };
    servers = await Promise.all(Array.from({ length: deployment.processes }, () => startPorchProcess(database.url, env)));
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.exited));
    await direct?.close();
    await database?.remove();
    await fake?.close();
    await rm(configDir, { recursive: true, force: true });
  });

  async function expertKey(options: { credits: number; rpm?: number; rpd?: number }) {
    const account = await direct.core.accounts.createAccount({
      email: `mp-${Math.random().toString(36).slice(2)}@example.com`,
      plan: 'expert',
      credits: options.credits,
    });
    const created = await direct.core.accounts.createKey({
      accountId: account.id,
      requestsPerMinute: options.rpm ?? UNLIMITED,
      requestsPerDay: options.rpd ?? UNLIMITED,
    });
    const summary = await direct.core.bundles.importBundle(account.id, DEMO_BUNDLE);
    const compositionId = summary.ids['composition:release-notes'];
    if (!compositionId) throw new Error('the demo bundle has no release-notes composition');
    return { accountId: account.id, keyId: created.key.id, key: created.plaintext, compositionId };
  }

  /** The servers in turn, so the load spreads evenly over the processes. */
  const serverFor = (index: number): PorchProcess => {
    const server = servers[index % servers.length];
    if (!server) throw new Error('no server');
    return server;
  };

  const execute = (index: number, key: string, compositionId: string, headers: Record<string, string> = {}) =>
    api(serverFor(index).url, 'POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES }, headers });

  it('let exactly the daily limit of requests through between them, however they interleave', async () => {
    // The daily window (UTC day) rather than the minute one, so a window boundary cannot fall inside the burst.
    const dailyLimit = 40;
    const { key } = await expertKey({ credits: 10, rpd: dailyLimit });
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, index) => api(serverFor(index).url, 'GET', '/context-cards', { key }).then((response) => response.status)),
    );
    expect(statusCounts(statuses)).toEqual({ 200: dailyLimit, 429: 100 - dailyLimit });
  });

  it('let exactly the per-minute limit through between them', async () => {
    const perMinute = 30;
    const { key } = await expertKey({ credits: 10, rpm: perMinute });
    // Start just after a minute boundary when the burst could straddle one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, index) => api(serverFor(index).url, 'GET', '/skills', { key }).then((response) => response.status)),
    );
    expect(statusCounts(statuses)).toEqual({ 200: perMinute, 429: 80 - perMinute });
  }, 30_000);

  it('hold the per-key in-flight limit globally: slow executions beyond it are refused on every process', async () => {
    const { key, compositionId } = await expertKey({ credits: 1_000 });
    fake.setBehaviour({ delayMs: 2_000 });
    try {
      const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => execute(index, key, compositionId)));
      const counts = statusCounts(responses.map((response) => response.status));
      expect(counts, JSON.stringify(counts)).toEqual({ 200: MAX_IN_FLIGHT, 429: 12 - MAX_IN_FLIGHT });
      expect(responses.find((response) => response.status === 429)?.text).toMatch(/Too many calls in flight/);
    } finally {
      fake.setBehaviour({});
    }
    // Every slot was given back: the next execution on any process runs.
    for (const server of servers)
      expect((await api(server.url, 'POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } })).status).toBe(200);
  }, 30_000);

  it('never overdraw or lose a charge when 400 executions spend one small balance concurrently', async () => {
    // 1.2 credits: executions start while 1 credit is available, so a few succeed and the rest find the balance spent.
    const { accountId, key, compositionId } = await expertKey({ credits: 1.2 });
    const initial = await direct.core.credits.balance(accountId);
    const responses = await Promise.all(Array.from({ length: 400 }, (_, index) => execute(index, key, compositionId)));
    const counts = statusCounts(responses.map((response) => response.status));
    // 429: the in-flight limit refuses what exceeds it; that is a limit holding, not an error.
    expect(
      Object.keys(counts).every((status) => status === '200' || status === '402' || status === '429'),
      JSON.stringify(counts),
    ).toBe(true);
    expect(counts[200] ?? 0, 'some executions succeed').toBeGreaterThan(0);
    expect(counts[402] ?? 0, 'the balance runs out during the burst').toBeGreaterThan(0);

    const final = await direct.core.credits.balance(accountId);
    const ledger = await direct.store.credits.ledger(accountId);
    const charges = ledger.filter((entry) => entry.kind === 'usage');
    const charged = -charges.reduce((sum, entry) => sum + entry.deltaTokens, 0);
    expect(final.reservedTokens, 'no reservation is left open').toBe(0);
    expect(final.balanceTokens).toBeGreaterThanOrEqual(0);
    expect(final.balanceTokens, 'the balance is the grant less every charge').toBe(initial.balanceTokens - charged);
    expect(charges.length, 'one charge per successful execution').toBe(counts[200]);
    const charged200 = responses
      .filter((response) => response.status === 200)
      .reduce((sum, response) => sum + Number((response.body?.data?.token_usage as { total_tokens?: number } | undefined)?.total_tokens ?? 0), 0);
    expect(charged, 'the ledger charged exactly the tokens the responses report').toBe(charged200);
  }, 60_000);

  it('run an Idempotency-Key once, even when every process receives it at the same moment, and replay it on any process', async () => {
    const { accountId, key, compositionId } = await expertKey({ credits: 100 });
    const headers = { 'idempotency-key': 'same-request-1' };
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => execute(index, key, compositionId, headers)));
    const counts = statusCounts(responses.map((response) => response.status));
    expect(
      Object.keys(counts).every((status) => status === '200' || status === '409'),
      JSON.stringify(counts),
    ).toBe(true);
    const ledger = await direct.store.credits.ledger(accountId);
    expect(
      ledger.filter((entry) => entry.kind === 'usage'),
      'charged exactly once',
    ).toHaveLength(1);
    const contents = new Set(responses.filter((response) => response.status === 200).map((response) => JSON.stringify(response.body?.data)));
    expect(contents.size, 'every success is the one stored response').toBe(1);
    for (const [index] of servers.entries()) {
      const replay = await execute(index, key, compositionId, headers);
      expect(replay.status).toBe(200);
      expect(contents.has(JSON.stringify(replay.body?.data))).toBe(true);
    }
    expect((await direct.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage')).toHaveLength(1);
  });

  it('see a revocation made anywhere on the very next request to every process', async () => {
    const { key, keyId } = await expertKey({ credits: 10 });
    for (const server of servers) expect((await api(server.url, 'GET', '/personas', { key })).status).toBe(200);
    await direct.core.accounts.revokeKey(keyId);
    for (const server of servers) {
      const after = await api(server.url, 'GET', '/personas', { key });
      expect(after.status).toBe(401);
    }
  });

  it('log no database busy error and no 500 under the load', () => {
    for (const server of servers) {
      expect(server.stderr()).not.toMatch(/SQLITE_BUSY|database is locked|"level":50/);
    }
  });
});
