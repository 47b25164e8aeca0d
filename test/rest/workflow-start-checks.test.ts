/**
 * What a workflow run is refused up front, before any node calls a model: the credits check
 * looks at the providers of the models its nodes will ask for (node, resource default, the
 * deployment's default), so a run wholly on the caller's BYOK keys starts without credits and a
 * run with one node off them does not start without the minimum balance; `use_byok: false` under
 * strict BYOK is 403 as for a single execute. Two providers on one fake upstream, over real HTTP.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type FakeOpenAi, startFakeOpenAi } from '../helpers/fake-openai.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const GATEWAY_KEY = 'sk-gateway-of-the-deployment';
const BYOK_KEY = 'sk-byok-of-the-customer-5678';

let fake: FakeOpenAi;
let harness: Harness;
let directory: string;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  directory = await mkdtemp(join(tmpdir(), 'porch-workflow-start-'));
  const provider = (id: string, model: string) => ({
    id,
    base_url: fake.baseUrl,
    api_key_env: 'FAKE_PROVIDER_KEY',
    region: 'us',
    timeout_ms: 5_000,
    max_retries: 0,
    models: [{ name: model, max_output_tokens: 200 }],
  });
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: { default_model: 'fake/fast', providers: [provider('fake', 'fast'), provider('other', 'm1')] } }));
  harness = await createHarness({ env: { PORCH_CONFIG: configPath, FAKE_PROVIDER_KEY: GATEWAY_KEY } });
});
afterAll(async () => {
  await harness.close();
  await fake.close();
  await rm(directory, { recursive: true, force: true });
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setBehaviour({});
});

/** An Expert account without credits, its key, and a workflow of `nodes`. */
async function brokeAccountWith(nodes: unknown[]) {
  const account = await harness.expertWithKey({ credits: 0 });
  const summary = await harness.core.bundles.importBundle(account.accountId, { workflows: [{ key: 'w', name: 'Two providers', nodes }] });
  return { ...account, path: `/workflows/${summary.ids['workflow:w']}/execute` };
}

describe('a workflow run starts', () => {
  it('without credits when every node calls a provider the caller has a BYOK key for, though the default model is another’s (regression: 402)', async () => {
    const { accountId, key, path } = await brokeAccountWith([{ id: 'a', kind: 'model', model: 'other/m1', prompt: 'Say hi.' }]);
    await harness.core.byok.set({ accountId }, 'other', BYOK_KEY);
    const response = await harness.api<{ status: string }>('POST', path, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.body.data.status).toBe('completed');
    expect(fake.requests.map((request) => request.authorization)).toEqual([`Bearer ${BYOK_KEY}`]);
  });
});

describe('a workflow run is refused before any node runs', () => {
  it('with 402 when one node calls a provider without a BYOK key and the balance is below the minimum (regression: the first node ran)', async () => {
    const { accountId, key, path } = await brokeAccountWith([
      { id: 'a', kind: 'model', prompt: 'On the default model.' },
      { id: 'b', kind: 'model', model: 'other/m1', prompt: 'After {{a}}.' },
    ]);
    await harness.core.byok.set({ accountId }, 'fake', BYOK_KEY);
    const response = await harness.api('POST', path, { key, body: {} });
    expect(response.status, describeResponse(response)).toBe(402);
    expect(response.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(fake.requests).toHaveLength(0);
  });

  it('with 403 for use_byok: false in a strict BYOK organisation, as a single execute is (regression: 200 with every node failed)', async () => {
    const account = await harness.expertWithKey();
    const summary = await harness.core.bundles.importBundle(account.accountId, {
      workflows: [{ key: 'w', name: 'One call', nodes: [{ id: 'a', kind: 'model', prompt: 'Say hi.' }] }],
    });
    await harness.core.byok.set({ accountId: account.accountId }, 'fake', BYOK_KEY);
    await harness.core.accounts.setOrganisationPolicy(account.organisationId, { strictByok: true });
    const response = await harness.api('POST', `/workflows/${summary.ids['workflow:w']}/execute`, { key: account.key, body: { use_byok: false } });
    expect(response.status, describeResponse(response)).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringContaining('use_byok: false is not allowed') });
    expect(fake.requests).toHaveLength(0);
  });

  it('with 403 in a strict BYOK organisation when a node calls a provider without the caller’s key, credits or not (regression: 402, or 200 failed)', async () => {
    for (const credits of [0, 1000]) {
      const account = await harness.expertWithKey({ credits });
      const summary = await harness.core.bundles.importBundle(account.accountId, {
        workflows: [
          {
            key: 'w',
            name: 'Two providers',
            nodes: [
              { id: 'a', kind: 'model', model: 'other/m1', prompt: 'Say hi.' },
              { id: 'b', kind: 'model', prompt: 'After {{a}}.' },
            ],
          },
        ],
      });
      await harness.core.byok.set({ accountId: account.accountId }, 'other', BYOK_KEY);
      await harness.core.accounts.setOrganisationPolicy(account.organisationId, { strictByok: true });
      const response = await harness.api('POST', `/workflows/${summary.ids['workflow:w']}/execute`, { key: account.key, body: {} });
      expect(response.status, `${credits} credits: ${describeResponse(response)}`).toBe(403);
      expect(response.body.error.message).toBe('This organisation requires its own provider keys (strict BYOK), and none is set for provider "fake".');
      expect(fake.requests).toHaveLength(0);
    }
  });
});

describe('a single execute refused before it calls a model is not a run, as a workflow refused at its start is not (regression: a failed run, and a run.failed event)', () => {
  it('for too few credits, strict BYOK and an input the guardrail blocks; a queued run so refused still ends failed', async () => {
    const account = await harness.expertWithKey({ credits: 0 });
    const summary = await harness.core.bundles.importBundle(account.accountId, {
      compositions: [{ key: 'c', name: 'Echo', template: 'Repeat {{text}}' }],
    });
    const path = `/compositions/${summary.ids['composition:c']}/execute`;
    const runs = async () => (await harness.api<{ items: Array<{ status: string }> }>('GET', '/runs', { key: account.key })).body.data.items;

    const broke = await harness.api('POST', path, { key: account.key, body: { variables: { text: 'hello' } } });
    expect(broke.status, describeResponse(broke)).toBe(402);
    await harness.core.accounts.setOrganisationPolicy(account.organisationId, { strictByok: true });
    const strict = await harness.api('POST', path, { key: account.key, body: { variables: { text: 'hello' } } });
    expect(strict.status, describeResponse(strict)).toBe(403);
    await harness.core.accounts.setOrganisationPolicy(account.organisationId, { strictByok: false, guardrailInputs: 'block' });
    const secret = `ghp_${'A1b2C3d4E5'.repeat(3)}123456`;
    const blocked = await harness.api('POST', path, { key: account.key, body: { variables: { text: secret } } });
    expect(blocked.status, describeResponse(blocked)).toBe(422);
    expect(fake.requests).toHaveLength(0);
    expect(await runs()).toEqual([]);

    // Queued, the run exists before it is refused: it ends failed, naming why.
    const queued = await harness.api<{ run_id: string }>('POST', path, {
      key: account.key,
      body: { variables: { text: 'hello' } },
      headers: { prefer: 'respond-async' },
    });
    expect(queued.status, describeResponse(queued)).toBe(202);
    await expect.poll(async () => (await runs()).map((run) => run.status), { timeout: 5_000 }).toEqual(['failed']);
  });
});
