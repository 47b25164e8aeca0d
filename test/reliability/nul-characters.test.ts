/**
 * The NUL character (U+0000) is refused wherever text comes in, alike on both engines: PostgreSQL
 * text can neither store nor compare it, and before this every write or lookup that carried one
 * there (a composition's name, a key's name, a sign-in's email address, a bundle's template) was
 * a 500, while SQLite stored it. Each case runs on SQLite and on the run's PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PorchError } from '../../src/core/errors.js';
import { consoleBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { TEST_SECRET_KEY } from './porch-process.js';

const NUL_REFUSAL = 'must not contain the NUL character (U+0000)';

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('a NUL character on %s', (_engine, onPostgres) => {
  let database: TestDatabase | undefined;
  let harness: Harness;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    database = onPostgres ? await createTestDatabase() : undefined;
    harness = await createHarness(database ? { env: { DATABASE_URL: database.url, PORCH_SECRET_KEY: TEST_SECRET_KEY } } : {});
    ({ key, accountId } = await harness.expertWithKey({ scopes: ['write:composition', 'read:composition', 'manage:keys'] }));
  });
  afterAll(async () => {
    await harness?.close();
    await database?.drop();
  });

  const compositionCount = async () => (await harness.api<{ count: number }>('GET', '/compositions', { key })).body.data.count;

  it.each([
    ['a name', { name: 'Greeting\u0000', template: 'Hello {{name}}' }, 'body.name'],
    ['a template', { name: 'Greeting', template: 'Hello\u0000{{name}}' }, 'body.template'],
    ['a tag', { name: 'Greeting', template: 'Hello', tags: ['ok', 'bad\u0000'] }, 'body.tags[1]'],
  ])('in %s of a new composition is a 400 naming the field, and nothing is written', async (_what, body, field) => {
    const before = await compositionCount();
    const response = await harness.api('POST', '/compositions', { key, body });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.message).toBe(`Invalid request: ${field}: ${NUL_REFUSAL}.`);
    expect(await compositionCount()).toBe(before);
  });

  it('in a name of an object is a 400 too', async () => {
    const response = await harness.api('POST', '/compositions', { key, body: { name: 'Greeting', template: 'Hello', 'odd\u0000': 1 } });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.message).toContain(NUL_REFUSAL);
  });

  it("in a new key's name, and in a list's search, is a 400", async () => {
    const created = await harness.api('POST', '/keys', { key, body: { name: 'ci\u0000', scopes: ['read:composition'] } });
    expect(created.status, created.text).toBe(400);
    expect(created.body.error.message).toBe(`Invalid request: body.name: ${NUL_REFUSAL}.`);
    const searched = await harness.api('GET', '/compositions?search=a%00b', { key });
    expect(searched.status, searched.text).toBe(400);
    expect(searched.body.error.message).toBe(`Invalid request: query.search: ${NUL_REFUSAL}.`);
  });

  it('a lone surrogate in a string or a name is a 400 too (regression: stored as U+FFFD, differently by engine)', async () => {
    const before = await compositionCount();
    for (const [rawBody, field] of [
      ['{"name":"Greeting \\ud800","template":"Hello"}', 'body.name'],
      ['{"name":"Greeting","template":"Hello","tags":["\\udfff"]}', 'body.tags[0]'],
    ]) {
      const response = await harness.api('POST', '/compositions', { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error.message).toContain(`${field}: must be valid Unicode text`);
    }
    const paired = await harness.api('POST', '/compositions', {
      key,
      rawBody: '{"name":"Greeting \\ud83d\\ude00","template":"Hello"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(paired.status, paired.text).toBe(201);
    expect(await compositionCount()).toBe(before + 1);
  });

  it('leaves the same text without it accepted', async () => {
    const response = await harness.api('POST', '/compositions', { key, body: { name: 'Greeting \\u0000', template: 'Hello {{name}}' } });
    expect(response.status, response.text).toBe(201);
  });

  it("in a console sign-in's email address is a 400 page, not a 500", async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/console/sign-in');
    const page = await browser.post('/console/sign-in', { email: 'ada\u0000@example.com', password: 'correct horse battery' });
    expect(page.status).toBe(400);
    expect(page.html).toContain(`email: ${NUL_REFUSAL}`);
  });

  it("in a bundle's template is a validation error naming the path, and nothing is written", async () => {
    const before = await compositionCount();
    const imported = harness.core.bundles.importBundle(accountId, { compositions: [{ key: 'nul', name: 'N', template: 'a\u0000b' }] });
    await expect(imported).rejects.toThrow(PorchError);
    await expect(imported).rejects.toThrow(`Invalid bundle: compositions[0].template: ${NUL_REFUSAL}`);
    expect(await compositionCount()).toBe(before);
  });
});
