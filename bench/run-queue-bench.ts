/**
 * The queue of asynchronous runs at depth (issue 20: "a queue with 10,000 runs: GET /runs stays
 * paged and fast"): 10,000 runs queued across 50 accounts beside 10,000 that ended, on an SQLite
 * file. Measures, side by side in one run, a page of GET /runs (20 items, and the next page by
 * cursor) over HTTP, a claim (the queue's check-and-update), and a claim with every account at its
 * running bound (the worst case: each candidate is skipped). Run with `npx tsx bench/run-queue-bench.ts`;
 * results go to bench/RESULTS.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/core/ids.js';
import { createSilentLogger } from '../src/logger.js';
import { startServer } from '../src/main.js';
import { percentile } from './load-harness.js';

const ACCOUNTS = 50;
const QUEUED = 10_000;
const ENDED = 10_000;
const SAMPLES = 300;

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `| ${label} | ${percentile(sorted, 0.5).toFixed(3)} | ${percentile(sorted, 0.99).toFixed(3)} | ${sorted.length} |`;
}

async function time(samples: number[], work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  samples.push(performance.now() - started);
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'porch-run-queue-bench-'));
  const config = loadConfig({
    DATABASE_URL: `file:${join(directory, 'porch.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'silent',
  });
  const server = await startServer(config, { logger: createSilentLogger() });
  const { core, store } = server.application;
  // The bench plays the processes that claim runs: this server's own queue stays idle.
  await core.runQueue.stop(0);
  try {
    const accounts: Array<{ id: string; key: string }> = [];
    for (let index = 0; index < ACCOUNTS; index++) {
      const account = await core.accounts.createAccount({ email: `queue-${index}@example.com`, plan: 'expert', credits: 1_000 });
      const { plaintext } = await core.accounts.createKey({
        accountId: account.id,
        scopes: ['read:usage'],
        requestsPerMinute: 100_000,
        requestsPerDay: 1_000_000,
      });
      accounts.push({ id: account.id, key: plaintext });
    }
    const now = Date.now();
    for (let index = 0; index < ENDED + QUEUED; index++) {
      const account = accounts[index % ACCOUNTS];
      if (!account) throw new Error('no account');
      const run = {
        id: newId(),
        accountId: account.id,
        keyId: null,
        keyKind: null,
        kind: 'composition' as const,
        resourceId: newId(),
        version: 1,
        createdAt: now,
      };
      if (index < ENDED) {
        await store.runs.insert({
          ...run,
          status: 'completed',
          model: 'echo/echo',
          inputTokens: 5,
          outputTokens: 5,
          totalTokens: 10,
          chargedTokens: 10,
          durationMs: 3,
          payload: { inputs: {}, result: {} },
        });
      } else {
        await store.runs.enqueue({ ...run, inputs: { variables: { topic: `run ${index}` } } });
      }
    }

    const [first] = accounts;
    if (!first) throw new Error('no account');
    const page: number[] = [];
    const nextPage: number[] = [];
    const claim: number[] = [];
    const claimAtBound: number[] = [];
    const instanceId = 'bench-process';
    for (let sample = 0; sample < SAMPLES; sample++) {
      let cursor = '';
      await time(page, async () => {
        const response = await fetch(`${server.url}/api/public/v1/runs?limit=20`, { headers: { 'x-api-key': first.key } });
        const body = (await response.json()) as { data: { items: unknown[]; next_cursor: string } };
        if (body.data.items.length !== 20) throw new Error('a page did not hold 20 runs');
        cursor = body.data.next_cursor;
      });
      await time(nextPage, async () => {
        const response = await fetch(`${server.url}/api/public/v1/runs?limit=20&cursor=${cursor}`, { headers: { 'x-api-key': first.key } });
        await response.arrayBuffer();
      });
      // A claim with room takes the oldest queued run; ending it at once keeps the depth steady.
      await time(claim, async () => {
        const claimed = await store.runs.claim({ instanceId, now, maxRunningPerAccount: 1_000 });
        if (!claimed) throw new Error('nothing to claim');
        await store.runs.complete({
          id: claimed.id,
          instanceId,
          status: 'completed',
          model: null,
          inputTokens: 0,
          outputTokens: 0,
          totalTokens: 0,
          chargedTokens: 0,
          durationMs: 0,
          finishedAt: now,
          result: null,
        });
      });
    }
    // Every account at its bound (one running run each): a claim looks at the queue and takes nothing.
    for (let index = 0; index < ACCOUNTS; index++) await store.runs.claim({ instanceId, now, maxRunningPerAccount: 1 });
    for (let sample = 0; sample < SAMPLES; sample++) {
      await time(claimAtBound, async () => {
        if (await store.runs.claim({ instanceId, now, maxRunningPerAccount: 1 })) throw new Error('a claim passed the bound');
      });
    }

    console.log(
      `Run queue at depth: ${QUEUED.toLocaleString('en-US')} queued and ${ENDED.toLocaleString('en-US')} ended runs over ${ACCOUNTS} accounts, SQLite file, Node ${process.version}`,
    );
    console.log('');
    console.log('| step | p50 ms | p99 ms | samples |');
    console.log('|---|---:|---:|---:|');
    console.log(summary('GET /runs?limit=20 (HTTP, first page)', page));
    console.log(summary('GET /runs?limit=20&cursor=... (next page)', nextPage));
    console.log(summary('claim + complete a run', claim));
    console.log(summary('claim with every account at its bound (takes nothing)', claimAtBound));
  } finally {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
