/**
 * A database that holds another application's tables and no Porch migration history is not
 * Porch's to fill: both engines refuse it, naming the tables found, and change nothing in it.
 * An empty one is set up as before.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, migrateDatabase } from '../../src/db/create-store.js';
import { runPorch } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrated: false });
  databases.push(database);
  return database;
}

async function query(url: string, text: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ name: string }>(text);
    return result.rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('a PostgreSQL database of another application', () => {
  // Regression: Porch applied its migrations beside the other application's tables in the public schema.
  it('is refused as not a Porch database by migrate, the store and the CLI, and left unchanged', async () => {
    const database = await emptyDatabase();
    await query(database.url, 'create table users (id int primary key)');
    const refusal = /is not a Porch database: it holds tables \(users\) and no Porch migration history/;
    await expect(migrateDatabase(database.url)).rejects.toThrow(refusal);
    await expect(createStore(database.url)).rejects.toThrow(refusal);
    const listed = await runPorch(
      { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, LOG_LEVEL: 'silent', PORCH_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
      'account',
      'list',
    );
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(refusal);
    expect(await query(database.url, `select table_name as name from information_schema.tables where table_schema = 'public'`)).toEqual(['users']);
    expect(await query(database.url, `select schema_name as name from information_schema.schemata where schema_name = 'drizzle'`)).toEqual([]);
  });

  it('differs from an empty database, which is migrated', async () => {
    const database = await emptyDatabase();
    const report = await migrateDatabase(database.url);
    expect(report.applied.length).toBeGreaterThan(0);
    expect((await migrateDatabase(database.url)).applied).toEqual([]);
  });

  it("takes a new database holding only an extension's objects and a view for empty (regression: refused for pg_stat_statements)", async () => {
    const database = await emptyDatabase();
    await query(database.url, 'create extension pg_stat_statements');
    await query(database.url, 'create view reporting as select 1 as one');
    expect((await migrateDatabase(database.url)).applied.length).toBeGreaterThan(0);
  });
});
