/**
 * `porch db copy` at the engine level: a populated Porch database moves from SQLite to
 * PostgreSQL and back with nothing lost or changed, as the storage ports read it; the copy is
 * all or nothing; and it reports the counts and the ledger checksum it verified.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { copyDatabase } from '../../src/db/copy-database.js';
import { createStore, openCopySource } from '../../src/db/create-store.js';
import type { Store } from '../../src/db/store.js';
import { COPIED_TABLES, type CopiedRow, type CopiedTable } from '../../src/db/table-copy.js';
import { runPorch } from '../helpers/cli.js';
import { defined } from '../helpers/defined.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { INSTANCE_ID, MINUTE_MS, T0, accruedCharging, byokKeyRecord, usageRecord } from './fixtures.js';

/** Small batches, so every table of more than a few rows is read and written in several. */
const BATCH_ROWS = 7;
const USAGE_RECORDS = 40;

let directory: string;
let sourceUrl: string;
let accountIds: string[] = [];
let organisationIds: string[] = [];
const databases: TestDatabase[] = [];

async function porch(...args: string[]) {
  const result = await runPorch({ PATH: process.env.PATH ?? '', DATABASE_URL: sourceUrl, LOG_LEVEL: 'silent' }, ...args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

async function postgresDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

/**
 * A database with some of everything: accounts, keys, a bundle import, cards and
 * sanitiser rules through the CLI; BYOK keys, usage, charges, reservations, idempotency records, a
 * workflow run and rate-limit counters through the ports.
 */
async function populate(): Promise<void> {
  await porch('db', 'init');
  for (const email of ['ada@example.com', 'grace@example.com']) {
    const account = JSON.parse(await porch('account', 'create', '--email', email, '--plan', 'expert', '--credits', '100', '--json')) as { id: string };
    accountIds.push(account.id);
    await porch('key', 'create', '--account', account.id, '--scopes', 'api:expert', '--json');
    await porch('credits', 'grant', '--account', account.id, '--credits', '5');
  }
  const [ada = '', grace = ''] = accountIds;
  await porch('import', 'examples/bundle.yaml', '--account', ada);
  const store = await createStore(sourceUrl);
  try {
    organisationIds = await Promise.all(
      accountIds.map(async (id) => defined((await store.accounts.findById(id)) ?? undefined, `account ${id}`).organisationId),
    );
    const [organisation = ''] = organisationIds;
    await porch('sanitiser', 'rule', 'add', '--org', organisation, '--id', 'custom.project', '--label', 'Project name', '--keywords', 'bluebird,redwing');
    await store.byokKeys.put(byokKeyRecord({ organisationId: organisation }));
    await store.byokKeys.put(byokKeyRecord({ accountId: ada }));
    for (let index = 0; index < USAGE_RECORDS; index += 1) {
      await store.usage.insert(usageRecord(grace, { createdAt: T0 + index * MINUTE_MS, model: index % 2 === 0 ? 'echo/echo' : null, byok: index % 3 === 0 }));
    }
    for (let index = 0; index < 10; index += 1) {
      const reservationId = newId();
      await store.credits.reserve({
        accountId: ada,
        tokens: 500,
        minimumAvailableTokens: 0,
        at: T0,
        expiresAt: T0 + MINUTE_MS,
        instanceId: INSTANCE_ID,
        reservationId,
      });
      if (index < 9) {
        await store.credits.settle({
          reservationId,
          chargeTokens: 100 + index,
          reference: `run-${index}`,
          at: T0 + index,
          entryId: newId(),
          usage: usageRecord(ada),
        });
      }
    }
    for (let index = 0; index < 12; index += 1) {
      const claim = {
        accountId: index % 2 === 0 ? ada : grace,
        idempotencyKey: `key-${index}`,
        operation: 'execute_composition',
        requestHash: `hash-${index}`,
      };
      await store.idempotency.claim({
        ...claim,
        now: T0,
        expiresAt: T0 + 86_400_000,
        instanceId: INSTANCE_ID,
        charging: accruedCharging(T0),
        mayReleaseLapsed: true,
      });
      if (index < 10)
        await store.idempotency.complete({
          ...claim,
          instanceId: INSTANCE_ID,
          status: 200,
          body: { output: `answer ${index}`, nested: { z: 1, a: [true, null] } },
        });
    }
    await store.runs.insert({
      id: newId(),
      accountId: ada,
      keyId: null,
      kind: 'workflow',
      resourceId: 'workflow-x',
      version: null,
      status: 'completed',
      model: null,
      inputTokens: 1,
      outputTokens: 2,
      totalTokens: 3,
      chargedTokens: 3,
      durationMs: 12,
      createdAt: T0,
      payload: { inputs: { variables: {} }, result: { b: 2, a: 1 } },
    });
    // A webhook endpoint (secret encrypted, a rotated one in grace), its outbox and its attempt log.
    const endpointId = newId();
    await store.webhooks.insertEndpointIfBelowLimit({
      endpoint: {
        id: endpointId,
        accountId: ada,
        url: 'https://hooks.example.com/porch',
        description: 'copied',
        events: ['run.completed', 'credits.low'],
        enabled: true,
        encryptedSecret: 'v1.new.secret.blob',
        previousEncryptedSecret: 'v1.old.secret.blob',
        previousSecretExpiresAt: T0 + 3_600_000,
        createdAt: T0,
        updatedAt: T0,
      },
      maxPerAccount: 10,
    });
    for (let index = 0; index < 3; index += 1) {
      const eventId = newId();
      await store.webhooks.enqueue({
        id: eventId,
        accountId: ada,
        type: 'run.completed',
        payload: `{"type":"run.completed","n":${index}}`,
        createdAt: T0 + index,
      });
      if (index > 0) {
        await store.webhooks.recordAttempt({
          attempt: {
            id: newId(),
            endpointId,
            eventId,
            attemptedAt: T0 + index,
            statusCode: index === 1 ? 500 : null,
            durationMs: 40,
            error: index === 1 ? 'http_status' : 'timeout',
          },
          status: index === 1 ? 'pending' : 'failed',
          nextAttemptAt: index === 1 ? T0 + 5_000 : null,
        });
      }
    }
    for (let index = 0; index < 9; index += 1) {
      await store.rateLimits.consume({ keyId: `rate-key-${index % 3}`, requestsPerMinute: 100, requestsPerDay: 1_000, nowSeconds: T0 / 1000 + index });
    }
  } finally {
    await store.close();
  }
}

/** Every row of every table, in primary-key order, as the engine-neutral reader gives them. */
async function allRows(databaseUrl: string): Promise<Record<CopiedTable, CopiedRow[]>> {
  const source = await openCopySource(databaseUrl);
  try {
    const rows = {} as Record<CopiedTable, CopiedRow[]>;
    for (const table of COPIED_TABLES) {
      rows[table] = [];
      for await (const batch of source.batches(table, 100)) rows[table].push(...batch);
    }
    return rows;
  } finally {
    await source.close();
  }
}

/** What the storage ports answer about the populated accounts, for comparing two databases. */
async function readThroughPorts(databaseUrl: string) {
  const store: Store = await createStore(databaseUrl);
  try {
    const perAccount = await Promise.all(
      accountIds.map(async (accountId) => ({
        account: await store.accounts.findById(accountId),
        keys: await store.apiKeys.listByAccount(accountId),
        balance: await store.credits.balance(accountId),
        ledger: await store.credits.ledger(accountId),
        usage: await store.usage.listByAccount(accountId),
        cards: await store.contextCards.list({ accountId, page: {} }),
        catalog: await store.catalog.exportAll(accountId),
        replay: await store.idempotency.claim({
          accountId,
          idempotencyKey: accountId === accountIds[0] ? 'key-0' : 'key-1',
          operation: 'execute_composition',
          requestHash: accountId === accountIds[0] ? 'hash-0' : 'hash-1',
          now: T0,
          expiresAt: T0 + 86_400_000,
          instanceId: INSTANCE_ID,
          charging: accruedCharging(T0),
          mayReleaseLapsed: true,
        }),
      })),
    );
    const perOrganisation = await Promise.all(
      organisationIds.map(async (organisationId) => ({
        organisation: await store.organisations.findById(organisationId),
        rules: await store.sanitiserRules.list(organisationId),
        rulesVersion: await store.sanitiserRules.version(organisationId),
        byok: await store.byokKeys.list({ organisationId }),
      })),
    );
    // The next request in the same minute continues the counts it had: the window was copied, not reset.
    const nextRequest = await store.rateLimits.consume({ keyId: 'rate-key-0', requestsPerMinute: 100, requestsPerDay: 1_000, nowSeconds: T0 / 1000 + 20 });
    return { accounts: await store.accounts.list(), perAccount, perOrganisation, nextRequest };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-copy-'));
  sourceUrl = `file:${join(directory, 'source.db')}`;
  accountIds = [];
  await populate();
});

afterAll(async () => {
  for (const database of databases) await database.drop();
  await rm(directory, { recursive: true, force: true });
});

describe('porch db copy', () => {
  it('moves a populated SQLite database to PostgreSQL and back with every row and every port answer unchanged', async () => {
    const postgres = await postgresDatabase();
    const backUrl = `file:${join(directory, 'back.db')}`;
    const before = await allRows(sourceUrl);
    expect(before.usage_records.length).toBeGreaterThan(USAGE_RECORDS);
    expect(before.idempotency_records.length).toBeGreaterThan(BATCH_ROWS);

    await copyDatabase(sourceUrl, postgres.url, { batchRows: BATCH_ROWS });
    expect(await allRows(postgres.url)).toEqual(before);
    await copyDatabase(postgres.url, backUrl, { batchRows: BATCH_ROWS });
    expect(await allRows(backUrl)).toEqual(before);

    const expected = await readThroughPorts(sourceUrl);
    expect(expected.nextRequest).toMatchObject({ allowed: true, minuteCount: 4, dayCount: 4 });
    expect(await readThroughPorts(postgres.url)).toEqual(expected);
    expect(await readThroughPorts(backUrl)).toEqual(expected);
  });

  it('reports the rows of every table and the ledger checksum on both sides, equal', async () => {
    const postgres = await postgresDatabase();
    const report = await copyDatabase(sourceUrl, postgres.url);
    const rows = await allRows(sourceUrl);
    expect(report.source).toEqual({ engine: 'sqlite', location: join(directory, 'source.db') });
    expect(report.target.engine).toBe('postgres');
    expect(report.tables.map((count) => count.table)).toEqual([...COPIED_TABLES]);
    for (const count of report.tables)
      expect(count, count.table).toEqual({ table: count.table, source: rows[count.table].length, target: rows[count.table].length });
    expect(report.ledgerSha256.source).toMatch(/^[0-9a-f]{64}$/);
    expect(report.ledgerSha256.target).toBe(report.ledgerSha256.source);
  });

  it('refuses a target that holds data and leaves it unchanged', async () => {
    const postgres = await postgresDatabase();
    await copyDatabase(sourceUrl, postgres.url);
    const before = await allRows(postgres.url);
    await expect(copyDatabase(sourceUrl, postgres.url)).rejects.toThrow(/is not empty \(organisations: 2, accounts: 2, .*nothing was written/);
    expect(await allRows(postgres.url)).toEqual(before);
  });

  it('leaves the target empty when a row fails half-way through the copy', async () => {
    const postgres = await postgresDatabase();
    const brokenUrl = `file:${join(directory, 'broken.db')}`;
    await copyDatabase(sourceUrl, brokenUrl);
    const broken = await createStore(brokenUrl);
    try {
      // PostgreSQL text cannot hold a NUL character, SQLite's can: the usage_records batch fails
      // after the accounts, keys and ledger before it were written.
      await broken.usage.insert(usageRecord(defined(accountIds[1], 'a second account'), { model: 'echo\u0000echo' }));
    } finally {
      await broken.close();
    }
    await expect(copyDatabase(brokenUrl, postgres.url, { batchRows: BATCH_ROWS })).rejects.toThrow(
      /refused a row of usage_records \(invalid byte sequence .*0x00\); the copy was rolled back/,
    );
    const after = await allRows(postgres.url);
    for (const table of COPIED_TABLES) expect(after[table], table).toEqual([]);
  });

  it('refuses to copy a database onto itself', async () => {
    await expect(copyDatabase(sourceUrl, sourceUrl)).rejects.toThrow(/--to names the database DATABASE_URL names/);
  });
});
