/**
 * Another process's write lock is waited out on a timer, and only a call that wrote nothing
 * before meeting it is run again (src/db/sqlite/lock-waits.ts); two connections to one file play
 * the two processes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLockWaits } from '../../src/db/sqlite/lock-waits.js';

let folder: string;
let ours: Database.Database;
let theirs: Database.Database;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'porch-lock-waits-'));
  const file = join(folder, 'locks.db');
  ours = new Database(file);
  ours.pragma('journal_mode = WAL');
  ours.pragma('busy_timeout = 0');
  ours.exec('create table notes (text text not null)');
  theirs = new Database(file);
});
afterEach(async () => {
  if (theirs.inTransaction) theirs.exec('rollback');
  theirs.close();
  ours.close();
  await rm(folder, { recursive: true, force: true });
});

const notes = (): string[] => ours.prepare('select text from notes order by rowid').pluck().all() as string[];

/** A repository adding one note a call, in an IMMEDIATE transaction as the store's writes are. */
function noteRepository(waitingOutLocks: ReturnType<typeof createLockWaits>) {
  return waitingOutLocks({
    async add(text: string) {
      ours.transaction(() => ours.prepare('insert into notes (text) values (?)').run(text)).immediate();
      return text;
    },
  });
}

it('runs a call again once the lock is freed, when its first write met the lock', async () => {
  let attempts = 0;
  const repository = createLockWaits(ours)({
    async add(text: string) {
      attempts += 1;
      ours.transaction(() => ours.prepare('insert into notes (text) values (?)').run(text)).immediate();
      return text;
    },
  });
  theirs.exec('begin immediate');
  const adding = repository.add('one');
  await sleep(100);
  theirs.exec('rollback');
  await expect(adding).resolves.toBe('one');
  expect(attempts).toBeGreaterThan(1);
  expect(notes()).toEqual(['one']);
});

it('does not run a call again that wrote before it met the lock', async () => {
  let attempts = 0;
  const repository = createLockWaits(ours)({
    async addTwo() {
      attempts += 1;
      ours.prepare("insert into notes (text) values ('first')").run();
      // Another process takes the lock between the call's two statements.
      theirs.exec('begin immediate');
      ours.prepare("insert into notes (text) values ('second')").run();
    },
  });
  await expect(repository.addTwo()).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
  expect(attempts).toBe(1);
  expect(notes()).toEqual(['first']);
});

it('passes other errors through at once', async () => {
  let attempts = 0;
  const repository = createLockWaits(ours)({
    async broken() {
      attempts += 1;
      ours.prepare('insert into missing (text) values (1)').run();
    },
  });
  await expect(repository.broken()).rejects.toThrow(/no such table/);
  expect(attempts).toBe(1);
});

it('serves the calls that met the lock in the order they met it, once it is freed (regression: a call that had waited longest slept while later ones took the lock)', async () => {
  const repository = noteRepository(createLockWaits(ours));
  theirs.exec('begin immediate');
  const first = repository.add('first');
  // By now the first call has tried a few times and, backing off on its own, would sleep longest.
  await sleep(400);
  const later = ['second', 'third', 'fourth'].map((text) => repository.add(text));
  await sleep(20);
  theirs.exec('rollback');
  await Promise.all([first, ...later]);
  expect(notes()).toEqual(['first', 'second', 'third', 'fourth']);
});

it('gives up after 5 s in all, waiting in the queue included, and lets the next call take its turn', async () => {
  const repository = noteRepository(createLockWaits(ours));
  theirs.exec('begin immediate');
  const started = performance.now();
  const outcomes = await Promise.allSettled([repository.add('one'), repository.add('two')]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  expect(performance.now() - started).toBeLessThan(5_500);
  theirs.exec('rollback');
  await expect(repository.add('three')).resolves.toBe('three');
  expect(notes()).toEqual(['three']);
});

it('drains a long queue as soon as the lock is freed, each call trying when its turn comes (second review: one call a timer tick, 797 of 1,500 refused)', async () => {
  const repository = noteRepository(createLockWaits(ours));
  theirs.exec('begin immediate');
  const adds = Array.from({ length: 1_500 }, (_, index) => repository.add(`note ${index}`));
  // Most of the 5 s spent waiting: what is left must drain the whole queue.
  await sleep(4_000);
  theirs.exec('rollback');
  const outcomes = await Promise.allSettled(adds);
  expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(0);
  expect(notes()).toHaveLength(1_500);
});
