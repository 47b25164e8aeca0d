/**
 * What the streaming benches share: a Porch with one persona behind the fake upstream (both in
 * their own processes), and a plain node:http client that timestamps every SSE event of a
 * response, so Porch, the upstream and nginx are measured by the same client code.
 */
import { request } from 'node:http';
import { createGunzip } from 'node:zlib';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { DEMO_BUNDLE } from '../src/core/demo/demo-bundle.js';
import { createApplication } from '../src/main.js';
import { benchAiConfig, benchPorchEnv, LISTENING, PORCH_READY, startProcess, TSX, type Child } from './bench-processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GATEWAY_KEY = 'sk-bench-streaming';

export interface TimedEvent {
  event: string;
  /** Milliseconds from the end of the request to the arrival of the event's last byte. */
  atMs: number;
  data: string;
}

export interface TimedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: TimedEvent[];
}

/** POSTs `body` and reads the SSE answer to its end, timestamping each event as its bytes arrive. */
export function timedEventStream(url: string, headers: Record<string, string>, body: unknown): Promise<TimedResponse> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } });
    let sentAt = 0;
    req.on('response', (res) => {
      const events: TimedEvent[] = [];
      let buffer = '';
      // A compressed stream (a proxy that gzips) is read as it is inflated, flushed piece by piece.
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
      body.setEncoding('utf8');
      body.on('data', (chunk: string) => {
        const atMs = performance.now() - sentAt;
        buffer += chunk;
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf('\n\n');
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
          if (!block.startsWith(':')) events.push({ event, atMs, data });
        }
      });
      body.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events }));
      body.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload, () => {
      sentAt = performance.now();
    });
  });
}

/** POSTs `body` and resolves with the milliseconds until the whole (JSON) response was read. */
export function timedJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; totalMs: number }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } });
    let sentAt = 0;
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, totalMs: performance.now() - sentAt }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload, () => {
      sentAt = performance.now();
    });
  });
}

export interface StreamingSetup {
  fake: Child;
  porch: Child;
  key: string;
  personaPath: string;
  directory: string;
}

/**
 * Starts the fake upstream (with `reply`, see bench/fake-openai-server.ts) and a Porch in front
 * of it, seeded with one Expert account and the demo persona. `porchArgs` start Porch (default:
 * the built CLI, as `npm start` runs it).
 */
export async function startStreamingSetup(reply: Record<string, unknown> | undefined, porchArgs: string[]): Promise<StreamingSetup> {
  const directory = await mkdtemp(join(tmpdir(), 'porch-stream-bench-'));
  const fake = await startProcess(
    TSX,
    [join(ROOT, 'bench', 'fake-openai-server.ts')],
    { ...process.env, ...(reply ? { FAKE_OPENAI_REPLY: JSON.stringify(reply) } : {}) },
    LISTENING,
  );
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: benchAiConfig(fake.url) }));
  const env = benchPorchEnv(directory, 'porch.db', configPath, GATEWAY_KEY);
  const application = await createApplication(loadConfig(env, ROOT));
  let key: string;
  let personaId: string;
  try {
    const { core } = application;
    const account = await core.accounts.createAccount({ email: 'stream-bench@example.com', plan: 'expert', credits: 1_000_000_000 });
    key = (await core.accounts.createKey({ accountId: account.id, name: 'bench', requestsPerMinute: 1e9, requestsPerDay: 1e9 })).plaintext;
    personaId = (await core.bundles.importBundle(account.id, { personas: DEMO_BUNDLE.personas ?? [] })).ids['persona:plain-editor'] ?? '';
  } finally {
    await application.close();
  }
  const porch = await startProcess(process.execPath, porchArgs, env, PORCH_READY);
  return { fake, porch, key, personaPath: `/api/public/v1/personas/${personaId}/execute`, directory };
}

/** The body a direct streamed call to the fake upstream sends (what Porch sends it, in effect). */
export function upstreamStreamBody(input: string) {
  return {
    model: 'fast',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: DEMO_BUNDLE.personas?.[0]?.content ?? '' },
      { role: 'user', content: input },
    ],
  };
}

export { GATEWAY_KEY };
