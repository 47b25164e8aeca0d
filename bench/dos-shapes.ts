/**
 * What the token-counting and sanitiser attack shapes cost everyone else: the latency of
 * GET /health while clients keep sending persona executions of pathological text and scans of
 * crafted text. Run with `npx tsx bench/dos-shapes.ts [shape ...]`; results go to
 * bench/RESULTS-NOTES.md.
 *
 * Porch runs in its own process (this script started with `serve`), over an in-memory database,
 * on the echo model, so the load generator's own work does not land on the server's event loop.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createSilentLogger } from '../src/logger.js';
import { startServer } from '../src/main.js';

/** How long each shape's clients keep sending; requests still running then are waited for. */
const LOAD_SECONDS = 8;
/** Health probes are sent one after another, this long apart, while the load runs. */
const PROBE_INTERVAL_MS = 20;
/** Rate limits high enough that only the shapes' own cost (and the in-flight limit) shows. */
const REQUESTS_PER_MINUTE = 100_000;

interface Fixtures {
  url: string;
  creditedKey: string;
  zeroCreditKey: string;
  creditedPersona: string;
  zeroCreditPersona: string;
}

interface Shape {
  name: string;
  clients: number;
  /**
   * The n-th request's path, key and body. Texts differ from one request to the next: the
   * tokenizer caches the tokens of chunks it has seen, so the same text sent again would
   * measure the cache, not the attack.
   */
  request(fixtures: Fixtures, n: number): { path: string; key: string; body: unknown };
}

function filled(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Thai letters without spaces: multi-byte, and one long letter run for the tokenizer. */
const THAI = Array.from({ length: 200_000 }, (_, index) => String.fromCodePoint(0x0e01 + (index % 46))).join('');

/** A different length per request, cheap for the load generator, defeats the tokenizer's cache. */
function thai(n: number): string {
  return THAI.slice(0, THAI.length - n);
}

/** "/\n" repeated is one pre-tokeniser chunk; a different length per request defeats the cache. */
function slashes(n: number): string {
  return filled('/\n', 50_000 - 2 * n);
}

const SHAPES: readonly Shape[] = [
  {
    name: 'persona, 200,000 Thai letters, zero-credit key',
    clients: 8,
    request: (fixtures, n) => ({ path: `/personas/${fixtures.zeroCreditPersona}/execute`, key: fixtures.zeroCreditKey, body: { input: thai(n) } }),
  },
  {
    name: 'persona, 200,000 Thai letters',
    clients: 8,
    request: (fixtures, n) => ({ path: `/personas/${fixtures.creditedPersona}/execute`, key: fixtures.creditedKey, body: { input: thai(n) } }),
  },
  {
    name: 'persona, 50,000 characters of "/\\n"',
    clients: 8,
    request: (fixtures, n) => ({ path: `/personas/${fixtures.creditedPersona}/execute`, key: fixtures.creditedKey, body: { input: slashes(n) } }),
  },
  {
    name: 'scan, 1 MB of "eyJ"',
    clients: 30,
    request: (fixtures) => ({ path: '/sanitiser/scan', key: fixtures.creditedKey, body: { text: filled('eyJ', 1_000_000) } }),
  },
  {
    name: 'scan, 1 MB of "a://.)"',
    clients: 8,
    request: (fixtures) => ({ path: '/sanitiser/scan', key: fixtures.creditedKey, body: { text: filled('a://.)', 1_000_000) } }),
  },
];

async function serve(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: ':memory:', PORT: '0', HOST: '127.0.0.1', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' });
  const server = await startServer(config, { logger: createSilentLogger() });
  const { core } = server.application;
  const expert = async (credits: number) => {
    const account = await core.accounts.createAccount({ email: `dos-${credits}@example.com`, plan: 'expert', credits });
    const created = await core.accounts.createKey({ accountId: account.id, requestsPerMinute: REQUESTS_PER_MINUTE, requestsPerDay: REQUESTS_PER_MINUTE * 60 });
    const persona = await core.contextCards.create(account.id, { title: 'Terse', content: 'Answer briefly.', category: 'persona', tags: [] });
    return { key: created.plaintext, persona: persona.id };
  };
  const credited = await expert(1_000_000);
  const zeroCredit = await expert(0);
  const fixtures: Fixtures = {
    url: server.url,
    creditedKey: credited.key,
    zeroCreditKey: zeroCredit.key,
    creditedPersona: credited.persona,
    zeroCreditPersona: zeroCredit.persona,
  };
  process.stdout.write(`fixtures ${JSON.stringify(fixtures)}\n`);
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function report(name: string, samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (value: number) => value.toFixed(1);
  return `${name}: ${sorted.length} probes, p50 ${ms(percentile(sorted, 0.5))} ms, p99 ${ms(percentile(sorted, 0.99))} ms, max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
}

/** One GET /health: its latency, and whether it was answered (a stalled server may cut it). */
async function probe(url: string): Promise<{ ms: number; answered: boolean }> {
  const started = performance.now();
  try {
    await (await fetch(`${url}/api/public/v1/health`)).text();
    return { ms: performance.now() - started, answered: true };
  } catch {
    return { ms: performance.now() - started, answered: false };
  }
}

async function runShape(fixtures: Fixtures, shape: Shape): Promise<void> {
  let sent = 0;
  const statuses = new Map<number, number>();
  const deadline = performance.now() + LOAD_SECONDS * 1000;
  const started = performance.now();
  const clients = Array.from({ length: shape.clients }, async () => {
    while (performance.now() < deadline) {
      const { path, key, body } = shape.request(fixtures, sent);
      sent += 1;
      const payload = JSON.stringify(body);
      // 0: the connection was cut (a server stalled past its request timeout cuts requests).
      let status = 0;
      try {
        const response = await fetch(`${fixtures.url}/api/public/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: payload,
        });
        await response.text();
        status = response.status;
      } catch {
        status = 0;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  });
  const loaded: number[] = [];
  let unanswered = 0;
  let clientsDone = false;
  const finished = Promise.all(clients).then(() => {
    clientsDone = true;
  });
  while (!clientsDone) {
    const { ms, answered } = await probe(fixtures.url);
    loaded.push(ms);
    if (!answered) unanswered += 1;
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
  await finished;
  const answered = [...statuses].map(([status, count]) => `${count} × ${status === 0 ? 'cut' : status}`).join(', ');
  const cut = unanswered > 0 ? ` (${unanswered} cut off unanswered)` : '';
  process.stdout.write(`${report(`GET /health, ${shape.clients} clients: ${shape.name}`, loaded)}${cut}\n`);
  process.stdout.write(`  requests answered in ${((performance.now() - started) / 1000).toFixed(1)} s: ${answered}\n`);
}

async function measure(selected: readonly string[]): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const fixtures = await new Promise<Fixtures>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /fixtures (\{.*\})\n/.exec(stdout);
      if (match?.[1]) resolve(JSON.parse(match[1]) as Fixtures);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  try {
    const idle: number[] = [];
    for (let index = 0; index < 50; index += 1) idle.push((await probe(fixtures.url)).ms);
    process.stdout.write(`${report('GET /health, idle', idle)}\n`);
    for (const shape of SHAPES) {
      if (selected.length === 0 || selected.some((word) => shape.name.includes(word))) await runShape(fixtures, shape);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else await measure(process.argv.slice(2));
