/** Which DATABASE_URL values open a database, and that every other one is refused by name. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { defaultDataDirectory } from '../../src/db/create-store.js';

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

describe('DATABASE_URL', () => {
  it('takes a plain path, a file: URL and :memory: as SQLite', () => {
    expect(defaultDataDirectory('./data/porch.db')).toBe(resolve('data'));
    expect(defaultDataDirectory('file:./data/porch.db')).toBe(resolve('data'));
    expect(defaultDataDirectory(':memory:')).toBeNull();
  });

  it('takes postgres:// and postgresql:// as PostgreSQL, which keeps no files beside it', () => {
    expect(defaultDataDirectory('postgres://app:secret@db/porch')).toBeNull();
    expect(defaultDataDirectory('postgresql://app:secret@db.internal:6432/porch?sslmode=require')).toBeNull();
  });

  it.each(['postgres://app:secret@db', 'postgres://app:secret@db/', 'postgres://', 'postgres://app:secret@[db/porch'])(
    'refuses the malformed PostgreSQL URL %s, naming DATABASE_URL and not the password',
    (url) => {
      const attempt = () => loadConfig({ DATABASE_URL: url, PORCH_SECRET_KEY: SECRET_KEY }, '/nowhere');
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/^DATABASE_URL/);
      expect(attempt).not.toThrow(/secret/);
    },
  );

  it('requires PORCH_SECRET_KEY with PostgreSQL, since every process must read the BYOK keys the others stored', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://app:secret@db/porch' }, '/nowhere')).toThrow(/PORCH_SECRET_KEY/);
    expect(loadConfig({ DATABASE_URL: 'postgres://app:secret@db/porch', PORCH_SECRET_KEY: SECRET_KEY }, '/nowhere').databaseUrl).toMatch(/^postgres:/);
  });

  // Regression: `foo:bar` had no `://`, so it was opened as an SQLite file named "foo:bar".
  it.each(['mysql://app:secret@db/porch', 'http://x', 'foo:bar', 'sqlite3:porch.db'])('refuses %s, naming DATABASE_URL and not the password', (url) => {
    const attempt = () => loadConfig({ DATABASE_URL: url }, '/nowhere');
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^DATABASE_URL starts with [a-z0-9]+:, which names no database Porch supports/);
    expect(attempt).not.toThrow(/secret/);
  });
});
