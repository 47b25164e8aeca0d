/**
 * What an operator sees when DATABASE_URL points at a PostgreSQL that cannot be used: a message
 * naming the setting and the fix, never the password, and nothing written.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/db/create-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

describe('opening PostgreSQL', () => {
  it('says it cannot reach a server that is not there, naming DATABASE_URL', async () => {
    // Port 1 on loopback refuses connections at once.
    const attempt = createStore('postgres://porch:secret-password@127.0.0.1:1/porch');
    await expect(attempt).rejects.toThrow(/^DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:1\/porch/);
    await expect(attempt).rejects.not.toThrow(/secret-password/);
  });

  it('says the credentials were refused, without echoing them', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const attempt = createStore(withPassword(database.url, 'wrong-secret-password'));
    await expect(attempt).rejects.toThrow(/^DATABASE_URL: PostgreSQL at .* refused the user name or password/);
    await expect(attempt).rejects.not.toThrow(/wrong-secret-password/);
  });

  it('says which database does not exist', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const missing = new URL(database.url);
    missing.pathname = '/porch_no_such_database';
    await expect(createStore(missing.toString())).rejects.toThrow(/^DATABASE_URL: the database .*porch_no_such_database does not exist/);
  });

  it('refuses a database a newer Porch migrated, and changes nothing in it', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const future = Date.now() + 365 * 24 * 3600 * 1000;
      await client.query(`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-the-future', $1)`, [future]);
      const before = await client.query('select count(*)::int as n from drizzle.__drizzle_migrations');
      await expect(createStore(database.url)).rejects.toThrow(/^DATABASE_URL: the database .* was migrated by a newer version of Porch/);
      const after = await client.query('select count(*)::int as n from drizzle.__drizzle_migrations');
      expect(after.rows[0]).toEqual(before.rows[0]);
    } finally {
      await client.end();
    }
  });

  it('lets processes that start together migrate a new database once, without racing', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // An empty database: drop what the template brought, so the four openers below all find work to do.
      await admin.query('drop schema public cascade; create schema public; drop schema drizzle cascade');
    } finally {
      await admin.end();
    }
    const stores = await Promise.all([1, 2, 3, 4].map(() => createStore(database.url)));
    try {
      expect(await Promise.all(stores.map((store) => store.accounts.count()))).toEqual([0, 0, 0, 0]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
