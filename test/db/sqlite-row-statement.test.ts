/**
 * rowStatement (src/db/sqlite/row-statement.ts) reads rows as drizzle would type and decode
 * them, for a flat selection and for a join grouped by table, whose tables' like-named columns
 * (`id`, `created_at`) must land in their own records.
 */
import { eq, getTableColumns, sql } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/db/sqlite/index.js';
import { rowStatement } from '../../src/db/sqlite/row-statement.js';
import { accounts, apiKeys } from '../../src/db/sqlite/schema.js';
import { apiKeyRecord, createAccount } from './fixtures.js';

let store: SqliteStore | null = null;
afterEach(async () => {
  await store?.close();
});

async function storeWithKey() {
  store = createSqliteStore(':memory:');
  const { account } = await createAccount(store);
  const key = apiKeyRecord(account.id, { scopes: ['workflows:read'], expiresAt: 1_900_000_000_000 });
  await store.apiKeys.insertIfBelowLimit({ key, maxActive: 5, now: 0 });
  return { store, db: store.database.db, account, key };
}

it('decodes a flat selection as drizzle does', async () => {
  const { db, key } = await storeWithKey();
  const read = rowStatement(db, getTableColumns(apiKeys), (fields) =>
    db
      .select(fields)
      .from(apiKeys)
      .where(eq(apiKeys.id, sql.placeholder('id'))),
  );
  expect(read.get({ id: key.id })).toEqual(db.select().from(apiKeys).where(eq(apiKeys.id, key.id)).get());
  expect(read.get({ id: 'none' })).toBeUndefined();
  expect(read.all({ id: key.id })).toHaveLength(1);
});

it('decodes a join grouped by table into one record per table', async () => {
  const { db, account, key } = await storeWithKey();
  const read = rowStatement(db, { key: getTableColumns(apiKeys), account: getTableColumns(accounts) }, (fields) =>
    db
      .select(fields)
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(eq(apiKeys.id, sql.placeholder('id'))),
  );
  const row = read.get({ id: key.id });
  expect(row).toEqual(db.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(accounts.id, apiKeys.accountId)).get());
  expect(row?.key.id).toBe(key.id);
  expect(row?.account.id).toBe(account.id);
  expect(row?.key.scopes).toEqual(['workflows:read']);
});

it('refuses a selection that is not the one the query reads', async () => {
  const { db } = await storeWithKey();
  expect(() => rowStatement(db, { id: apiKeys.id }, () => db.select({ id: apiKeys.id, hash: apiKeys.hash }).from(apiKeys))).toThrow(/reads id, hash/);
  expect(() =>
    rowStatement(db, { id: apiKeys.id, account: { id: accounts.id } }, (fields) =>
      db.select(fields).from(apiKeys).innerJoin(accounts, eq(accounts.id, apiKeys.accountId)),
    ),
  ).toThrow(/either flat or grouped/);
});
