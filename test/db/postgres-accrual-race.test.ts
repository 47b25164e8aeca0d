/**
 * PostgreSQL, READ COMMITTED: closing a reservation charges what was accrued under it, including a
 * call whose accrual committed while the close waited for the reservation's lock. A statement that
 * waits for a lock re-reads only the rows it locked, so the close reads the accruals in a second
 * statement; in one, such a call's tokens were never charged (regression found by review).
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { postgresStorePerTest } from '../helpers/postgres.js';
import { accruedCharging, createAccount, INSTANCE_ID, MINUTE_MS, T0, usageRecord } from './fixtures.js';

const postgres = postgresStorePerTest();

it('charges an accrual that commits while the release waits for the reservation lock', async () => {
  const { database, store } = postgres;
  const { account } = await createAccount(store, 10_000);
  const reservationId = newId();
  await store.credits.reserve({
    accountId: account.id,
    tokens: 500,
    minimumAvailableTokens: 0,
    at: T0,
    expiresAt: T0 + MINUTE_MS,
    reservationId,
    instanceId: INSTANCE_ID,
  });
  expect(await store.credits.accrue({ reservationId, usage: usageRecord(account.id, { chargedTokens: 30 }) })).toBe(true);

  // A second call's accrual is in flight on another connection: it holds the reservation's share
  // lock (as the store's accrue does) and has not committed.
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  try {
    await other.query('begin');
    const usage = usageRecord(account.id, { chargedTokens: 70 });
    const inserted = await other.query(
      `insert into usage_records (id, account_id, operation, reservation_id, model, input_tokens, output_tokens, total_tokens, charged_tokens,
         byok, duration_ms, status, retry, created_at)
       select $1, $2, 'execute_workflow', $3, 'echo/echo', 10, 20, 30, 70, false, 5, 'succeeded', false, $4
       where exists (select 1 from credit_reservations where id = $3 for share)`,
      [usage.id, account.id, reservationId, T0],
    );
    expect(inserted.rowCount).toBe(1);
    const releasing = store.credits.release(reservationId, accruedCharging(T0 + MINUTE_MS));
    // The release now waits for the share lock; the accrual commits during the wait.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.query('commit');
    await releasing;
  } finally {
    await other.end();
  }
  expect(await store.credits.balance(account.id)).toEqual({ balanceTokens: 10_000 - 100, reservedTokens: 0 });
  const charges = (await store.credits.ledger(account.id)).filter((entry) => entry.kind === 'usage');
  expect(charges.map((entry) => entry.deltaTokens)).toEqual([-100]);
});
