/**
 * SQLite that cannot answer right now: a write lock another process holds past the busy timeout,
 * and a disk that refuses writes. Both are the store being unavailable, so the API answers 503
 * with Retry-After, as for PostgreSQL out of reach (regression: 500 INTERNAL_ERROR), and a full
 * disk also takes the process out of readiness, although `select 1` still answers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { longestEventLoopDelay, STALL_BOUND_MS } from '../helpers/event-loop-delay.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';
import { fillSqliteDisk, sqliteFileOf } from '../helpers/store-inspection.js';

let folder: string;
let harness: Harness;
let key: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'porch-sqlite-outages-'));
  harness = await createHarness({ env: { DATABASE_URL: `file:${join(folder, 'porch.db')}` } });
  ({ key } = await harness.expertWithKey());
});
afterEach(async () => {
  await harness.close();
  await rm(folder, { recursive: true, force: true });
});

it('answers 503 with Retry-After while another process holds the write lock past the busy timeout, and serves once it is freed', async () => {
  const other = new Database(sqliteFileOf(harness.store));
  other.exec('begin immediate');
  try {
    const locked = await harness.api('POST', '/context-cards', { key, body: { title: 'T', content: 'C' } });
    expect(locked.status, describeResponse(locked)).toBe(503);
    expect(locked.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(locked.headers.get('retry-after')).toBe('1');
  } finally {
    other.exec('rollback');
    other.close();
  }
  const freed = await harness.api('POST', '/context-cards', { key, body: { title: 'T', content: 'C' } });
  expect(freed.status, describeResponse(freed)).toBe(201);
});

it("keeps serving while a write waits for another process's lock, and the write succeeds once it is freed (regression: the wait held the event loop)", async () => {
  const other = new Database(sqliteFileOf(harness.store));
  other.exec('begin immediate');
  let writeAnswered = false;
  const { longestMs, result } = await longestEventLoopDelay(async () => {
    const write = harness.api('POST', '/context-cards', { key, body: { title: 'T', content: 'C' } }).finally(() => {
      writeAnswered = true;
    });
    try {
      await sleep(500);
      // Served meanwhile (an authenticated read would wait too: it counts toward the key's
      // rate limit, a write).
      const health = await harness.api('GET', '/health');
      expect([health.status, writeAnswered]).toEqual([200, false]);
    } finally {
      other.exec('rollback');
      other.close();
    }
    return await write;
  });
  expect(result.status, describeResponse(result)).toBe(201);
  expect(longestMs).toBeLessThan(STALL_BOUND_MS);
});

it('answers 503 naming a full disk, and is not ready meanwhile although the database still reads', async () => {
  expect((await harness.site('GET', '/readyz')).status).toBe(200);
  const warn = vi.spyOn(harness.core.logger, 'warn');
  const undo = fillSqliteDisk(harness.store);
  try {
    const big = 'x'.repeat(90_000);
    const full = await harness.api('POST', '/context-cards', { key, body: { title: 'Big', content: big } });
    expect(full.status, describeResponse(full)).toBe(503);
    expect(full.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(full.headers.get('retry-after')).toBe('1');
    // The operator learns why (second review: an operation's 503 was never logged).
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ reason: 'The disk holding the SQLite database is full.', operation: 'create_context_card' }),
      'the database could not answer; requests get 503 until it can',
    );
    const ready = await harness.site('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toMatchObject({ status: 'not ready', checks: { store: 'unavailable' } });
  } finally {
    undo();
  }
});
