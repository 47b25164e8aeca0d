/**
 * The skills' Node scripts, against a real Porch server (the harness) and, for failure modes a
 * healthy server cannot produce on demand, against a scripted HTTP server on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { PACKAGE_ROOT } from '../../src/rest/discovery/package-root.js';
import { MAX_FINDINGS_PER_SCAN } from '../../src/core/sanitiser/index.js';
import { freePort } from '../helpers/free-port.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const execFileAsync = promisify(execFile);

interface ApiError extends Error {
  status: number;
  code: string;
  requestId?: string;
}
interface RequestOptions {
  body?: unknown;
  apiKey?: string;
  baseUrl?: string;
  idempotencyKey?: string;
  sleep?: (ms: number) => Promise<void> | void;
  onRetry?: (event: { error: ApiError; delaySeconds: number; attempt: number }) => void;
}
interface PorchClient {
  porchRequest(method: string, path: string, options?: RequestOptions): Promise<{ status: number; data: unknown; attempts: number }>;
  PorchApiError: new (...args: never[]) => ApiError;
  MAX_RETRIES: number;
}
interface RunScript {
  run(kind: string, idOrName: string, values: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
}
interface RedactScript {
  redact(text: string, findings: Array<{ start: number; end: number; label: string }>): string;
}

const script = (path: string) => join(PACKAGE_ROOT, 'skills', path);
const load = async <Module>(path: string) => (await import(pathToFileURL(script(path)).href)) as Module;

let client: PorchClient;
let runScript: RunScript;
let redactScript: RedactScript;
let harness: Harness;
let key: string;
let accountId: string;

beforeAll(async () => {
  client = await load<PorchClient>('porch-api/scripts/porch.mjs');
  runScript = await load<RunScript>('porch-run/scripts/run.mjs');
  redactScript = await load<RedactScript>('porch-sanitise/scripts/redact.mjs');
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey({ credits: 1000 }));
  await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
});
afterAll(() => harness.close());

/** Runs a script as the agent would: a child process with the key and URL in its environment. */
async function node(path: string, args: string[], env: Record<string, string> = {}, input?: string) {
  const child = execFileAsync(process.execPath, [script(path), ...args], {
    env: { PATH: process.env.PATH ?? '', PORCH_URL: harness.url, PORCH_API_KEY: key, ...env },
    timeout: 20_000,
  });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('porch.mjs against a real server', () => {
  it('lists and creates through the envelope and prints data as JSON', async () => {
    const created = await node('porch-api/scripts/porch.mjs', ['POST', '/context-cards', '{"title": "From the script", "content": "Hello"}']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ title: 'From the script', content: 'Hello' });
    const listed = await node('porch-api/scripts/porch.mjs', ['GET', '/context-cards?limit=1']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ count: 1, items: [{ title: 'From the script' }] });
  });

  it('reads the body from stdin with "-", and prints nothing for 204', async () => {
    const created = await node('porch-api/scripts/porch.mjs', ['POST', '/context-cards', '-'], {}, '{"title": "Piped", "content": "x"}');
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const deleted = await node('porch-api/scripts/porch.mjs', ['DELETE', `/context-cards/${id}`]);
    expect(deleted).toMatchObject({ code: 0, stdout: '' });
  });

  it('exits 1 with the code and request id on an API error, and 2 on a usage error', async () => {
    const refused = await node('porch-api/scripts/porch.mjs', ['GET', '/workflows'], { PORCH_API_KEY: 'mdi_thisKeyDoesNotExist0000000000000000000000' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^INVALID_API_KEY \(401\): .+ \[request [0-9a-f-]+\]\n$/);
    expect((await node('porch-api/scripts/porch.mjs', ['GET', '/workflows'], { PORCH_API_KEY: '' })).code).toBe(2);
    expect((await node('porch-api/scripts/porch.mjs', ['PUT', '/workflows'])).code).toBe(2);
    expect((await node('porch-api/scripts/porch.mjs', ['POST', '/judge/run', '{not json'])).code).toBe(2);
  });

  it('exits 1 naming the server and the reason when nothing answers, not with a stack trace', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await node('porch-api/scripts/porch.mjs', ['GET', '/workflows'], { PORCH_URL: closed });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(`UNREACHABLE: cannot reach ${closed}: ECONNREFUSED\n`);
    const withCredentials = await node('porch-api/scripts/porch.mjs', ['GET', '/workflows'], { PORCH_URL: closed.replace('//', '//ops:s3cret@') });
    expect(withCredentials.stderr.startsWith(`UNREACHABLE: cannot reach ${closed}: `), withCredentials.stderr).toBe(true);
    expect(withCredentials.stderr, 'the password in PORCH_URL never appears (review)').not.toMatch(/s3cret|ops:/);
  });

  it('prints the Markdown of a skill export as it is', async () => {
    const { data } = await client.porchRequest('GET', '/skills', { apiKey: key, baseUrl: harness.url });
    const skill = (data as { items: Array<{ id: string; name: string }> }).items.find((item) => item.name === 'Summarise');
    const exported = await node('porch-api/scripts/porch.mjs', ['GET', `/skills/${skill?.id}/skill.md`]);
    expect(exported.stdout).toMatch(/^---\nname: summarise\n/);
  });

  it('is the same file in every skill that ships it (each skill archive is installed on its own)', async () => {
    const copies = ['porch-api', 'porch-run', 'porch-sanitise'].map((skill) => readFileSync(script(`${skill}/scripts/porch.mjs`), 'utf8'));
    expect(copies[1]).toBe(copies[0]);
    expect(copies[2]).toBe(copies[0]);
  });

  it('waits Retry-After on a real 429 and then succeeds (the wait advances the server clock)', async () => {
    harness.clock.set(Date.UTC(2026, 5, 1, 12, 0, 10));
    const limited = await harness.createKey(accountId, { rpm: 1 });
    const slept: number[] = [];
    const sleep = (ms: number) => {
      slept.push(ms);
      harness.clock.advance(ms);
    };
    await client.porchRequest('GET', '/workflows', { apiKey: limited.key, baseUrl: harness.url });
    const second = await client.porchRequest('GET', '/workflows', { apiKey: limited.key, baseUrl: harness.url, sleep });
    expect(slept).toEqual([50_000]);
    expect(second.attempts).toBe(2);
  });
});

/** A server that answers each request with the next scripted response and records what it got. */
interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
let scripted: Scripted[] = [];
let received: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
let fake: Server;
let fakeUrl: string;

beforeAll(async () => {
  fake = createServer((req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const next = scripted.shift() ?? { status: 500, body: { success: false, error: { code: 'INTERNAL_ERROR', message: 'script exhausted', request_id: 'r' } } };
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(next.body === undefined ? '' : JSON.stringify(next.body));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));
beforeEach(() => {
  scripted = [];
  received = [];
});

const failure = (status: number, code: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Scripted => ({
  status,
  headers,
  body: { success: false, error: { code, message: `${code} happened`, request_id: 'req-1', ...extra } },
});
const ok: Scripted = { status: 200, body: { success: true, data: { done: true } } };

async function scriptedRequest(method = 'POST') {
  const slept: number[] = [];
  const retries: string[] = [];
  try {
    const result = await client.porchRequest(method, '/judge/run', {
      body: { prompt: 'p' },
      apiKey: 'mdi_test',
      baseUrl: fakeUrl,
      sleep: (ms) => {
        slept.push(ms);
      },
      onRetry: ({ error }) => retries.push(error.code),
    });
    return { result, slept, retries, error: undefined };
  } catch (err) {
    return { result: undefined, slept, retries, error: err as ApiError };
  }
}

describe("porch.mjs follows the spec's client rules", () => {
  it('429: waits Retry-After seconds, or 60 when absent, and retries', async () => {
    scripted = [failure(429, 'RATE_LIMITED', { 'retry-after': '7' }, { retry_after: 7 }), failure(429, 'RATE_LIMIT_EXCEEDED'), ok];
    const outcome = await scriptedRequest();
    expect(outcome.result?.data).toEqual({ done: true });
    expect(outcome.slept).toEqual([7_000, 60_000]);
  });

  it('429: does not sleep through a daily limit, it reports it (regression: it waited until midnight)', async () => {
    scripted = [failure(429, 'DAILY_LIMIT_EXCEEDED', { 'retry-after': '65820' }, { retry_after: 65_820 }), ok];
    const outcome = await scriptedRequest();
    expect(outcome.error?.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(outcome.slept).toEqual([]);
    expect(received).toHaveLength(1);
  });

  it('429: gives up after three retries', async () => {
    scripted = Array.from({ length: 5 }, () => failure(429, 'RATE_LIMITED', { 'retry-after': '1' }));
    const outcome = await scriptedRequest();
    expect(outcome.error?.code).toBe('RATE_LIMITED');
    expect(received).toHaveLength(client.MAX_RETRIES + 1);
  });

  it('500 AI_SERVICE_ERROR: backs off 1 s, 2 s, 4 s, then gives up', async () => {
    scripted = Array.from({ length: 5 }, () => failure(500, 'AI_SERVICE_ERROR'));
    const outcome = await scriptedRequest();
    expect(outcome.slept).toEqual([1_000, 2_000, 4_000]);
    expect(outcome.error?.status).toBe(500);
    expect(received).toHaveLength(4);
  });

  it('500 INTERNAL_ERROR, 401 and 402 INSUFFICIENT_CREDITS: never retried', async () => {
    for (const [status, code] of [
      [500, 'INTERNAL_ERROR'],
      [401, 'INVALID_API_KEY'],
      [402, 'INSUFFICIENT_CREDITS'],
    ] as const) {
      scripted = [failure(status, code), ok];
      received = [];
      const outcome = await scriptedRequest();
      expect(outcome.error?.code, code).toBe(code);
      expect(received, code).toHaveLength(1);
    }
  });

  it('402 BILLING_FAILED: retries once when credits remain, never when none do', async () => {
    scripted = [failure(402, 'BILLING_FAILED', { 'x-credits-remaining': '12' }), failure(402, 'BILLING_FAILED', { 'x-credits-remaining': '12' })];
    const retriedOnce = await scriptedRequest();
    expect(retriedOnce.error?.code).toBe('BILLING_FAILED');
    expect(received).toHaveLength(2);

    scripted = [failure(402, 'BILLING_FAILED', { 'x-credits-remaining': '0' }), ok];
    received = [];
    const broke = await scriptedRequest();
    expect(broke.error?.code).toBe('BILLING_FAILED');
    expect(received).toHaveLength(1);
  });

  it('sends one Idempotency-Key for every attempt of a POST, so a retry cannot run twice', async () => {
    scripted = [failure(500, 'AI_SERVICE_ERROR'), ok];
    await scriptedRequest();
    const keys = received.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(received[0]?.headers['x-api-key']).toBe('mdi_test');
  });
});

describe('run.mjs', () => {
  it('runs a composition, a skill and a persona found by name', async () => {
    const composition = await runScript.run(
      'composition',
      'release notes',
      { var: ['product=Porch', 'version=1.2', 'changes=- Faster lists'] },
      { apiKey: key, baseUrl: harness.url },
    );
    expect(composition.content).toContain('Write release notes for Porch version 1.2.');
    const skill = await runScript.run('skill', 'Summarise', { input: 'Porch runs workflows.', var: ['bullets=2'] }, { apiKey: key, baseUrl: harness.url });
    expect(skill).toMatchObject({ skill_name: 'Summarise', model_used: 'echo/echo' });
    const persona = await runScript.run('persona', 'Plain-English editor', { input: 'Utilise synergies.' }, { apiKey: key, baseUrl: harness.url });
    expect(persona).toMatchObject({ persona_name: 'Plain-English editor', content: 'Utilise synergies.' });
  });

  it('runs a workflow from the command line with variables and a trace', async () => {
    const result = await node('porch-run/scripts/run.mjs', [
      'workflow',
      'Release announcement',
      '--variables',
      '{"product": "Porch", "version": "1.2", "changes": "- Faster lists"}',
      '--trace',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const data = JSON.parse(result.stdout) as { status: string; node_results: unknown[] };
    expect(data.status).toBe('completed');
    expect(data.node_results.length).toBeGreaterThan(0);
  });

  it('exits 2 naming the candidates when no resource has that name, and 2 without input for a persona', async () => {
    const missing = await node('porch-run/scripts/run.mjs', ['workflow', 'No such workflow']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"Release announcement"');
    expect((await node('porch-run/scripts/run.mjs', ['persona', 'Plain-English editor'])).code).toBe(2);
  });
});

describe('redact.mjs', () => {
  it('replaces each finding by its label, by JavaScript string index, merging overlaps', () => {
    const text = 'Mail 👋 ada@example.com now';
    const start = text.indexOf('ada@');
    expect(redactScript.redact(text, [{ start, end: start + 'ada@example.com'.length, label: 'Email address' }])).toBe('Mail 👋 [REDACTED: Email address] now');
    expect(
      redactScript.redact('abcdef', [
        { start: 2, end: 5, label: 'B' },
        { start: 1, end: 4, label: 'A' },
      ]),
    ).toBe('a[REDACTED: A]f');
    expect(redactScript.redact('abcdef', [])).toBe('abcdef');
  });

  it('redacts through the real sanitiser and exits 3 when something blocks', async () => {
    const warned = await node('porch-sanitise/scripts/redact.mjs', [], {}, 'Ping ada@example.com about it.\n');
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stdout).toBe('Ping [REDACTED: Email address] about it.\n');
    expect(warned.stderr).toMatch(/1 finding, severity warn: pii\.email x1/);
    const blocked = await node('porch-sanitise/scripts/redact.mjs', [], {}, 'Card 4111 1111 1111 1111.\n');
    expect(blocked.code).toBe(3);
    expect(blocked.stdout).not.toContain('4111');
  });

  it('prints nothing and exits 4 when the scan stopped at its finding limit (regression: the findings past it were printed)', async () => {
    const addresses = Array.from({ length: MAX_FINDINGS_PER_SCAN + 5 }, (_, index) => `u${index}@example.com`).join(' ');
    const truncated = await node('porch-sanitise/scripts/redact.mjs', [], {}, `${addresses}\nLast: grace@example.com\n`);
    expect(truncated.code, truncated.stderr).toBe(4);
    expect(truncated.stdout).toBe('');
    expect(truncated.stderr).toContain('cannot be redacted completely');
  });
});
