/**
 * No OAuth secret reaches the database file in plaintext: after a confidential client registers
 * (its secret and registration access token), is authorized, exchanges its code with its secret
 * and refreshes, neither the SQLite file nor its WAL holds any of those values.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const REDIRECT_URI = 'https://host.example/callback';

let harness: Harness;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'porch-oauth-'));
  harness = await createHarness({ env: { DATABASE_URL: `file:${join(dir, 'porch.db')}` } });
});
afterEach(async () => {
  await harness.close();
  await rm(dir, { recursive: true, force: true });
});

async function databaseBytes(): Promise<string> {
  const parts = await Promise.all(['porch.db', 'porch.db-wal'].map((name) => readFile(join(dir, name)).catch(() => Buffer.alloc(0))));
  return Buffer.concat(parts).toString('latin1');
}

it('keeps client secrets, registration tokens, codes, access and refresh tokens out of the database file', async () => {
  const registered = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Confidential Host', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }),
  });
  const client = (await registered.json()) as { client_id: string; client_secret: string; registration_access_token: string };
  expect(registered.status, JSON.stringify(client)).toBe(201);
  expect(client.client_secret).toBeTruthy();

  const { browser } = await signedInBrowser(harness);
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'read:workflow',
  });
  const consentPath = new URL((await browser.get(`/oauth/authorize?${query}`)).location ?? '', harness.url).pathname;
  await browser.get(consentPath);
  const approved = await browser.post(consentPath, { decision: 'approve', scope: 'read:workflow' });
  const resumed = await browser.get(new URL(approved.location ?? '', harness.url).pathname);
  const code = String(new URL(resumed.location ?? '').searchParams.get('code'));

  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  const tokenRequest = (fields: Record<string, string>, authorization = basic) =>
    fetch(`${harness.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
      body: new URLSearchParams(fields).toString(),
    });
  const wrongSecret = await tokenRequest(
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
    `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:wrong`).toString('base64')}`,
  );
  expect(wrongSecret.status).toBe(401);
  const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };
  expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
  const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
  const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
  expect(refreshed.status, JSON.stringify(second)).toBe(200);

  const bytes = await databaseBytes();
  expect(bytes).toContain('Confidential Host');
  const secrets = {
    client_secret: client.client_secret,
    registration_access_token: client.registration_access_token,
    code,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    second_access_token: second.access_token,
    second_refresh_token: second.refresh_token,
  };
  for (const [name, secret] of Object.entries(secrets)) expect(bytes.includes(secret), `${name} is in the database file`).toBe(false);
});

it('leaves the client secret out of a registration read, which holds only its hash', async () => {
  const registered = await fetch(`${harness.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Reading Host', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }),
  });
  const client = (await registered.json()) as { client_id: string; client_secret: string; registration_access_token: string; registration_client_uri: string };
  expect(registered.status, JSON.stringify(client)).toBe(201);

  const read = await fetch(`${harness.url}${new URL(client.registration_client_uri).pathname}`, {
    headers: { authorization: `Bearer ${client.registration_access_token}` },
  });
  const record = (await read.json()) as Record<string, unknown>;
  expect(read.status, JSON.stringify(record)).toBe(200);
  expect(record).toMatchObject({ client_id: client.client_id, client_name: 'Reading Host', token_endpoint_auth_method: 'client_secret_post' });
  expect(record).not.toHaveProperty('client_secret');
  expect(record).not.toHaveProperty('client_secret_expires_at');
});
