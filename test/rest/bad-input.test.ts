import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
let key: string;
let accountId: string;
beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

describe('bad input never gets a 500', () => {
  it('answers 400 VALIDATION_ERROR for malformed JSON, after authenticating the caller', async () => {
    const response = await harness.api('POST', '/context-cards', { key, rawBody: '{"title": "x",', headers: { 'content-type': 'application/json' } });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.message).toMatch(/not valid JSON/);
    const anonymous = await harness.api('POST', '/context-cards', { rawBody: '{oops', headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
  });

  it('answers 400 for a non-uuid id, naming the parameter', async () => {
    const response = await harness.api('GET', '/context-cards/not-a-uuid', { key });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/path\.id: must be a uuid/);
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    for (const rawBody of ['[1,2]', '"text"', 'null', '42']) {
      const response = await harness.api('POST', '/context-cards', { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status, `${rawBody}: ${describeResponse(response)}`).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      // Regression: a bare value was "not valid JSON", which it is.
      if (rawBody !== '[1,2]') expect(response.body.error.message, rawBody).toBe('The request body must be a JSON object.');
    }
  });

  it('answers 400 for a body that is not UTF-8, rather than store U+FFFD in place of its bytes', async () => {
    const rawBody = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('","content":"x"}')]);
    const response = await harness.api('POST', '/context-cards', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error.message).toBe('The request body is not valid UTF-8.');
    const cards = await harness.api<{ items: unknown[] }>('GET', '/context-cards', { key });
    expect(cards.body.data.items).toEqual([]);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a 2 MiB body', async () => {
    const big = JSON.stringify({ title: 'big', content: 'x'.repeat(2 * 1024 * 1024) });
    const response = await harness.api('POST', '/context-cards', { key, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(response.status, describeResponse(response)).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    const response = await harness.api('POST', '/context-cards', { key, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 415 for a body labelled with a charset other than UTF-8, whatever its bytes (regression: UTF-16 was accepted)', async () => {
    const json = JSON.stringify({ title: 'Charset', content: 'Ģ' });
    for (const [charset, bytes] of [
      ['utf-16le', Buffer.from(json, 'utf16le')],
      ['utf-16', Buffer.from(json, 'utf8')],
      ['latin1', Buffer.from(json, 'utf8')],
    ] as const) {
      const response = await harness.api('POST', '/context-cards', {
        key,
        rawBody: bytes,
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expect(response.status, `${charset}: ${describeResponse(response)}`).toBe(415);
      expect(response.body.error.message).toContain('UTF-8');
    }
    for (const contentType of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json']) {
      const response = await harness.api('POST', '/context-cards', { key, rawBody: json, headers: { 'content-type': contentType } });
      expect(response.status, `${contentType}: ${describeResponse(response)}`).toBe(201);
    }
  });

  it('answers 415 for a compressed body, and a key-less one 401 before its body is read', async () => {
    const compressed = gzipSync(JSON.stringify({ title: 'zipped', content: 'x' }));
    const send = (requestKey: string | undefined) =>
      harness.api('POST', '/context-cards', {
        key: requestKey,
        rawBody: compressed,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
    const response = await send(key);
    expect(response.status, describeResponse(response)).toBe(415);
    expect(response.body.error.message).toMatch(/Content-Encoding/);
    const anonymous = await send(undefined);
    expect(anonymous.status, describeResponse(anonymous)).toBe(401);
  });

  it('refuses a too deeply nested body from its bytes, after the key check, and counts no brackets inside strings', async () => {
    const deep = `{"title": "t", "content": "c", "tags": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const unauthenticated = await harness.api('POST', '/context-cards', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(unauthenticated.status, describeResponse(unauthenticated)).toBe(401);
    const refused = await harness.api('POST', '/context-cards', { key, rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expect(refused.body.error.message).toMatch(/nests deeper than 64 levels/);
    const content = `a "quoted" \\ ${'[{'.repeat(200)}`;
    const stored = await harness.api<{ content: string }>('POST', '/context-cards', { key, body: { title: 'Brackets', content } });
    expect(stored.status, describeResponse(stored)).toBe(201);
    expect(stored.body.data.content).toBe(content);
  });

  it('answers 400 for query parameters of the wrong type', async () => {
    for (const query of ['limit=0', 'limit=abc', 'limit=100000', 'cursor=nope']) {
      const response = await harness.api('GET', `/context-cards?${query}`, { key });
      expect(response.status, `${query}: ${describeResponse(response)}`).toBe(400);
      expect(response.body.error.message).toMatch(/query\.(limit|cursor)/);
    }
  });

  it('names a number too large for a double in a variable as such (regression: a message about nesting)', async () => {
    const { ids } = await harness.core.bundles.importBundle(accountId, { compositions: [{ key: 'c', name: 'C', template: 'Count {{n}}' }] });
    const response = await harness.api('POST', `/compositions/${ids['composition:c']}/execute`, {
      key,
      rawBody: '{"variables":{"n":1e400}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error.message).toContain('body.variables.n: must be a finite number');
  });

  it('names a repeated query parameter as repeated, not as a value of the wrong type (regression: "must be a whole number")', async () => {
    const response = await harness.api('GET', '/context-cards?limit=1&limit=2', { key });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(response.body.error.message).toBe('Invalid request: query.limit: given 2 times; send it once.');
    // A parameter the operation does not take is still ignored, repeated or not.
    expect((await harness.api('GET', '/context-cards?utm=a&utm=b', { key })).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for unknown routes and 405 with Allow for a wrong method', async () => {
    const unknown = await harness.api('GET', '/nothing-here', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect(unknown.headers.get('x-api-version')).toBe('2026-05-05');
    const wrongMethod = await harness.api('PUT', '/context-cards', { key, body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });

  it('survives __proto__ and constructor keys without polluting anything', async () => {
    const rawBody = '{"title":"t","content":"c","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}';
    const response = await harness.api('POST', '/context-cards', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status, describeResponse(response)).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a __proto__ key alone, which a strict schema did not see as unknown, naming where it is (regression: accepted)', async () => {
    for (const [path, rawBody, field] of [
      ['/context-cards', '{"title":"t","content":"c","__proto__":{"admin":true}}', 'body.__proto__'],
      ['/context-cards', '{"title":"t","content":"c","tags":["a"],"emoji":"x","description":"d","category":"c","__proto__":null}', 'body.__proto__'],
    ] as const) {
      const response = await harness.api<never>('POST', path, { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status, describeResponse(response)).toBe(400);
      expect((response.body as { error: { message: string } }).error.message).toContain(`${field}: is not a name any input may use (__proto__)`);
    }
    expect((await harness.api<{ count: number }>('GET', '/context-cards', { key })).body.data.count, 'nothing was created').toBe(0);
  });
});

describe('error code sets', () => {
  it('emits the Set B names when PORCH_ERROR_CODES=b', async () => {
    const setB = await createHarness({ env: { PORCH_ERROR_CODES: 'b' } });
    try {
      expect((await setB.api('GET', '/context-cards')).body.error.code).toBe('UNAUTHORIZED');
      const { accountId } = await setB.createAccount();
      const { key: narrow } = await setB.createKey(accountId, { scopes: ['api:judge'], rpm: 1 });
      expect((await setB.api('GET', '/context-cards', { key: narrow })).body.error.code).toBe('INSUFFICIENT_SCOPE');
      const { key: wide } = await setB.createKey(accountId, { rpm: 1 });
      expect((await setB.api('GET', '/context-cards/nope', { key: wide })).body.error.code).toBe('INVALID_REQUEST');
      expect((await setB.api('GET', '/context-cards', { key: wide })).body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      await setB.close();
    }
  });
});

describe('health', () => {
  it('answers without a key and reports the database', async () => {
    const response = await harness.api<{ status: string; database: string; version: string }>('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'ok', database: 'ok', version: '2026-05-05' });
    expect(response.headers.get('x-api-version')).toBe('2026-05-05');
  });

  it('answers 500 INTERNAL_ERROR for its own faults, without their details', async () => {
    await harness.store.close();
    const response = await harness.api('GET', '/context-cards', { key });
    expect(response.status).toBe(500);
    expect(response.body.error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'An internal error occurred.' });
    expect(response.text).not.toMatch(/sqlite|database|stack|at /i);
  });

  it('answers 503 when the database is gone', async () => {
    await harness.store.close();
    const response = await harness.api('GET', '/health');
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // As every other 503 of the database out of reach (regression: none here).
    expect(response.headers.get('retry-after')).toBe('1');
  });
});
