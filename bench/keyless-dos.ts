/**
 * What key-less requests cost everyone else: the latency of GET /health while two clients keep
 * sending 1 MiB JSON bodies of shallow nested arrays (`[[[[]]]],...`) with a bad key to a keyed
 * route. Run with `npx tsx bench/keyless-dos.ts`; results go to bench/RESULTS-NOTES.md.
 *
 * Porch runs in its own process (this script started with `serve`), over an in-memory database,
 * so the load generator's own work does not land on the server's event loop.
 */
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createSilentLogger } from '../src/logger.js';
import { startServer } from '../src/main.js';
import { idleHealth, percentile, probeHealth, startServerProcess } from './load-harness.js';

const ATTACKERS = 2;
const LOAD_SECONDS = 10;
const BODY_BYTES = 1024 * 1024;
/** Health probes are sent one after another, this long apart, while the load runs. */
const PROBE_INTERVAL_MS = 20;

async function serve(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
  const server = await startServer(config, { logger: createSilentLogger() });
  process.stdout.write(`listening ${server.url}\n`);
}

/** About a mebibyte of `[[[[]]]],` repeated inside one array: shallow, cheap to scan, slow to parse. */
function shallowNestedBody(): Buffer {
  const unit = '[[[[]]]],';
  return Buffer.from(`[${unit.repeat(Math.floor((BODY_BYTES - 4) / unit.length))}[]]`);
}

/** One POST with a bad key; resolves with the status, or 0 when the server cut the connection. */
function sendWithBadKey(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${url}/api/public/v1/context-cards`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-api-key': 'mdi_not-a-real-key' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

async function measure(): Promise<void> {
  const { child, words } = await startServerProcess(import.meta.url);
  const [url] = words;
  if (url === undefined) throw new Error('the server printed no url');
  try {
    const probe = () => probeHealth(url);
    const idle = await idleHealth(url);

    const body = shallowNestedBody();
    const deadline = performance.now() + LOAD_SECONDS * 1000;
    const statuses = new Map<number, number>();
    const attackers = Array.from({ length: ATTACKERS }, async () => {
      while (performance.now() < deadline) {
        const status = await sendWithBadKey(url, body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    });
    const loaded: number[] = [];
    while (performance.now() < deadline) {
      loaded.push(await probe());
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
    await Promise.all(attackers);

    const report = (name: string, samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const ms = (value: number) => value.toFixed(1);
      return `${name}: ${sorted.length} probes, p50 ${ms(percentile(sorted, 0.5))} ms, p99 ${ms(percentile(sorted, 0.99))} ms, max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
    };
    const refused = [...statuses].map(([status, count]) => `${count} × ${status === 0 ? 'cut' : status}`).join(', ');
    process.stdout.write(`${report('GET /health, idle', idle)}\n`);
    process.stdout.write(`${report(`GET /health, ${ATTACKERS} clients sending ${body.length} B bad-key bodies`, loaded)}\n`);
    process.stdout.write(`bad-key requests answered in ${LOAD_SECONDS} s: ${refused}\n`);
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else await measure();
