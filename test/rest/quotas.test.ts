/**
 * Per-account quotas at the REST door (DECISIONS: lists return every item, bounded by quotas on
 * items and bytes per kind). Regression: an account could create cards without end, and every
 * list of them was built whole in memory.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PorchError } from '../../src/core/errors.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const CARD_QUOTA = { max_items: 3, max_bytes: 2_000 };

let harness: Harness;
let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'porch-quotas-'));
  const configPath = join(directory, 'porch.config.yaml');
  await writeFile(configPath, JSON.stringify({ limits: { quotas: { context_cards: CARD_QUOTA, compositions: { max_items: 2 } } } }), 'utf8');
  harness = await createHarness({ env: { PORCH_CONFIG: configPath } });
});
afterEach(async () => {
  await harness.close();
  await rm(directory, { recursive: true, force: true });
});

describe('content quotas', () => {
  it("refuses a context card beyond the account's item quota with 403 QUOTA_EXCEEDED in the error envelope, and writes nothing", async () => {
    const { key } = await harness.expertWithKey();
    for (let index = 0; index < CARD_QUOTA.max_items; index += 1) {
      const created = await harness.api('POST', '/context-cards', { key, body: { title: `Card ${index}`, content: 'c' } });
      expect(created.status, describeResponse(created)).toBe(201);
    }
    const refused = await harness.api('POST', '/context-cards', { key, body: { title: 'One too many', content: 'c' } });
    expect(refused.status, describeResponse(refused)).toBe(403);
    expect(refused.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.body.error.message).toBe(
      "This would bring the account's context cards (personas included) to 4 items, over the quota of 3. Nothing was written.",
    );
    expect(refused.headers.get('x-ratelimit-limit'), 'an authenticated error carries the rate-limit headers').not.toBeNull();
    const listed = await harness.api<{ count: number }>('GET', '/context-cards', { key });
    expect(listed.body.data.count).toBe(CARD_QUOTA.max_items);
    const other = await harness.expertWithKey();
    const elsewhere = await harness.api('POST', '/context-cards', { key: other.key, body: { title: 'Mine', content: 'c' } });
    expect(elsewhere.status, `another account has its own quota: ${describeResponse(elsewhere)}`).toBe(201);
  });

  it('refuses a card or an update that would take the cards past the byte quota, and still lets a card shrink', async () => {
    const { key } = await harness.expertWithKey();
    const created = await harness.api<{ id: string }>('POST', '/context-cards', { key, body: { title: 'Big', content: 'x'.repeat(1_500) } });
    expect(created.status, describeResponse(created)).toBe(201);
    const tooBig = await harness.api('POST', '/context-cards', { key, body: { title: 'More', content: 'x'.repeat(600) } });
    expect(tooBig.status, describeResponse(tooBig)).toBe(403);
    expect(tooBig.body.error.message).toMatch(/over the quota of 2,000 bytes/);
    const grown = await harness.api('PATCH', `/context-cards/${created.body.data.id}`, { key, body: { content: 'x'.repeat(2_500) } });
    expect(grown.status, describeResponse(grown)).toBe(403);
    expect(grown.body.error.code).toBe('QUOTA_EXCEEDED');
    const shrunk = await harness.api('PATCH', `/context-cards/${created.body.data.id}`, { key, body: { content: 'x'.repeat(10) } });
    expect(shrunk.status, describeResponse(shrunk)).toBe(200);
  });

  it('refuses an import that would exceed a quota and writes none of the bundle', async () => {
    const { accountId } = await harness.expertWithKey();
    const bundle = {
      personas: [{ key: 'p', name: 'P', content: 'Be kind.' }],
      compositions: ['a', 'b', 'c'].map((key) => ({ key, name: key, template: 'Hi' })),
    };
    const error = await harness.core.bundles.importBundle(accountId, bundle).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PorchError);
    expect((error as PorchError).code).toBe('QUOTA_EXCEEDED');
    expect((error as PorchError).message).toMatch(/compositions to 3 items, over the quota of 2/);
    const all = await harness.store.catalog.exportAll(accountId);
    expect([all.contextCards.length, all.compositions.length]).toEqual([0, 0]);
  });
});
