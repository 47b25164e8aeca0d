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
