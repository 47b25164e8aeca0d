/**
 * A card's write answers with the instant the store records: the row's created_at and
 * updated_at, and its version's created_at. The clock here moves on every reading, as real time
 * does between two readings a millisecond apart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { createContextCardService, type ContextCardService } from '../../../src/core/context-cards/context-cards.js';
import { DEFAULT_QUOTAS } from '../../../src/core/quotas/quotas.js';
import { toIsoTimestamp } from '../../../src/core/views.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

/** A clock a millisecond later at every reading. */
function tickingClock(start: number): Clock {
  let current = start;
  return { now: () => current++ };
}

let harness: CoreHarness;
let cards: ContextCardService;
let accountId: string;

beforeEach(async () => {
  harness = await createCoreHarness();
  cards = createContextCardService(harness.store, tickingClock(Date.UTC(2026, 5, 1, 12, 0, 0)), DEFAULT_QUOTAS);
  ({ accountId } = await harness.createAccount());
});
afterEach(() => harness.close());

describe('context card timestamps', () => {
  it('answers a create with the updated_at and created_at stored, and its version made at that instant (regression: body .354Z, GET .355Z)', async () => {
    const created = await cards.create(accountId, { title: 't', content: 'FACTS v1', category: 'facts' });
    expect(await cards.get(accountId, created.id)).toEqual(created);
    const version = await harness.store.catalog.findVersion({ accountId, id: created.id, version: 1 });
    expect(version && toIsoTimestamp(version.createdAt)).toBe(created.updated_at);
  });

  it('answers an update with the updated_at stored, and its version made at that instant', async () => {
    const created = await cards.create(accountId, { title: 't', content: 'FACTS v1' });
    const updated = await cards.update(accountId, created.id, { content: 'FACTS v2' });
    expect(await cards.get(accountId, created.id)).toEqual(updated);
    const version = await harness.store.catalog.findVersion({ accountId, id: created.id, version: 2 });
    expect(version && toIsoTimestamp(version.createdAt)).toBe(updated.updated_at);
  });
});
