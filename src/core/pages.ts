import type { PageRequest } from '../db/store.js';

/** Lists answer `{ items, count }`; with `limit` they also say where the next page starts. */
export interface Page<Item> {
  items: Item[];
  count: number;
  next_cursor?: string | null;
}

/**
 * Runs a page query asking for one item more than the limit, which tells whether another page
 * exists without a second query.
 */
export async function fetchPage<Row extends { id: string }, Item>(
  page: PageRequest,
  query: (page: PageRequest) => Promise<Row[]>,
  view: (row: Row) => Item,
): Promise<Page<Item>> {
  if (page.limit === undefined) {
    const rows = await query(page);
    return { items: rows.map(view), count: rows.length };
  }
  const rows = await query({ ...page, limit: page.limit + 1 });
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  const last = kept.at(-1);
  return { items: kept.map(view), count: kept.length, next_cursor: hasMore && last ? last.id : null };
}

/**
 * A page of a short list read whole, oldest first (an account's keys, connected apps, webhook
 * endpoints), paged as every list is: the items after `cursor` (the last id of the page before;
 * ids grow with time, so a cursor whose item has gone still says where to go on), at most `limit`.
 */
export function pageOfOrdered<Item extends { id: string }>(items: readonly Item[], page: PageRequest): Promise<Page<Item>> {
  const { cursor } = page;
  const rowsAfter = async ({ limit }: PageRequest): Promise<Item[]> => {
    const after = cursor === undefined ? [...items] : items.filter((item) => item.id > cursor);
    return limit === undefined ? after : after.slice(0, limit);
  };
  return fetchPage(page, rowsAfter, (item) => item);
}

/**
 * Rows a door may hold at once while it writes a long list: a page of the largest cards (100,000
 * characters each) stays a few megabytes, and a page of small ones still costs one query per
 * fifty items, which is a small share of serialising them.
 */
export const STREAM_PAGE_ROWS = 50;

/**
 * Every row the query finds, newest first (after the cursor `after`, when a caller sent one),
 * read a page at a time after a cursor (the last id of the page before), each page shaped by
 * `view`. Nothing holds more than one page, and each page is a query of its own, so other
 * requests run between pages.
 */
export async function* readPages<Row extends { id: string }, Item>(
  query: (page: PageRequest) => Promise<Row[]>,
  view: (row: Row) => Item,
  after?: string,
  pageRows = STREAM_PAGE_ROWS,
): AsyncGenerator<Item[]> {
  let cursor = after;
  for (;;) {
    const rows = await query(cursor === undefined ? { limit: pageRows } : { limit: pageRows, cursor });
    if (rows.length > 0) yield rows.map(view);
    const last = rows.at(-1);
    if (rows.length < pageRows || !last) return;
    cursor = last.id;
  }
}
