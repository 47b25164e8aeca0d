/**
 * A new user's walkthrough of the docs: each claim or command the walkthrough tried is read from
 * the page and checked against a real server (or the code it describes). Regressions, one per
 * claim: each was literally untrue, or its commands failed as written.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBundleText } from '../../src/core/bundle/bundles.js';
import { operations } from '../../src/operations/index.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The bodies of a document's ```sh blocks. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** The backquoted names of a phrase: "(`a`, `b` or `c`)" gives [a, b, c]. */
function codeNames(phrase: string): string[] {
  return [...phrase.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? '');
}

let harness: Harness;
let key: string;
let accountId: string;
beforeAll(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey({
    scopes: ['read:composition', 'write:composition', 'execute:composition', 'read:workflow', 'write:workflow'],
  }));
});
afterAll(() => harness.close());

interface CurlCall {
  method: string;
  path: string;
  body: unknown;
}

/** The curl commands of a shell block, joined over `\` line ends: method, API path (with $ID kept) and JSON body. */
function curlCalls(block: string): CurlCall[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('curl '))
    .map((line) => {
      const body = /-d '([^']*)'/.exec(line)?.[1];
      return {
        method: /-X (\w+)/.exec(line)?.[1] ?? (body === undefined ? 'GET' : 'POST'),
        path: /\/api\/public\/v1(\S*)/.exec(line)?.[1] ?? '',
        body: body === undefined ? undefined : JSON.parse(body),
      };
    });
}

describe('versions-and-labels.md', () => {
  it('runs its examples in order, as written, without a 409 (regression: expected_version 3 after a sequence that leaves version 2)', async () => {
    const calls = shellBlocks(read('docs/versions-and-labels.md')).flatMap(curlCalls);
    expect(calls.length).toBeGreaterThanOrEqual(6);
    let id = '';
    for (const call of calls) {
      const response = await harness.api<{ id: string }>(call.method, call.path.replace('$ID', id), { key, body: call.body });
      expect(response.status, `${call.method} ${call.path}: ${response.text}`).toBeLessThan(300);
      if (id === '') id = response.body.data.id;
    }
  });
});

describe('authoring.md', () => {
  it('names exactly what of a composition\'s GET can be sent back as its PATCH, and what cannot (regression: "can always be sent back", and GET\'s data gave 400)', async () => {
    const authoring = read('docs/authoring.md').replace(/\s+/g, ' ');
    const sendable = codeNames(/the definition a composition's GET holds \(([^)]*)\)/.exec(authoring)?.[1] ?? '');
    const refused = codeNames(/a PATCH holding ((?:`[a-z_]+`(?:, | or ))+`[a-z_]+`)/.exec(authoring)?.[1] ?? '');
    expect(sendable).toContain('template');
    expect(refused).toContain('id');

    const created = await harness.api<{ id: string }>('POST', '/compositions', {
      key,
      body: { name: 'Greeting', template: 'Hello {{name}}', variables: [{ name: 'name', required: true }], model: 'echo/echo' },
    });
    const got = await harness.api<Record<string, unknown>>('GET', `/compositions/${created.body.data.id}`, { key });
    expect([...sendable, ...refused].sort(), 'the doc accounts for every field of the GET').toEqual(Object.keys(got.body.data).sort());

    const definition = Object.fromEntries(sendable.map((field) => [field, got.body.data[field]]));
    const sentBack = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: definition });
    expect(sentBack.status, sentBack.text).toBe(200);
    const whole = await harness.api('PATCH', `/compositions/${created.body.data.id}`, { key, body: got.body.data });
    expect(whole.status, whole.text).toBe(400);
  });
});

describe('quick-start.md', () => {
  it('says the echo model is charged like any model, as the first execute shows (regression: "free of network and cost")', async () => {
    const quickStart = read('docs/quick-start.md').replace(/\s+/g, ' ');
    expect(quickStart).not.toMatch(/free of[^.]*cost/);
    expect(quickStart).toMatch(/echo\/echo[\s\S]*metered like any model/);
    const created = await harness.api<{ id: string }>('POST', '/compositions', { key, body: { name: 'Echo', template: 'Say {{word}}' } });
    const executed = await harness.api('POST', `/compositions/${created.body.data.id}/execute`, { key, body: { variables: { word: 'hi' } } });
    expect(executed.status, executed.text).toBe(200);
    expect(Number(executed.headers.get('x-credits-remaining'))).toBeLessThan(1000);
  });

  it('README and quick start say which lists are newest first and which oldest first (regression: "every list, newest first")', () => {
    const oldestFirst = operations.filter((operation) => /oldest first/.test(operation.description)).map((operation) => operation.path);
    expect(oldestFirst).toEqual(expect.arrayContaining(['/keys', '/connected-apps']));
    for (const file of ['README.md', 'docs/quick-start.md']) {
      const text = read(file).replace(/\s+/g, ' ');
      expect(text, file).not.toMatch(/Lists return every owned item, newest first/);
      expect(text, file).not.toMatch(/"count": n\}\}`, newest first/);
      const sentence = /[^.]*oldest first\./.exec(text)?.[0] ?? '';
      for (const words of ['keys', 'connected apps', 'webhook endpoints']) expect(sentence, `${file}: ${words}`).toContain(words);
    }
  });
});

describe('README.md', () => {
  it("labels a version its own import made (regression: label set ... production 2 right after the import: 'has no version 2')", async () => {
    const block = shellBlocks(read('README.md')).find((candidate) => candidate.includes('porch import examples/bundle.yaml')) ?? '';
    const version = Number(/porch label set workflow \S+ production (\d+)/.exec(block)?.[1]);
    await harness.core.bundles.importBundle(accountId, parseBundleText(await readFile(join(ROOT, 'examples/bundle.yaml'), 'utf8'), 'yaml'));
    const workflows = await harness.api<{ items: Array<{ id: string }> }>('GET', '/workflows', { key });
    const workflow = workflows.body.data.items[0];
    expect(workflow).toBeDefined();
    const labelled = await harness.api('POST', `/workflows/${workflow?.id}/labels`, { key, body: { label: 'production', version } });
    expect(labelled.status, labelled.text).toBe(200);
  });
});

describe('byok.md', () => {
  const byok = read('docs/byok.md');

  it('gives every `porch byok set` its key variable, so each line runs as written (regression: the second lacked OPENAI_CUSTOMER_KEY=...)', () => {
    const lines = shellBlocks(byok).flatMap((block) => block.split('\n').filter((line) => line.includes('porch byok set')));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const variable = /--key-env (\w+)/.exec(line)?.[1] ?? '';
      expect(line, line).toMatch(new RegExp(`^${variable}=\\S+ porch byok set`));
    }
  });

  it('says the organisation\'s admin manages its keys too, and that the CLI must know the provider itself (regression: "managed by the operator"; Unknown provider)', () => {
    const text = byok.replace(/\s+/g, ' ');
    expect(text).not.toContain('BYOK keys are managed by the operator');
    expect(text).toContain('POST /organisation/byok-keys');
    expect(text).toContain('console');
    expect(text).toContain('OPENAI_API_KEY');
    expect(text).toContain('Unknown provider "openai". Configured providers: none.');
  });
});

describe('cli.md and self-service.md on keys', () => {
  it('cli.md says `porch key create --json` prints the secret as `key` where REST answers `api_key`', () => {
    const row = read('docs/cli.md')
      .split('\n')
      .find((line) => line.startsWith('| `porch key create'));
    expect(row).toContain('`key`');
    expect(row).toContain('`api_key`');
  });

  it('self-service.md says a key in its grace period counts toward the 5 a create allows (regression: "its 5, and one more while a grace period runs")', () => {
    const text = read('docs/self-service.md').replace(/\s+/g, ' ');
    expect(text).not.toContain('its 5, and one more while a grace period runs');
    expect(text).toMatch(/A create counts every key that still works, an old key in its rotation grace period included/);
  });
});
