/**
 * `npm run bench:nginx`: Porch behind a real nginx (Debian's package), on loopback, with exactly
 * the configuration docs/deployment.md shows (read from that page, so the two cannot drift).
 * It shows that a streamed persona answer passes through unbuffered: the fake upstream sends
 * each word 100 ms after the previous one, and every `delta` must arrive through nginx as long
 * after the first one as it does straight from Porch, not all at the end. A control run through
 * an nginx that buffers (X-Accel-Buffering ignored, buffering on, and the stream gzipped, which
 * holds output until the compressor's buffer fills) shows that the check can fail.
 *
 * nginx is not downloaded: install it first (`apt-get install -y nginx-light` on Debian/Ubuntu).
 * Porch runs as `npm start` runs it (built by the npm script), the upstream in its own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { children, stopProcess } from './bench-processes.js';
import { startStreamingSetup, type TimedEvent, timedEventStream } from './streaming-client.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PORCH_ARGS = ['--max-semi-space-size=8', join(ROOT, 'dist', 'cli', 'index.js'), 'serve'];
const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];
const CHUNK_DELAY_MS = 100;
const CHUNKS = ['Plainly ', 'put, ', 'each ', 'word ', 'arrives ', 'on ', 'its ', 'own.'];
/** How much earlier than the upstream's schedule (relative to the first delta) a delta may arrive and still count as streamed: timer and scheduling jitter. */
const TOLERANCE_MS = 40;

function findNginx(): string {
  const fromEnv = process.env.NGINX_BIN;
  const found = [fromEnv, ...NGINX_CANDIDATES].find((candidate) => candidate !== undefined && existsSync(candidate));
  if (found === undefined) {
    process.stderr.write(
      "nginx is not installed, so this check cannot run. Install Debian's package and run it again:\n" +
        '  sudo apt-get install -y nginx-light\n' +
        '(or set NGINX_BIN to an nginx binary). Nothing is downloaded by this script.\n',
    );
    process.exit(1);
  }
  return found;
}

/** The nginx block of docs/deployment.md's "Behind nginx" section. */
async function documentedConfig(): Promise<string> {
  const page = await readFile(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  const section = page.slice(page.indexOf('## Behind nginx'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('docs/deployment.md has no nginx block under "## Behind nginx".');
  return block;
}

/** The documented block, pointed at this run's ports; fails if the page changed the lines it replaces. */
function forThisRun(block: string, porchPort: number, listenPort: number): string {
  const replacements: Array<[RegExp, string]> = [
    [/server 127\.0\.0\.1:3000;/, `server 127.0.0.1:${porchPort};`],
    [/listen 80;/, `listen 127.0.0.1:${listenPort};`],
  ];
  let config = block;
  for (const [pattern, value] of replacements) {
    if (!pattern.test(config)) throw new Error(`The documented nginx config no longer has ${pattern.source}; update bench/through-nginx.ts with it.`);
    config = config.replace(pattern, value);
  }
  return config;
}

/** A whole nginx.conf around the documented `upstream` and `server`, everything under `directory`. */
function mainConfig(directory: string, http: string): string {
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(directory, 'nginx.pid')};`,
    `error_log ${join(directory, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    '    access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `    ${name}_temp_path ${join(directory, name)};`),
    http,
    '}',
    '',
  ].join('\n');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Resolves once something accepts connections on the port (nginx prints nothing when it is ready). */
async function waitForPort(port: number, process: ChildProcess, errorLog: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (process.exitCode !== null) throw new Error(`nginx exited with ${process.exitCode}:\n${await readFile(errorLog, 'utf8').catch(() => '')}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not listen on ${port}`);
}

async function startNginx(binary: string, directory: string, http: string, port: number): Promise<ChildProcess> {
  await mkdir(directory, { recursive: true });
  const configPath = join(directory, 'nginx.conf');
  await writeFile(configPath, mainConfig(directory, http));
  const errorLog = join(directory, 'error.log');
  const child = spawn(binary, ['-p', directory, '-c', configPath, '-e', errorLog], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await waitForPort(port, child, errorLog);
  return child;
}

function deltaTimes(events: readonly TimedEvent[]): number[] {
  return events.filter((event) => event.event === 'delta').map((event) => event.atMs);
}

const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1).padStart(7));

async function main(): Promise<void> {
  const binary = findNginx();
  const block = await documentedConfig();
  process.stdout.write('Starting the fake upstream (a word every 100 ms) and Porch...\n');
  const setup = await startStreamingSetup({ chunks: CHUNKS, chunkDelayMs: CHUNK_DELAY_MS }, PORCH_ARGS);
  const porchPort = Number(new URL(setup.porch.url).port);
  const nginxDir = join(setup.directory, 'nginx');
  try {
    const documentedPort = await freePort();
    const documented = await startNginx(binary, join(nginxDir, 'documented'), forThisRun(block, porchPort, documentedPort), documentedPort);
    // The control: the same config made to buffer, as a proxy that ignores X-Accel-Buffering and compresses would.
    const bufferedPort = await freePort();
    const bufferedBlock = forThisRun(block, porchPort, bufferedPort)
      .replace('proxy_buffering off;', 'proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;')
      .replace('gzip off;', 'gzip on; gzip_types text/event-stream; gzip_min_length 0; gzip_proxied any;');
    await startNginx(binary, join(nginxDir, 'buffered'), bufferedBlock, bufferedPort);

    const headers = { 'x-api-key': setup.key, accept: 'text/event-stream' };
    const body = { input: 'Say it slowly.' };
    // The first execution loads the provider SDK; time the ones after it.
    await timedEventStream(`${setup.porch.url}${setup.personaPath}`, headers, body);
    const direct = await timedEventStream(`${setup.porch.url}${setup.personaPath}`, headers, body);
    const viaNginx = await timedEventStream(`http://127.0.0.1:${documentedPort}${setup.personaPath}`, headers, body);
    const viaBuffered = await timedEventStream(`http://127.0.0.1:${bufferedPort}${setup.personaPath}`, { ...headers, 'accept-encoding': 'gzip' }, body);

    const directTimes = deltaTimes(direct.events);
    const nginxTimes = deltaTimes(viaNginx.events);
    const bufferedTimes = deltaTimes(viaBuffered.events);
    const version = await new Promise<string>((resolve) => {
      const probe = spawn(binary, ['-v'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let text = '';
      probe.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      probe.once('exit', () => resolve(text.trim()));
    });
    const lines = [
      `Streaming through nginx (${new Date().toISOString().slice(0, 10)}, ${version}, config from docs/deployment.md)`,
      '',
      `Persona answer of ${CHUNKS.length} words, the upstream sending one every ${CHUNK_DELAY_MS} ms; milliseconds from the request to each \`delta\` event.`,
      `Through nginx: status ${viaNginx.status}, content-type ${String(viaNginx.headers['content-type'])} (nginx consumes Porch's X-Accel-Buffering header, so the client does not see it).`,
      '',
      '| delta | straight from Porch | through nginx (documented config) | through nginx that buffers and gzips (control) |',
      '|---:|---:|---:|---:|',
      ...directTimes.map((time, index) => `| ${index + 1} | ${ms(time)} | ${ms(nginxTimes[index])} | ${ms(bufferedTimes[index])} |`),
    ];
    // Each delta's time after the first delta of its own response: buffering collapses these to ~0.
    const sinceFirst = (times: readonly number[]) => times.map((time) => time - (times[0] ?? 0));
    const directOffsets = sinceFirst(directTimes);
    const nginxOffsets = sinceFirst(nginxTimes);
    const bufferedOffsets = sinceFirst(bufferedTimes);
    // The upstream sends delta i at i × CHUNK_DELAY_MS after the first; a hop that passes them on
    // as they come keeps them at least that far apart (delays only add), one that buffers
    // delivers them together.
    const streamedAsSent = (offsets: readonly number[]) =>
      offsets.length === CHUNKS.length && offsets.every((offset, index) => offset >= index * CHUNK_DELAY_MS - TOLERANCE_MS);
    const worstEarly = (offsets: readonly number[]) => Math.max(...offsets.map((offset, index) => index * CHUNK_DELAY_MS - offset));
    const unbuffered = streamedAsSent(directOffsets) && streamedAsSent(nginxOffsets);
    const controlBuffered = !streamedAsSent(bufferedOffsets);
    lines.push(
      '',
      `Documented config: ${unbuffered ? 'unbuffered' : 'BUFFERED'}: delta i arrives at least i × ${CHUNK_DELAY_MS} ms after the first (as the upstream sent it) straight from Porch and through nginx, up to ${Math.max(worstEarly(directOffsets), worstEarly(nginxOffsets)).toFixed(1)} ms early (tolerance ${TOLERANCE_MS} ms).`,
      `Control: ${controlBuffered ? `buffered (delta ${CHUNKS.length} came ${worstEarly(bufferedOffsets).toFixed(1)} ms earlier than it was sent, relative to the first), so the check can tell the difference` : 'did not buffer: the check could not tell'}.`,
    );

    // ---------------------------------------------------------------------------------------
    // For the async-runs branch (issue 20 item 6, second half): an asynchronous run outlives a
    // 60 s proxy timeout. Add that check here, against `documented` (or a copy of the block with
    // `proxy_read_timeout 60s;`): POST an execute with `Prefer: respond-async` through nginx,
    // expect 202 at once, then poll GET /runs/{id} through nginx past 60 s until it completes,
    // with an upstream slower than the proxy timeout (startStreamingSetup takes its reply).
    // ---------------------------------------------------------------------------------------
    void documented;

    process.stdout.write(`\n${lines.join('\n')}\n`);
    if (!unbuffered || !controlBuffered) process.exitCode = 1;
  } finally {
    for (const child of [...children]) await stopProcess(child);
    await rm(setup.directory, { recursive: true, force: true });
  }
}

await main();
