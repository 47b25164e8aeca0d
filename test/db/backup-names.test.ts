/** Names `porch backup` gives its files on SQLite, and the pg_dump command it prints for PostgreSQL. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, createStore } from '../../src/db/create-store.js';
import { pgDumpCommand, postgresLocation } from '../../src/db/postgres/location.js';

let directory: string;
let databaseUrl: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-backup-names-'));
  databaseUrl = `file:${join(directory, 'porch.db')}`;
  await (await createStore(databaseUrl)).close();
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('default backup names', () => {
  // Regression: four backups started in the same second: one failed with "...Z.db already exists", though -2 is promised.
  it('take the next suffix when another backup took the name meanwhile', async () => {
    const now = new Date('2026-11-29T18:00:00Z');
    const backups = await Promise.all([1, 2, 3, 4].map(() => backupDatabase(databaseUrl, undefined, now)));
    expect(backups.map((backup) => basename(backup.destination)).sort()).toEqual([
      'porch-backup-20261129T180000Z-2.db',
      'porch-backup-20261129T180000Z-3.db',
      'porch-backup-20261129T180000Z-4.db',
      'porch-backup-20261129T180000Z.db',
    ]);
    for (const backup of backups) expect(existsSync(backup.destination)).toBe(true);
  });

  it('are never changed when the operator named the file', async () => {
    const named = join(directory, 'named.db');
    const results = await Promise.allSettled([1, 2].map(() => backupDatabase(databaseUrl, named, new Date())));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected');
    expect(String(refused?.status === 'rejected' ? refused.reason : '')).toContain(`${named} already exists; a backup never overwrites a file`);
  });
});

describe('the pg_dump command', () => {
  // Regression: sslmode was dropped, and a database name with a space was not quoted.
  it('keeps sslmode and quotes what the shell would split', () => {
    expect(pgDumpCommand('postgres://porch:pw@db.internal:5433/my%20db?sslmode=require', 'porch backup.dump')).toBe(
      "PGSSLMODE=require pg_dump --format=custom --host=db.internal --port=5433 --dbname='my db' --file='porch backup.dump'",
    );
    expect(pgDumpCommand('postgres://porch:pw@db.internal/porch', 'b.dump')).toBe(
      'pg_dump --format=custom --host=db.internal --port=5432 --dbname=porch --file=b.dump',
    );
  });

  // Regression: a libpq socket URL, user and password but no host, was "not a valid PostgreSQL URL".
  it('reads a libpq socket URL', () => {
    expect(postgresLocation('postgres://porch:pw@/porch?host=/var/run/postgresql')).toBe('/var/run/postgresql:5432/porch');
    expect(pgDumpCommand('postgres://porch:pw@/porch?host=/var/run/postgresql', 'b.dump')).not.toContain('pw');
  });
});
