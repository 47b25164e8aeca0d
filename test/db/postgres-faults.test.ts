/**
 * PostgreSQL going away under a running server: requests are answered 503 with Retry-After (never
 * a 500 or a crash), and service resumes by itself once the database is back. The server reaches
 * PostgreSQL through a TCP relay the test can cut, as a network partition or a database restart
 * would.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { RELEASE_VARIABLES } from '../helpers/operation-samples.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { PostgresRelay } from '../helpers/postgres-relay.js';
import { TEST_SECRET_KEY } from '../reliability/porch-process.js';

let database: TestDatabase;
let relay: PostgresRelay;
let harness: Harness;

beforeAll(async () => {
  database = await createTestDatabase();
  const relayed = await PostgresRelay.to(database.url);
  relay = relayed.relay;
  harness = await createHarness({ env: { DATABASE_URL: relayed.relayedUrl, PORCH_SECRET_KEY: TEST_SECRET_KEY } });
});

// Closing waits a bounded time for connections cut mid-statement.
afterAll(async () => {
  await harness?.close();
  await relay?.cut();
  await database?.drop();
}, 60_000);

describe('PostgreSQL out of reach', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the database cannot be reached, then serves again by itself', async () => {
    const { key } = await harness.expertWithKey();
    expect((await harness.api('GET', '/context-cards', { key })).status).toBe(200);

    await relay.cut();
    for (const path of ['/context-cards', '/skills']) {
      const refused = await harness.api('GET', path, { key });
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(refused.body.error.message).not.toMatch(/postgres|ECONN|127\.0\.0\.1/i);
      expect(refused.headers.get('retry-after')).toBe('1');
    }
    expect((await harness.api('GET', '/health')).status).toBe(503);

    await relay.open();
    await expect.poll(async () => (await harness.api('GET', '/context-cards', { key })).status, { timeout: 10_000 }).toBe(200);
    expect((await harness.api('GET', '/health')).status).toBe(200);
  });
});

describe('PostgreSQL restarted under load', () => {
  it('answers the calls cut by a terminated connection with 503, never crashing the process (regression: an unhandled error event)', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const { ids } = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
    const path = `/compositions/${ids['composition:release-notes']}/execute`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const terminate = () =>
        admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
      for (let round = 0; round < 5; round++) {
        const calls = Array.from({ length: 6 }, () => harness.api('POST', path, { key, body: { variables: RELEASE_VARIABLES } }));
        await new Promise((resolve) => setTimeout(resolve, 5 + round * 3));
        await terminate();
        const statuses = (await Promise.all(calls)).map((response) => response.status);
        expect(
          statuses.every((status) => status === 200 || status === 503),
          statuses.join(','),
        ).toBe(true);
      }
    } finally {
      await admin.end();
    }
    // A statement cut mid-flight can wait for the driver's query timeout, and the store counts as stalled a while after.
    await expect.poll(async () => (await harness.api('GET', '/context-cards', { key })).status, { timeout: 90_000, interval: 500 }).toBe(200);
  }, 240_000);
});
