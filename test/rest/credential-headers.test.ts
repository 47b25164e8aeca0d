/**
 * How a request presents its key: X-API-Key (which wins: Authorization may be a proxy's), or
 * `Authorization: Bearer`. A key header repeated, or Authorization of another scheme without an
 * X-API-Key, is told exactly that (regressions: of two Authorization headers the first was used
 * silently, two X-API-Key headers were read as one invalid key, and a bare key in Authorization
 * was answered "No API key was sent").
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { sendRaw } from '../helpers/raw-http.js';

let harness: Harness;
let keyA: string;
let keyB: string;
beforeAll(async () => {
  harness = await createHarness();
  keyA = (await harness.expertWithKey()).key;
  keyB = (await harness.expertWithKey()).key;
});
afterAll(() => harness.close());

/** GET /account with these header lines, sent as written (fetch would merge repeated headers). */
async function getAccount(...headerLines: string[]) {
  const response = await sendRaw(
    harness.url,
    [`GET /api/public/v1/account HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headerLines, '', ''].join('\r\n'),
  );
  const body = JSON.parse(response.body) as { error?: { code: string; message: string } };
  return { status: response.status, code: body.error?.code, message: body.error?.message };
}

it('takes the key from either header, and from both when they agree', async () => {
  for (const headers of [
    [`X-API-Key: ${keyA}`],
    [`Authorization: Bearer ${keyA}`],
    [`authorization: bearer\t${keyA}`],
    [`X-API-Key: ${keyA}`, `Authorization: Bearer ${keyA}`],
  ]) {
    expect((await getAccount(...headers)).status, headers.join(' + ')).toBe(200);
  }
  expect((await getAccount('X-API-Key: ', `Authorization: Bearer ${keyA}`)).status, 'an empty X-API-Key is no key').toBe(200);
  expect((await getAccount(`X-API-Key: ${keyA}`, `Authorization: Bearer ${keyA}`)).status, 'the same key twice').toBe(200);
  expect((await getAccount(`X-API-Key: ${keyA}`, 'Authorization: Basic dXNlcjpwYXNz')).status, 'another scheme beside X-API-Key is not a key').toBe(200);
});

it("refuses a repeated key header, naming the problem, and takes X-API-Key over Authorization, which may be a proxy's", async () => {
  for (const headers of [
    [`Authorization: Bearer ${keyA}`, `Authorization: Bearer ${keyB}`],
    [`X-API-Key: ${keyA}`, `X-API-Key: ${keyA}`],
  ]) {
    const refused = await getAccount(...headers);
    expect(refused, headers.join(' + ')).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(refused.message, headers.join(' + ')).toMatch(/more than one/);
  }
  expect((await getAccount(`X-API-Key: ${keyA}`, 'Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.proxy.token')).status).toBe(200);
});

it('says how to send a key when Authorization uses another scheme, as the MCP endpoint does', async () => {
  for (const authorization of [keyA, `Basic ${Buffer.from(`u:${keyA}`).toString('base64')}`]) {
    expect(await getAccount(`Authorization: ${authorization}`)).toEqual({
      status: 401,
      code: 'INVALID_API_KEY',
      message: 'The Authorization header is not of the form Bearer <key>; send the key as X-API-Key: mdi_... or Authorization: Bearer mdi_...',
    });
  }
  expect(await getAccount()).toEqual({ status: 401, code: 'MISSING_API_KEY', message: 'No API key was sent.' });
});
