import type { ContentKind, KindQuota, QuotaExcess } from './store.js';

/** How much of a kind an account holds, or a write adds (bytes may be negative for an update that shrinks). */
export interface ContentAmount {
  items: number;
  bytes: number;
}

/**
 * Whether adding `added` to what the account holds goes over `quota`. Only growth is refused: a
 * write that adds no items, or shrinks the bytes, passes even when the account is already over
 * (an operator may have lowered the quota), so trimming content is always possible.
 */
export function quotaExcess(kind: ContentKind, held: ContentAmount, added: ContentAmount, quota: KindQuota): QuotaExcess | null {
  const items = held.items + added.items;
  const bytes = held.bytes + added.bytes;
  const tooMany = added.items > 0 && items > quota.maxItems;
  const tooLarge = added.bytes > 0 && bytes > quota.maxBytes;
  return tooMany || tooLarge ? { kind, quota, items, bytes } : null;
}

/** The columns of a content table but its size, which is the store's own bookkeeping and no part of a record. */
export function recordColumns<Columns extends { sizeBytes: unknown }>(columns: Columns): Omit<Columns, 'sizeBytes'> {
  const { sizeBytes: _size, ...rest } = columns;
  return rest;
}
