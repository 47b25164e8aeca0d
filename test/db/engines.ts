/**
 * The storage engines the contract suite runs on. Each `*.contract.test.ts` file runs its tests
 * once per engine listed here; an engine joins by adding an entry whose `prepare` gives a place
 * for the file's databases and whose `open` gives a fresh, empty one for each test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { createStore } from '../../src/db/create-store.js';
import type { Store } from '../../src/db/store.js';
import { createTestDatabase, emptyTestDatabase } from '../helpers/postgres.js';

export interface OpenedEngine {
  store: Store;
  /** Another connection to the same database, as a second Porch process would open. */
  openAnother(): Promise<Store>;
  /** Closes every connection opened and removes what the database left behind. */
  cleanup(): Promise<void>;
}

/** Where one test file's databases live, from its first test to its last. */
export interface EngineSession {
  /** A fresh, empty database for one test. */
  open(): Promise<OpenedEngine>;
  dispose(): Promise<void>;
}

export interface EngineUnderTest {
  name: string;
  /** Whether a second connection sees the same data (false for an in-memory database). */
  shared: boolean;
  prepare(): Promise<EngineSession>;
}

async function openUrl(databaseUrl: string, removeAfter: () => Promise<void>): Promise<OpenedEngine> {
  const opened: Store[] = [];
  const open = async () => {
    const store = await createStore(databaseUrl);
    opened.push(store);
    return store;
  };
  return {
    store: await open(),
    openAnother: open,
    async cleanup() {
      for (const store of opened) await store.close();
      await removeAfter();
    },
  };
}

const NOTHING_TO_REMOVE = async () => undefined;

export const ENGINES: EngineUnderTest[] = [
  {
    name: 'sqlite in memory',
    shared: false,
    prepare: async () => ({ open: () => openUrl(':memory:', NOTHING_TO_REMOVE), dispose: NOTHING_TO_REMOVE }),
  },
  {
    name: 'sqlite file',
    shared: true,
    async prepare() {
      const directory = await mkdtemp(join(tmpdir(), 'porch-contract-'));
      let next = 0;
      return {
        open: () => openUrl(`file:${join(directory, `porch-${next++}.db`)}`, NOTHING_TO_REMOVE),
        dispose: () => rm(directory, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    shared: true,
    // One database per file, emptied before each test: copying a database per test would cost most of the suite's time.
    async prepare() {
      const database = await createTestDatabase();
      return {
        async open() {
          await emptyTestDatabase(database.url);
          return openUrl(database.url, NOTHING_TO_REMOVE);
        },
        dispose: database.drop,
      };
    },
  },
];

/**
 * Runs `body` once per engine, inside a describe block named after it, with a fresh database
 * for every test: `engine()` returns the one the current test uses.
 */
export function describeEachEngine(title: string, body: (engine: () => OpenedEngine, definition: EngineUnderTest) => void): void {
  describe.each(ENGINES)(`${title} ($name)`, (definition) => {
    let session: EngineSession | null = null;
    let current: OpenedEngine | null = null;
    beforeAll(async () => {
      session = await definition.prepare();
    });
    afterAll(async () => {
      await session?.dispose();
      session = null;
    });
    beforeEach(async () => {
      if (session === null) throw new Error('the engine was not prepared');
      current = await session.open();
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
