/**
 * The operations' routes answer on Node's own request and response, not through Express's router
 * (src/rest/operation-routes.ts), and must match paths as Express did, so no client sees a
 * difference: case-insensitive, one optional trailing slash, HEAD as GET without a body,
 * parameters percent-decoded, a malformed escape a 400 (even where only another method's route
 * matches), and 405 with Allow for a method a path does not take, OPTIONS included.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
let key: string;
beforeEach(async () => {
  harness = await createHarness();
  ({ key } = await harness.expertWithKey());
});
afterEach(() => harness.close());

async function raw(method: string, path: string): Promise<Response> {
  return fetch(`${harness.url}/api/public/v1${path}`, { method, headers: { 'x-api-key': key } });
}

describe('operation routes match paths as Express did', () => {
  it('ignores the case of the path and one trailing slash, and no more', async () => {
    await harness.api('POST', '/context-cards', { key, body: { title: 'Tone', content: 'Be brief.' } });
    // Raw requests: the harness checks answers against the documented (lower-case) paths.
    for (const path of ['/context-cards', '/Context-Cards', '/CONTEXT-CARDS/', '/context-cards/']) {
      const response = await raw('GET', path);
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { data: { count: number } }).data.count, path).toBe(1);
    }
    expect((await raw('GET', '/context-cards//')).status).toBe(404);
  });

  it('answers HEAD as GET, with the headers and no body, and counts it', async () => {
    const response = await raw('HEAD', '/context-cards');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await response.text()).toBe('');
    const remaining = Number(response.headers.get('x-ratelimit-remaining'));
    const next = await raw('GET', '/context-cards');
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });

  it('decodes path parameters before the operation sees them', async () => {
    const created = await harness.api<{ id: string }>('POST', '/context-cards', { key, body: { title: 'Tone', content: 'Be brief.' } });
    const id = created.body.success ? created.body.data.id : '';
    // Every character of the id percent-encoded: only a decoded parameter finds the card.
    const encoded = [...id].map((character) => `%${character.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const response = await harness.api<{ id: string }>('GET', `/context-cards/${encoded}`, { key });
    expect(response.status).toBe(200);
    expect(response.body.success && response.body.data.id).toBe(id);
  });

  it('answers a malformed escape 400, also where only another method has a route, with the quota headers', async () => {
    for (const method of ['POST', 'GET']) {
      const response = await raw(method, '/workflows/%E0%A4%A/execute');
      expect(response.status, method).toBe(400);
      expect(await response.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/percent-escape/) } });
      expect(response.headers.get('x-ratelimit-limit'), method).not.toBeNull();
    }
  });

  it('answers a method a path does not take 405 with Allow, OPTIONS included', async () => {
    for (const method of ['PUT', 'OPTIONS']) {
      const response = await raw(method, '/context-cards');
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('GET, POST');
    }
  });

  it('points the API root at the API catalog', async () => {
    const response = await raw('GET', '/');
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toMatch(/rel="api-catalog"/);
  });
});

describe('requests Express serves', () => {
  it('keep the prototypes the server built them with, so Node’s HTTP path sees one shape', async () => {
    const unchanged: Array<{ path: string; same: boolean }> = [];
    harness.server.server.prependListener('request', (req, res) => {
      const [request, response] = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
      res.on('finish', () => unchanged.push({ path: req.url ?? '', same: Object.getPrototypeOf(req) === request && Object.getPrototypeOf(res) === response }));
    });
    // An operation route, an Express mount (the liveness probe), Express's 404 and 405.
    for (const [method, path] of [
      ['GET', '/api/public/v1/context-cards'],
      ['GET', '/livez'],
      ['GET', '/no-such-path'],
      ['DELETE', '/api/public/v1/context-cards'],
    ] as const) {
      await (await fetch(`${harness.url}${path}`, { method, headers: { 'x-api-key': key } })).arrayBuffer();
    }
    expect(unchanged.map(({ path }) => path)).toHaveLength(4);
    expect(unchanged.filter(({ same }) => !same)).toEqual([]);
  });
});
