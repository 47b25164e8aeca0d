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
import { waitingOutLocks } from '../../src/db/sqlite/lock-waits.js';

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

const notes = (): string[] => ours.prepare('select text from notes').pluck().all() as string[];

it('runs a call again once the lock is freed, when its first write met the lock', async () => {
  let attempts = 0;
  const repository = waitingOutLocks(
    {
      async add(text: string) {
        attempts += 1;
        ours.transaction(() => ours.prepare('insert into notes (text) values (?)').run(text)).immediate();
        return text;
      },
    },
    ours,
  );
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
  const repository = waitingOutLocks(
    {
      async addTwo() {
        attempts += 1;
        ours.prepare("insert into notes (text) values ('first')").run();
        // Another process takes the lock between the call's two statements.
        theirs.exec('begin immediate');
        ours.prepare("insert into notes (text) values ('second')").run();
      },
    },
    ours,
  );
  await expect(repository.addTwo()).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
  expect(attempts).toBe(1);
  expect(notes()).toEqual(['first']);
});

it('passes other errors through at once', async () => {
  let attempts = 0;
  const repository = waitingOutLocks(
    {
      async broken() {
        attempts += 1;
        ours.prepare('insert into missing (text) values (1)').run();
      },
    },
    ours,
  );
  await expect(repository.broken()).rejects.toThrow(/no such table/);
  expect(attempts).toBe(1);
});
