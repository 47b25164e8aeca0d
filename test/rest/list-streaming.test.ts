/**
 * Long lists are written as they are read (issue 16, item 4: a list of 100,000 cards took 28 MB
 * and 1.7 s per request, and 20 concurrent ones took the process to 1.2 GB). Without `limit` a
 * list still answers every item, byte for byte as before, but the store is read a page at a time
 * and no request holds the whole list.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STREAM_PAGE_ROWS } from '../../src/core/pages.js';
import { BUFFERED_LIST_BYTES } from '../../src/rest/list-stream.js';
import { compositionRecord, contextCardRecord, insertRecords, skillRecord, workflowRecord } from '../db/fixtures.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

/** Enough items of each kind that every list is several pages and well over the buffered size. */
const ITEMS = 400;
const PARAGRAPH = 'Reusable prompt context, long enough that a few hundred items make a list of some size. '.repeat(3);

let harness: Harness;
let key: string;
let accountId: string;
beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
  const many = <Item>(make: (index: number) => Item) => Array.from({ length: ITEMS }, (_, index) => make(index));
  await insertRecords(harness.store, {
    contextCards: many((index) =>
      contextCardRecord(accountId, { content: `${index} ${PARAGRAPH}`, category: index % 2 === 0 ? 'persona' : null, description: PARAGRAPH }),
    ),
    compositions: many(() => compositionRecord(accountId, { description: PARAGRAPH })),
    skills: many(() => skillRecord(accountId, { description: PARAGRAPH })),
    workflows: many(() => workflowRecord(accountId, { description: PARAGRAPH })),
  });
});
afterEach(() => harness.close());

/** The bytes each list answered before streaming: its `run` result in the envelope, through JSON.stringify. */
const LISTS = [
  { path: '/context-cards', inMemory: () => harness.core.contextCards.list(accountId, {}) },
  { path: '/personas', inMemory: () => harness.core.catalog.listPersonas(accountId, {}) },
  { path: '/compositions', inMemory: () => harness.core.catalog.listCompositions(accountId, {}) },
  { path: '/skills', inMemory: () => harness.core.catalog.listSkills(accountId, {}) },
  { path: '/workflows', inMemory: () => harness.core.catalog.listWorkflows(accountId, {}) },
];

describe('streamed lists', () => {
  it.each(LISTS)('answers $path byte for byte as the list built in memory did, chunked once it is long', async ({ path, inMemory }) => {
    const expected = JSON.stringify({ success: true, data: await inMemory() });
    expect(expected.length).toBeGreaterThan(BUFFERED_LIST_BYTES);
    const response = await harness.api('GET', path, { key });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.text).toBe(expected);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-length'), 'a long list is not built whole to measure it').toBeNull();
    expect(response.headers.get('x-ratelimit-remaining'), 'the rate-limit headers are sent before the body').not.toBeNull();
  });

  it.each(LISTS)('reads $path from the store a page at a time, never the whole list in one read', async ({ path }) => {
    // Spies call through to the store and record each read's page.
    const spies = [
      vi.spyOn(harness.store.contextCards, 'list'),
      vi.spyOn(harness.store.catalog, 'listCompositions'),
      vi.spyOn(harness.store.catalog, 'listSkills'),
      vi.spyOn(harness.store.catalog, 'listWorkflows'),
    ];
    const response = await harness.api<{ count: number }>('GET', path, { key });
    expect(response.status, describeResponse(response)).toBe(200);
    const limits = spies.flatMap((spy) => spy.mock.calls.map(([request]) => request.page.limit));
    expect(limits.length, `pages read for ${response.body.data.count} items`).toBeGreaterThanOrEqual(Math.ceil(response.body.data.count / STREAM_PAGE_ROWS));
    expect(
      limits.every((limit) => limit !== undefined && limit <= STREAM_PAGE_ROWS),
      `page sizes read: ${limits.join(', ')}`,
    ).toBe(true);
  });

  it('answers a short list in one body with its length, as before', async () => {
    const other = await harness.expertWithKey();
    await harness.core.contextCards.create(other.accountId, { title: 'Only', content: 'one' });
    const response = await harness.api('GET', '/context-cards', { key: other.key });
    expect(response.text).toBe(JSON.stringify({ success: true, data: await harness.core.contextCards.list(other.accountId, {}) }));
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(response.text)));
    const empty = await harness.expertWithKey();
    const none = await harness.api('GET', '/workflows', { key: empty.key });
    expect(none.text).toBe('{"success":true,"data":{"items":[],"count":0}}');
  });

  it.each(LISTS)('answers $path?cursor= alone with every item after the cursor (regression: the cursor was ignored)', async ({ path, inMemory }) => {
    const all = (await inMemory()).items as Array<{ id: string }>;
    const cursor = all[6]?.id ?? '';
    const rest = await harness.api<{ items: Array<{ id: string }>; count: number }>('GET', `${path}?cursor=${cursor}`, { key });
    expect(rest.status, describeResponse(rest)).toBe(200);
    expect(rest.body.data.items.map((item) => item.id)).toEqual(all.slice(7).map((item) => item.id));
    expect(rest.body.data.count).toBe(all.length - 7);
  });

  it('still pages with limit and cursor when they are sent', async () => {
    const first = await harness.api<{ items: Array<{ id: string }>; count: number; next_cursor: string | null }>('GET', '/skills?limit=7', { key });
    expect(first.body.data.count).toBe(7);
    const expected = await harness.core.catalog.listSkills(accountId, { limit: 7 });
    expect(first.text).toBe(JSON.stringify({ success: true, data: expected }));
  });
});
