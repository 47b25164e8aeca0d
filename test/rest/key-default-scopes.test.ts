/**
 * What a key made with `POST /keys` holds when the request names no scopes: the default key
 * scopes the calling key holds, never the scopes granted only explicitly (regression: it copied
 * every scope of the calling key, manage:keys, read:usage and the write: scopes included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, DEFAULT_KEY_SCOPES, GRANTED_ONLY_EXPLICITLY } from '../../src/core/access/scopes.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

interface CreatedKey {
  key: { id: string; scopes: string[] };
  api_key: string;
}

describe('a new key without scopes', () => {
  it('gets the default key scopes, not the explicit-only scopes of a calling key holding every scope (regression: copied them all)', async () => {
    const { key } = await harness.expertWithKey({ scopes: [...ALL_SCOPES] });
    const created = await harness.api<CreatedKey>('POST', '/keys', { key, body: { name: 'Integration' } });
    expect(created.status, describeResponse(created)).toBe(201);
    expect([...created.body.data.key.scopes].sort()).toEqual([...DEFAULT_KEY_SCOPES].sort());
    for (const scope of GRANTED_ONLY_EXPLICITLY) expect(created.body.data.key.scopes).not.toContain(scope);

    // The new key works, and cannot manage keys or read usage, which it was never given.
    const newKey = created.body.data.api_key;
    expect((await harness.api('POST', '/sanitiser/scan', { key: newKey, body: { text: 'hello' } })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/keys', { name: 'Grandchild' }],
      ['GET', '/usage', undefined],
      ['POST', '/compositions', { name: 'Not allowed', template: 'Hi' }],
    ] as const) {
      const refused = await harness.api(method, path, { key: newKey, body });
      expect(refused.status, `${method} ${path}: ${describeResponse(refused)}`).toBe(403);
      expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    }
  });

  it('gets only the default scopes the calling key holds', async () => {
    const { key } = await harness.expertWithKey({ scopes: ['manage:keys', 'read:usage', 'write:composition', 'execute:composition', 'api:judge'] });
    const created = await harness.api<CreatedKey>('POST', '/keys', { key, body: {} });
    expect(created.status, describeResponse(created)).toBe(201);
    expect([...created.body.data.key.scopes].sort()).toEqual(['api:judge', 'execute:composition']);
  });

  it('still gets explicit-only scopes the calling key holds when they are named', async () => {
    const { key } = await harness.expertWithKey({ scopes: ['manage:keys', 'read:usage', 'api:judge'] });
    const created = await harness.api<CreatedKey>('POST', '/keys', { key, body: { scopes: ['read:usage', 'api:judge'] } });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.body.data.key.scopes).toEqual(['read:usage', 'api:judge']);
  });

  it('is refused with 400 asking for scopes when the calling key holds none of the default scopes', async () => {
    const { key } = await harness.expertWithKey({ scopes: ['manage:keys', 'read:usage'] });
    const refused = await harness.api('POST', '/keys', { key, body: { name: 'Empty' } });
    expect(refused.status, describeResponse(refused)).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.message).toMatch(/^Invalid request: scopes: .*send "scopes"/);
    const keys = await harness.api<{ items: unknown[] }>('GET', '/keys', { key });
    expect(keys.body.data.items).toHaveLength(1);
  });
});
