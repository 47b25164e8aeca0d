/** Every runnable example, run as a real process against a real server on 127.0.0.1. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBundleText } from '../../src/core/bundle/bundles.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const run = promisify(execFile);
let harness: Harness;
let key: string;
let webhookKey: string;
let directory: string;

beforeAll(async () => {
  // The webhook example's receiver listens on loopback over http, which only an allow-listed host may use.
  directory = await mkdtemp(join(tmpdir(), 'porch-examples-'));
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, JSON.stringify({ webhooks: { allow_hosts: ['127.0.0.1'], poll_interval_ms: 100 } }), 'utf8');
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
  // The receiver checks the signed timestamp against its own clock.
  harness.clock.set(Date.now());
  const account = await harness.expertWithKey();
  key = account.key;
  webhookKey = (await harness.createKey(account.accountId, { scopes: ['manage:webhooks', 'read:composition', 'execute:composition'] })).key;
  await harness.core.bundles.importBundle(account.accountId, DEMO_BUNDLE);
  // As a reader of the README has it: the demo catalog, then examples/bundle.yaml imported, then a
  // composition of their own, so the newest of each kind is not the demo's (regression: the
  // examples ran items[0] with the demo's variables and failed "Missing required variables").
  await harness.core.bundles.importBundle(account.accountId, parseBundleText(await readFile('examples/bundle.yaml', 'utf8'), 'yaml'));
  await harness.core.bundles.importBundle(account.accountId, {
    version: 1,
    compositions: [{ key: 'own', name: 'My own', template: 'Summarise {{document}} for {{reader}}.' }],
  });
});
afterAll(async () => {
  await harness.close();
  await rm(directory, { recursive: true, force: true });
});

/** Runs `node examples/<name>` with `porch/client` resolved to the TypeScript sources. */
async function example(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exampleWithKey(key, name, ...args);
}

async function exampleWithKey(apiKey: string, name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--conditions=porch-source', '--import', 'tsx', `examples/${name}`, ...args], {
      env: { ...process.env, PORCH_API_KEY: apiKey, PORCH_URL: harness.url },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return failure;
  }
}

describe('examples', { timeout: 60_000 }, () => {
  it('run-workflow.mjs runs the demo workflow by name, not the newest, and prints its trace', async () => {
    const { code, stdout, stderr } = await example('run-workflow.mjs');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/run [0-9a-f-]{36}: completed/);
    expect(stdout).toMatch(/draft\s+composition\s+completed/);
  });

  it('run-workflow.mjs runs the workflow whose id it is given with the variables it is given', async () => {
    const workflows = await harness.api<{ items: Array<{ id: string; name: string }> }>('GET', '/workflows', { key });
    const triage = workflows.body.data.items.find((workflow) => workflow.name === 'Ticket triage');
    expect(triage, JSON.stringify(workflows.body)).toBeDefined();
    const { code, stdout, stderr } = await example('run-workflow.mjs', triage?.id ?? '', '{"ticket":"I was charged twice.","customer_name":"Ada"}');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/reply\s+composition\s+completed/);
  });

  it('run-workflow-async.mjs queues the workflow, waits for the run and prints its outputs', async () => {
    const { code, stdout, stderr } = await example('run-workflow-async.mjs');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^queued run ([0-9a-f-]{36})\nrun \1: completed after 1 attempt\(s\)/);
    expect(stdout).toContain('"announcement"');
  });

  it('stream-persona.mjs prints the answer as it streams, then what it cost', async () => {
    const { code, stdout, stderr } = await example('stream-persona.mjs', 'one two three four');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^one two three four\n-- 4 deltas from echo\/echo, \d+ tokens, \d+ credits left/);
  });

  it('execute-composition.mjs executes with a model override', async () => {
    const { code, stdout, stderr } = await example('execute-composition.mjs');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^model: echo\/echo/);
    expect(stdout).toContain('Write release notes for Porch version 1.2.');
  });

  it('sanitise-before-model.mjs redacts findings and refuses blocking ones', async () => {
    const warned = await example('sanitise-before-model.mjs', 'Reply to ada@example.com please');
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stdout).toContain('redacted: Reply to [Email address] please');
    expect(warned.stdout).toContain('Plain-English editor: Reply to [Email address] please');
    const blocked = await example('sanitise-before-model.mjs', 'card 4111 1111 1111 1111');
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toContain('Not sent');
  });

  it('judge-prompt.mjs acts on the verdict', async () => {
    const weak = await example('judge-prompt.mjs', 'dogs');
    expect(weak.stdout).toMatch(/verdict: (fail|needs_revision)/);
    expect(weak.stdout).toContain('Improve it:');
  });

  it('context-cards.mjs creates, reads, updates, lists and deletes a card', async () => {
    const { code, stdout, stderr } = await example('context-cards.mjs');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/created [0-9a-f-]{36}: Tone of voice/);
    expect(stdout).toContain('updated: Warm, direct and brief.');
    expect(stdout).toContain('deleted: reading it again answers 404 RESOURCE_NOT_FOUND');
  });

  it('receive-webhook.mjs verifies a real run.completed delivery and rejects a tampered one', async () => {
    const { code, stdout, stderr } = await exampleWithKey(webhookKey, 'receive-webhook.mjs');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/verified run\.completed \(webhook-id [0-9a-f-]{36}\) for run [0-9a-f-]{36}: completed/);
    expect(stdout).toContain('tampered body: rejected (PorchWebhookError)');
  });
});
