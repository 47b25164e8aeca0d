/**
 * Storage contract: the OAuth authorization server's objects and connected apps. Objects are
 * found by the hash of their id while unexpired, a used code or refresh token reads as consumed
 * and only one of concurrent uses consumes it, revoking a grant takes its tokens and ends its
 * connection; an access token authenticates only while its connection and
 * key are active; revoking a connection ends its key and every token at once, for its own
 * account only; the maintenance sweep prunes what expired.
 */
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { ApiKeyRecord, OAuthConnectionRecord, OAuthRecord, Store } from '../../src/db/store.js';
import { describeEachEngine } from './engines.js';
import { apiKeyRecord, createAccount, MINUTE_MS, T0 } from './fixtures.js';

const HOUR_MS = 60 * MINUTE_MS;

function oauthRecord(overrides: Partial<OAuthRecord> = {}): Omit<OAuthRecord, 'consumedAt'> {
  return {
    model: 'AccessToken',
    idHash: `hash-${newId()}`,
    payload: JSON.stringify({ kind: 'AccessToken', aud: 'http://porch.test/api/public/mcp' }),
    grantId: null,
    uidHash: null,
    expiresAt: T0 + HOUR_MS,
    ...overrides,
  };
}

function connectionRecord(accountId: string, keyId: string, overrides: Partial<OAuthConnectionRecord> = {}): OAuthConnectionRecord {
  return { keyId, accountId, clientId: `client-${newId()}`, clientName: 'Claude', grantId: `grant-${newId()}`, createdAt: T0, revokedAt: null, ...overrides };
}

/** Connects as the authorization server does once a code is exchanged: its grant saved first. */
async function connectGranted(store: Store, key: ApiKeyRecord, connection: OAuthConnectionRecord): Promise<void> {
  await store.oauth.upsert(oauthRecord({ model: 'Grant', grantId: connection.grantId, expiresAt: null }));
  expect(await store.oauth.connect({ key, connection })).toBe(true);
}

describeEachEngine('oauth', (engine) => {
  it('finds an object by its id hash until it expires, and an upsert replaces it', async () => {
    const { store } = engine();
    const record = oauthRecord({ model: 'Session', uidHash: 'uid-hash' });
    await store.oauth.upsert(record);
    expect(await store.oauth.find({ model: 'Session', idHash: record.idHash, now: T0 })).toEqual({ ...record, consumedAt: null });
    expect(await store.oauth.findByUid({ model: 'Session', uidHash: 'uid-hash', now: T0 })).toEqual({ ...record, consumedAt: null });
    // Another model with the same id hash is another object.
    expect(await store.oauth.find({ model: 'Grant', idHash: record.idHash, now: T0 })).toBeNull();
    await store.oauth.upsert({ ...record, payload: '{"changed":true}' });
    expect((await store.oauth.find({ model: 'Session', idHash: record.idHash, now: T0 }))?.payload).toBe('{"changed":true}');
    expect(await store.oauth.find({ model: 'Session', idHash: record.idHash, now: T0 + HOUR_MS })).toBeNull();
    expect(await store.oauth.findByUid({ model: 'Session', uidHash: 'uid-hash', now: T0 + HOUR_MS })).toBeNull();
  });

  it('keeps objects without an expiry (registered clients) until destroyed', async () => {
    const { store } = engine();
    const client = oauthRecord({ model: 'Client', expiresAt: null });
    await store.oauth.upsert(client);
    expect(await store.oauth.find({ model: 'Client', idHash: client.idHash, now: T0 + 1_000 * HOUR_MS })).not.toBeNull();
    await store.oauth.destroy({ model: 'Client', idHash: client.idHash });
    expect(await store.oauth.find({ model: 'Client', idHash: client.idHash, now: T0 })).toBeNull();
  });

  it('marks a code consumed once, keeping the first time', async () => {
    const { store } = engine();
    const code = oauthRecord({ model: 'AuthorizationCode', grantId: 'g1' });
    await store.oauth.upsert(code);
    expect(await store.oauth.consume({ model: 'AuthorizationCode', idHash: code.idHash, at: T0 + MINUTE_MS })).toBe(true);
    expect(await store.oauth.consume({ model: 'AuthorizationCode', idHash: code.idHash, at: T0 + 2 * MINUTE_MS })).toBe(false);
    expect((await store.oauth.find({ model: 'AuthorizationCode', idHash: code.idHash, now: T0 }))?.consumedAt).toBe(T0 + MINUTE_MS);
  });

  it('lets exactly one of concurrent uses consume a refresh token (regression: every parallel refresh won on PostgreSQL)', async () => {
    const { store } = engine();
    const refresh = oauthRecord({ model: 'RefreshToken', grantId: 'g2' });
    await store.oauth.upsert(refresh);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.oauth.consume({ model: 'RefreshToken', idHash: refresh.idHash, at: T0 })));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it('connects only while the grant exists: one revoked meanwhile (a code used twice) gets no connection and no key (regression, PostgreSQL)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth' });
    const connection = connectionRecord(account.id, key.id);
    expect(await store.oauth.connect({ key, connection })).toBe(false);
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 })).toEqual([]);
    expect(await store.apiKeys.findById(key.id)).toBeNull();
    // Racing the revocation: each either sees the other's write or is refused; never a connection without its grant.
    await store.oauth.upsert(oauthRecord({ model: 'Grant', grantId: connection.grantId, expiresAt: null }));
    const [connected] = await Promise.all([store.oauth.connect({ key, connection }), store.oauth.revokeGrant({ grantId: connection.grantId, at: T0 })]);
    const listed = await store.oauth.listConnections({ accountId: account.id, now: T0 });
    expect(listed, `connected: ${connected}`).toEqual([]);
  });

  it("revoking a grant deletes its objects and ends its connection and the connection's key, leaving other grants alone", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth' });
    const connection = connectionRecord(account.id, key.id);
    await connectGranted(store, key, connection);
    const mine = oauthRecord({ model: 'RefreshToken', grantId: connection.grantId });
    const sibling = oauthRecord({ grantId: connection.grantId });
    const other = oauthRecord({ model: 'RefreshToken', grantId: 'grant-b' });
    for (const record of [mine, sibling, other]) await store.oauth.upsert(record);
    await store.oauth.revokeGrant({ grantId: connection.grantId, at: T0 + MINUTE_MS });
    expect(await store.oauth.find({ model: 'RefreshToken', idHash: mine.idHash, now: T0 })).toBeNull();
    expect(await store.oauth.find({ model: 'AccessToken', idHash: sibling.idHash, now: T0 })).toBeNull();
    expect(await store.oauth.find({ model: 'RefreshToken', idHash: other.idHash, now: T0 })).not.toBeNull();
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 })).toEqual([]);
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBe(T0 + MINUTE_MS);
    // A grant without a connection (not yet approved), or revoked twice, is no error.
    await store.oauth.revokeGrant({ grantId: connection.grantId, at: T0 + 2 * MINUTE_MS });
    await store.oauth.revokeGrant({ grantId: 'grant-c', at: T0 });
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBe(T0 + MINUTE_MS);
  });

  it("finds an access token's key only while the token, the connection and the key are usable", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth', scopes: ['read:workflow'] });
    const connection = connectionRecord(account.id, key.id);
    await connectGranted(store, key, connection);
    const token = oauthRecord({ grantId: connection.grantId });
    await store.oauth.upsert(token);

    const found = await store.oauth.findAccessToken({ idHash: token.idHash, now: T0 });
    expect(found?.key).toEqual(key);
    expect(found?.record.payload).toBe(token.payload);
    expect(await store.oauth.findAccessToken({ idHash: token.idHash, now: T0 + HOUR_MS })).toBeNull();
    expect(await store.oauth.findAccessToken({ idHash: 'unknown', now: T0 })).toBeNull();
    // A refresh token is never an access token, whatever its hash.
    const refresh = oauthRecord({ model: 'RefreshToken', grantId: connection.grantId });
    await store.oauth.upsert(refresh);
    expect(await store.oauth.findAccessToken({ idHash: refresh.idHash, now: T0 })).toBeNull();
    await store.apiKeys.revoke({ id: key.id, at: T0 + MINUTE_MS });
    expect(await store.oauth.findAccessToken({ idHash: token.idHash, now: T0 + 2 * MINUTE_MS })).toBeNull();
  });

  it('revoking a connection ends its key and every object of its grant, for its own account only', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const { account: stranger } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth' });
    const connection = connectionRecord(account.id, key.id);
    await connectGranted(store, key, connection);
    const token = oauthRecord({ grantId: connection.grantId });
    const refresh = oauthRecord({ model: 'RefreshToken', grantId: connection.grantId });
    const grant = oauthRecord({ model: 'Grant', grantId: connection.grantId });
    for (const record of [token, refresh, grant]) await store.oauth.upsert(record);
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 })).toEqual([{ ...connection, scopes: key.scopes }]);

    expect(await store.oauth.revokeConnection({ keyId: key.id, accountId: stranger.id, at: T0 + MINUTE_MS })).toBeNull();
    expect(await store.oauth.findAccessToken({ idHash: token.idHash, now: T0 + MINUTE_MS })).not.toBeNull();

    expect(await store.oauth.revokeConnection({ keyId: key.id, accountId: account.id, at: T0 + MINUTE_MS })).toEqual({
      ...connection,
      revokedAt: T0 + MINUTE_MS,
    });
    expect(await store.oauth.findAccessToken({ idHash: token.idHash, now: T0 + MINUTE_MS })).toBeNull();
    for (const record of [refresh, grant]) expect(await store.oauth.find({ model: record.model, idHash: record.idHash, now: T0 })).toBeNull();
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBe(T0 + MINUTE_MS);
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 })).toEqual([]);
    // The second revocation finds nothing to revoke.
    expect(await store.oauth.revokeConnection({ keyId: key.id, accountId: account.id, at: T0 + 2 * MINUTE_MS })).toBeNull();
  });

  it("a connection's credential does not count towards the account's key limit", async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth' });
    await connectGranted(store, key, connectionRecord(account.id, key.id));
    expect(await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id), maxActive: 1, now: T0 })).toBe(true);
    expect(await store.apiKeys.insertIfBelowLimit({ key: apiKeyRecord(account.id), maxActive: 1, now: T0 })).toBe(false);
  });

  it('prunes objects that expired before the cut-off and keeps the rest', async () => {
    const { store } = engine();
    const expired = oauthRecord({ expiresAt: T0 });
    const live = oauthRecord({ expiresAt: T0 + HOUR_MS });
    const lasting = oauthRecord({ model: 'Client', expiresAt: null });
    for (const record of [expired, live, lasting]) await store.oauth.upsert(record);
    expect(await store.oauth.pruneExpired(T0 + MINUTE_MS)).toBe(1);
    expect(await store.oauth.find({ model: 'AccessToken', idHash: live.idHash, now: T0 })).not.toBeNull();
    expect(await store.oauth.find({ model: 'Client', idHash: lasting.idHash, now: T0 })).not.toBeNull();
  });
  it('updates an object only while it exists, so extending a grant never brings a revoked one back', async () => {
    const { store } = engine();
    const grant = oauthRecord({ model: 'Grant', grantId: 'grant-u' });
    await store.oauth.upsert(grant);
    expect(await store.oauth.update({ model: 'Grant', idHash: grant.idHash, payload: '{"exp":2}', expiresAt: T0 + 2 * HOUR_MS })).toBe(true);
    expect(await store.oauth.find({ model: 'Grant', idHash: grant.idHash, now: T0 + HOUR_MS })).toMatchObject({
      payload: '{"exp":2}',
      expiresAt: T0 + 2 * HOUR_MS,
    });
    await store.oauth.revokeGrant({ grantId: 'grant-u', at: T0 });
    expect(await store.oauth.update({ model: 'Grant', idHash: grant.idHash, payload: '{"exp":3}', expiresAt: T0 + 3 * HOUR_MS })).toBe(false);
    expect(await store.oauth.find({ model: 'Grant', idHash: grant.idHash, now: T0 })).toBeNull();
  });

  it('lists a connection only until its grant expires, and the sweep ends it as of that expiry (regression: listed forever)', async () => {
    const { store } = engine();
    const { account } = await createAccount(store);
    const key = apiKeyRecord(account.id, { kind: 'oauth' });
    const connection = connectionRecord(account.id, key.id);
    await connectGranted(store, key, connection);
    const grant = oauthRecord({ model: 'Grant', grantId: connection.grantId, expiresAt: T0 + HOUR_MS });
    await store.oauth.upsert(grant);
    // Another account's connection with a live grant, untouched by the sweep.
    const { account: other } = await createAccount(store);
    const otherKey = apiKeyRecord(other.id, { kind: 'oauth' });
    const otherConnection = connectionRecord(other.id, otherKey.id);
    await connectGranted(store, otherKey, otherConnection);
    await store.oauth.upsert(oauthRecord({ model: 'Grant', grantId: otherConnection.grantId, expiresAt: T0 + 10 * HOUR_MS }));

    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 + HOUR_MS - 1 })).toEqual([{ ...connection, scopes: key.scopes }]);
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 + HOUR_MS })).toEqual([]);
    // A grant extended (a refresh) lists it again.
    await store.oauth.update({ model: 'Grant', idHash: grant.idHash, payload: grant.payload, expiresAt: T0 + 3 * HOUR_MS });
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 + 2 * HOUR_MS })).toHaveLength(1);

    expect(await store.oauth.pruneExpired(T0 + 3 * HOUR_MS)).toBe(0);
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBeNull();
    expect(await store.oauth.pruneExpired(T0 + 4 * HOUR_MS)).toBe(1);
    expect((await store.apiKeys.findById(key.id))?.revokedAt).toBe(T0 + 3 * HOUR_MS);
    expect(await store.oauth.revokeConnection({ keyId: key.id, accountId: account.id, at: T0 + 5 * HOUR_MS })).toBeNull();
    expect(await store.oauth.listConnections({ accountId: account.id, now: T0 })).toEqual([]);
    expect(await store.oauth.listConnections({ accountId: other.id, now: T0 + 4 * HOUR_MS })).toEqual([{ ...otherConnection, scopes: otherKey.scopes }]);
    expect((await store.apiKeys.findById(otherKey.id))?.revokedAt).toBeNull();
  });
});
