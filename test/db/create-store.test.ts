/** Which DATABASE_URL values open a database, and that every other one is refused by name. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { defaultDataDirectory } from '../../src/db/create-store.js';

describe('DATABASE_URL', () => {
  it('takes a plain path, a file: URL and :memory: as SQLite', () => {
    expect(defaultDataDirectory('./data/porch.db')).toBe(resolve('data'));
    expect(defaultDataDirectory('file:./data/porch.db')).toBe(resolve('data'));
    expect(defaultDataDirectory(':memory:')).toBeNull();
  });

  it('refuses PostgreSQL as not available in this version', () => {
    expect(() => defaultDataDirectory('postgres://app:secret@db/porch')).toThrow(/PostgreSQL is not available in this version/);
  });

  // Regression: `foo:bar` had no `://`, so it was opened as an SQLite file named "foo:bar".
  it.each(['mysql://app:secret@db/porch', 'http://x', 'foo:bar', 'sqlite3:porch.db'])('refuses %s, naming DATABASE_URL and not the password', (url) => {
    const attempt = () => loadConfig({ DATABASE_URL: url }, '/nowhere');
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^DATABASE_URL starts with [a-z0-9]+:, which names no database Porch supports/);
    expect(attempt).not.toThrow(/secret/);
  });
});
