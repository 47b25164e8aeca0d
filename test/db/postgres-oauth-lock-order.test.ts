/**
 * PostgreSQL: revoking a grant while the sweep (or a console Revoke) ends its connection never
 * deadlocks. Those lock the connection's row and then delete the grant's rows; revokeGrant and
 * connect serialise on an advisory lock of the grant instead of its row, so no two take the same
 * rows in opposite orders (regression found by review: a row lock on the grant deadlocked, and
 * the store's retry hid it behind a second's stall).
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { postgresStorePerTest } from '../helpers/postgres.js';
import { apiKeyRecord, createAccount, T0 } from './fixtures.js';

/** PostgreSQL's default deadlock_timeout: a deadlock is found, and one side refused, only after it. */
const DEADLOCK_TIMEOUT_MS = 1_000;

const postgres = postgresStorePerTest();

it('revokes a grant while a transaction ending its connection (the sweep’s order) is open, without a deadlock', async () => {
  const { database, store } = postgres;
  const { account } = await createAccount(store);
  const key = apiKeyRecord(account.id, { kind: 'oauth' });
  const grantId = 'grant-lock-order';
  await store.oauth.upsert({ model: 'Grant', idHash: 'grant-hash', payload: '{}', grantId, uidHash: null, expiresAt: T0 });
  const connection = { keyId: key.id, accountId: account.id, clientId: 'client', clientName: 'Client', grantId, createdAt: T0, revokedAt: null };
  expect(await store.oauth.connect({ key, connection })).toBe(true);

  const sweep = new pg.Client({ connectionString: database.url });
  await sweep.connect();
  try {
    // pruneExpired's order: the connection first, then the grant's rows.
    await sweep.query('begin');
    await sweep.query('update oauth_connections set revoked_at = $1 where grant_id = $2', [T0, grantId]);
    const started = Date.now();
    const revoking = store.oauth.revokeGrant({ grantId, at: T0 + 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sweep.query('delete from oauth_records where grant_id = $1', [grantId]);
    await sweep.query('commit');
    await revoking;
    expect(Date.now() - started, 'no deadlock to wait out').toBeLessThan(DEADLOCK_TIMEOUT_MS);
  } finally {
    await sweep.end();
  }
});
