/**
 * A failed query's error quotes the query's values (drizzle's DrizzleQueryError: in its message,
 * its stack and a `params` field). Logged, it keeps the SQL, the driver's reason and the stack
 * frames, and never the values: a lookup by email address on PostgreSQL with a NUL character in
 * it logged the address in full.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../src/db/create-store.js';
import type { Store } from '../src/db/store.js';
import { PorchError } from '../src/core/errors.js';
import { createLogger, withoutQueryParameters } from '../src/logger.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';

const VALUE = 'ada.lovelace-\u0000@example.com';

let database: TestDatabase;
let store: Store;
beforeAll(async () => {
  database = await createTestDatabase();
  store = await createStore(database.url);
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
});

/** The error a real failed query throws: PostgreSQL refuses the NUL character the value holds. */
async function failedQuery(): Promise<Error> {
  const failure = await store.accounts.findByEmail(VALUE).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(failure instanceof Error)) throw new Error('the query did not fail');
  return failure;
}

async function logged(err: unknown): Promise<string> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  createLogger('info', sink).error({ err }, 'failed');
  return lines.join('');
}

describe('a failed query in a log line', () => {
  it('keeps the SQL, the reason and the frames, not the values', async () => {
    const err = await failedQuery();
    expect(err.message, 'the driver error quotes the value, so the test can tell').toContain('ada.lovelace');
    const line = JSON.parse(await logged(err)) as { err: { type: string; message: string; stack: string; params?: unknown } };
    expect(line.err.type).toBe('FailedQueryError');
    expect(line.err.message).toMatch(/^Failed query: select .* from "accounts" where "accounts"\."email" = \$1: invalid byte sequence/);
    expect(line.err.stack).toMatch(/\n {4}at /);
    expect(line.err.params).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain('ada.lovelace');
  });

  it('is cleaned inside an error that wraps it, which keeps its own type and message', async () => {
    const wrapper = new PorchError('INTERNAL_ERROR', 'Saving failed.', {}, { cause: await failedQuery() });
    const line = await logged(wrapper);
    expect(line).not.toContain('ada.lovelace');
    const cleaned = withoutQueryParameters(wrapper);
    expect(cleaned).toBeInstanceOf(PorchError);
    expect((cleaned as PorchError).code).toBe('INTERNAL_ERROR');
    expect((cleaned as PorchError).message).toBe('Saving failed.');
  });

  it('leaves any other error as it is', () => {
    const plain = new Error('disk full');
    expect(withoutQueryParameters(plain)).toBe(plain);
  });
});
