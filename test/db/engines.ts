/**
 * The storage engines the contract suite runs on. Each `*.contract.test.ts` file runs its tests
 * once per engine listed here; a new engine (PostgreSQL) joins by adding an entry whose `open`
 * gives a fresh, empty database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe } from 'vitest';
import { createStore } from '../../src/db/create-store.js';
import type { Store } from '../../src/db/store.js';

export interface OpenedEngine {
  store: Store;
  /** Another connection to the same database, as a second Porch process would open. */
  openAnother(): Store;
  /** Closes every connection opened and removes what the database left behind. */
  cleanup(): Promise<void>;
}

export interface EngineUnderTest {
  name: string;
  /** Whether a second connection sees the same data (false for an in-memory database). */
  shared: boolean;
  open(): Promise<OpenedEngine>;
}

async function openUrl(databaseUrl: string, removeAfter: string | null): Promise<OpenedEngine> {
  const opened: Store[] = [];
  const open = () => {
    const store = createStore(databaseUrl);
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    openAnother: open,
    async cleanup() {
      for (const store of opened) await store.close();
      if (removeAfter !== null) await rm(removeAfter, { recursive: true, force: true });
    },
  };
}

export const ENGINES: EngineUnderTest[] = [
  { name: 'sqlite in memory', shared: false, open: () => openUrl(':memory:', null) },
  {
    name: 'sqlite file',
    shared: true,
    async open() {
      const directory = await mkdtemp(join(tmpdir(), 'porch-contract-'));
      return openUrl(`file:${join(directory, 'porch.db')}`, directory);
    },
  },
];

/**
 * Runs `body` once per engine, inside a describe block named after it, with a fresh database
 * for every test: `engine()` returns the one the current test uses.
 */
export function describeEachEngine(title: string, body: (engine: () => OpenedEngine, definition: EngineUnderTest) => void): void {
  describe.each(ENGINES)(`${title} ($name)`, (definition) => {
    let current: OpenedEngine | null = null;
    beforeEach(async () => {
      current = await definition.open();
    });
    afterEach(async () => {
      await current?.cleanup();
      current = null;
    });
    body(() => {
      if (current === null) throw new Error('no engine is open outside a test');
      return current;
    }, definition);
  });
}
