/**
 * Two `porch serve` processes on one SQLite file under concurrent load: the rate limit, the
 * credit ledger and idempotency stay exact across them, and lock contention never surfaces as an
 * error (SQLITE_BUSY waits on the busy timeout inside IMMEDIATE transactions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import type { Application } from '../../src/main.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { api, makeDataDir, openDirect, startPorchProcess, type PorchProcess } from './porch-process.js';

const UNLIMITED = 10_000_000;

let data: Awaited<ReturnType<typeof makeDataDir>>;
let direct: Application;
let servers: PorchProcess[] = [];

beforeAll(async () => {
  data = await makeDataDir();
  // The test process migrates the file first, so the two servers start on an existing schema.
  direct = await openDirect(data.databaseUrl);
  servers = await Promise.all([startPorchProcess(data.databaseUrl), startPorchProcess(data.databaseUrl)]);
}, 60_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
  await direct.close();
  await data.cleanup();
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
  return { accountId: account.id, key: created.plaintext, compositionId };
}

/** The servers in turn, so half the load goes to each process. */
const serverFor = (index: number): PorchProcess => {
  const server = servers[index % servers.length];
  if (!server) throw new Error('no server');
  return server;
};

function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('two porch serve processes on one database file', () => {
  it('let exactly the daily limit of requests through between them, however they interleave', async () => {
    // The daily window (UTC day) rather than the minute one, so a window boundary cannot fall inside the burst.
    const dailyLimit = 40;
    const { key } = await expertKey({ credits: 10, rpd: dailyLimit });
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, index) => api(serverFor(index).url, 'GET', '/context-cards', { key }).then((response) => response.status)),
    );
    expect(statusCounts(statuses)).toEqual({ 200: dailyLimit, 429: 100 - dailyLimit });
  });

  it('never overdraw or lose a charge when both spend the same balance concurrently', async () => {
    const { accountId, key, compositionId } = await expertKey({ credits: 3 });
    const initial = await direct.core.credits.balance(accountId);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        api(serverFor(index).url, 'POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES } }),
      ),
    );
    const counts = statusCounts(responses.map((response) => response.status));
    expect(
      Object.keys(counts).every((status) => status === '200' || status === '402'),
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
  });

  it('run an Idempotency-Key once, even when both processes receive it at the same moment', async () => {
    const { accountId, key, compositionId } = await expertKey({ credits: 100 });
    const body = { variables: RELEASE_VARIABLES };
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        api(serverFor(index).url, 'POST', `/compositions/${compositionId}/execute`, { key, body, headers: { 'idempotency-key': 'same-request-1' } }),
      ),
    );
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
    // After the burst, a retry on either process replays the stored response.
    for (const server of servers) {
      const replay = await api(server.url, 'POST', `/compositions/${compositionId}/execute`, { key, body, headers: { 'idempotency-key': 'same-request-1' } });
      expect(replay.status).toBe(200);
      expect(contents.has(JSON.stringify(replay.body?.data))).toBe(true);
    }
    expect((await direct.store.credits.ledger(accountId)).filter((entry) => entry.kind === 'usage')).toHaveLength(1);
  });

  it('log no database busy error and no 500 under the load', () => {
    for (const server of servers) {
      expect(server.stderr()).not.toMatch(/SQLITE_BUSY|database is locked|"level":50/);
    }
  });
});
