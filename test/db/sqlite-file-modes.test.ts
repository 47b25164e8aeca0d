/**
 * The SQLite database and the folder Porch creates for it are readable by their owner only:
 * they hold key hashes, BYOK ciphertexts and every account's data (regression: the folder was
 * created 0755 and the database and its WAL 0644, so any local user could read them).
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/db/create-store.js';
import type { Store } from '../../src/db/store.js';

const roots: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function permissions(path: string): number {
  return statSync(path).mode & 0o777;
}

function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'porch-modes-'));
  roots.push(root);
  return root;
}

describe('SQLite file modes', () => {
  it('creates the data folder 0700 and the database and its WAL 0600', async () => {
    const folder = join(freshRoot(), 'data');
    const store = await createStore(`file:${join(folder, 'porch.db')}`);
    stores.push(store);
    await store.accounts.count();
    expect(permissions(folder).toString(8)).toBe('700');
    expect(permissions(join(folder, 'porch.db')).toString(8)).toBe('600');
    expect(permissions(join(folder, 'porch.db-wal')).toString(8)).toBe('600');
  });

  it('takes group and world access away from a database an older version created, but leaves an existing folder alone', async () => {
    const folder = freshRoot();
    chmodSync(folder, 0o755);
    const path = join(folder, 'porch.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const store = await createStore(`file:${path}`);
    stores.push(store);
    expect(permissions(path).toString(8)).toBe('600');
    expect(permissions(folder).toString(8)).toBe('755');
  });

  it('keeps a read-only database read-only, taking away only group and world access (regression: it became 0600, writable)', async () => {
    const path = join(freshRoot(), 'porch.db');
    await (await createStore(`file:${path}`)).close();
    chmodSync(path, 0o444);
    // Whether it then opens is SQLite's and the operating system's call (root may write anyway).
    await createStore(`file:${path}`).then(
      (store) => stores.push(store),
      () => undefined,
    );
    expect(permissions(path).toString(8)).toBe('400');
  });
});
