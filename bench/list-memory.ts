/**
 * What long lists cost the server and everyone else (issue 16, item 4): an account holding about
 * 40 MB of context cards (10,000 cards of 4,000 characters, inside the default quotas), 20 clients
 * each listing them without `limit` over and over, and the latency of GET /health meanwhile; the
 * server's resident memory is sampled throughout. Run with `npx tsx bench/list-memory.ts`;
 * results go to bench/RESULTS-NOTES.md.
 *
 * Porch runs in its own process (this script started with `serve`) over an in-memory database,
 * so the clients' own work does not land on the server's event loop. The cards are written with
 * `importBundle` in bundles of 1,000, which every version of Porch accepts, so the same script
 * measures the code before and after a change.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createSilentLogger } from '../src/logger.js';
import { startServer } from '../src/main.js';
import { idleHealth, percentile, probeHealth, startServerProcess } from './load-harness.js';

const CARDS = 10_000;
const CARD_CHARACTERS = 4_000;
const IMPORT_BATCH = 1_000;
const CLIENTS = 20;
const LOAD_SECONDS = 15;
/** Health probes are sent one after another, this long apart, while the load runs. */
const PROBE_INTERVAL_MS = 20;
const MEMORY_SAMPLE_MS = 100;

async function serve(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
  const server = await startServer(config, { logger: createSilentLogger() });
  const { core } = server.application;
  const account = await core.accounts.createAccount({ email: 'lists@example.com', plan: 'expert', credits: 1000 });
  // Far above what 20 clients send in the run, so no list is refused by the rate limiter.
  const { plaintext } = await core.accounts.createKey({ accountId: account.id, requestsPerMinute: 100_000, requestsPerDay: 1_000_000 });
  const paragraph = 'Context that a prompt reuses: tone, audience, product facts and the rules of the house. ';
  const content = paragraph.repeat(Math.ceil(CARD_CHARACTERS / paragraph.length)).slice(0, CARD_CHARACTERS);
  for (let start = 0; start < CARDS; start += IMPORT_BATCH) {
    const context_cards = Array.from({ length: Math.min(IMPORT_BATCH, CARDS - start) }, (_, index) => ({
      title: `Card ${start + index}`,
      content,
      category: 'style',
      tags: ['bench'],
    }));
    await core.bundles.importBundle(account.id, { context_cards });
  }
  process.stdout.write(`listening ${server.url} ${plaintext}\n`);
}

/** One list; resolves with its bytes and milliseconds (bytes 0 when it failed). */
function list(url: string, key: string): Promise<{ bytes: number; ms: number; status: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/api/public/v1/context-cards`, { headers: { 'x-api-key': key } });
    req.on('response', (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ bytes, ms: performance.now() - started, status: res.statusCode ?? 0 }));
    });
    req.on('error', () => resolve({ bytes: 0, ms: performance.now() - started, status: 0 }));
    req.end();
  });
}

/** The child's resident set and its peak so far, in MB, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function measure(): Promise<void> {
  const { child, words } = await startServerProcess(import.meta.url);
  const [url, key] = words;
  const pid = child.pid;
  if (url === undefined || key === undefined || pid === undefined) throw new Error('the server printed no url and key');
  try {
    const probe = () => probeHealth(url);
    const idle = await idleHealth(url);
    const single = await list(url, key);
    const seeded = memoryOf(pid);

    const deadline = performance.now() + LOAD_SECONDS * 1000;
    const lists: Array<{ bytes: number; ms: number; status: number }> = [];
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) lists.push(await list(url, key));
    });
    let rssMax = 0;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, memoryOf(pid).rss);
    }, MEMORY_SAMPLE_MS);
    const loaded: number[] = [];
    while (performance.now() < deadline) {
      loaded.push(await probe());
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
    await Promise.all(clients);
    clearInterval(sampler);
    const after = memoryOf(pid);

    const ms = (value: number) => value.toFixed(1);
    const report = (name: string, samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      return `${name}: ${sorted.length} samples, p50 ${ms(percentile(sorted, 0.5))} ms, p99 ${ms(percentile(sorted, 0.99))} ms, max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
    };
    const failed = lists.filter((result) => result.status !== 200 || result.bytes !== single.bytes).length;
    process.stdout.write(`one list alone: ${single.bytes} bytes in ${ms(single.ms)} ms; server RSS after seeding ${ms(seeded.rss)} MB\n`);
    process.stdout.write(`${report('GET /health, idle', idle)}\n`);
    process.stdout.write(`${report(`GET /health, ${CLIENTS} clients listing ${CARDS} cards`, loaded)}\n`);
    process.stdout.write(
      `${report(
        'GET /context-cards under load',
        lists.map((result) => result.ms),
      )}; ${failed} failed or short\n`,
    );
    process.stdout.write(`server RSS: max sampled ${ms(rssMax)} MB, peak (VmHWM) ${ms(after.peak)} MB, at the end ${ms(after.rss)} MB\n`);
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else await measure();
