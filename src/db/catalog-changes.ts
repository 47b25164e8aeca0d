/**
 * Planning a catalog write (store.ts `CatalogChanges`) from what the engine read inside its
 * transaction: each engine reads the facts below its own way (synchronously on SQLite, with row
 * locks on PostgreSQL), and this decides, the same way for both, whether the write may go
 * through and which rows it writes. Nothing here touches a database.
 */
import { compositionSizeBytes, contextCardSizeBytes, skillSizeBytes, workflowSizeBytes } from './content-size.js';
import { quotaExcess, type ContentAmount } from './quota-excess.js';
import {
  CONTENT_KINDS,
  VERSIONED_CONTENT_FIELDS,
  type CatalogChanges,
  type CatalogItem,
  type CatalogWriteOutcome,
  type ContentKind,
  type VersionRecord,
} from './store.js';

/** What a resource named by an update or delete is now, as read in the write's transaction. */
export interface StoredState {
  version: number;
  sizeBytes: number;
}

/** What the engine read before planning: the rows the changes name, the keys they claim, the account's holdings. */
export interface CatalogFacts {
  /** By `${kind}:${id}`, for every resource an update or delete names; absent when there is none of the account's. */
  stored: ReadonlyMap<string, StoredState>;
  /** By `${kind}:${key}`, the id of the live resource holding each bundle key a create claims. */
  keyHolders: ReadonlyMap<string, string>;
  holdings(kind: ContentKind): ContentAmount;
}

/** One row of `resource_versions`. */
export type VersionRow = Omit<VersionRecord, 'deletedAt'> & { accountId: string };

export interface CatalogPlan {
  deletes: Array<{ kind: ContentKind; id: string }>;
  /** The columns an update sets: the content, the bundle key, the new version, and the size. */
  updates: Array<{ kind: ContentKind; id: string; set: Record<string, unknown> }>;
  creates: Array<{ kind: ContentKind; row: Record<string, unknown> }>;
  versions: VersionRow[];
}

export const storedKey = (kind: ContentKind, id: string): string => `${kind}:${id}`;

/** The UTF-8 bytes an item counts against its kind's quota (content-size.ts). */
export function itemSizeBytes(item: CatalogItem): number {
  switch (item.kind) {
    case 'contextCards':
      return contextCardSizeBytes(item.record);
    case 'compositions':
      return compositionSizeBytes(item.record);
    case 'skills':
      return skillSizeBytes(item.record);
    case 'workflows':
      return workflowSizeBytes(item.record);
  }
}

/** The fields of the record that a version of its kind holds. */
export function versionContent(item: CatalogItem): Record<string, unknown> {
  const record = item.record as unknown as Record<string, unknown>;
  return Object.fromEntries(VERSIONED_CONTENT_FIELDS[item.kind].map((field) => [field, record[field]]));
}

/** The ids and keys whose current state the engine must read before planning `changes`. */
export function factsNeeded(changes: CatalogChanges) {
  const ids = new Map<ContentKind, string[]>();
  const keys = new Map<ContentKind, string[]>();
  const push = (map: Map<ContentKind, string[]>, kind: ContentKind, value: string) => map.set(kind, [...(map.get(kind) ?? []), value]);
  for (const { kind, record } of changes.updates) push(ids, kind, record.id);
  for (const { kind, id } of changes.deletes) push(ids, kind, id);
  for (const { kind, record } of changes.creates) if (record.bundleKey !== null) push(keys, kind, record.bundleKey);
  for (const { kind, id, key } of changes.keys ?? []) {
    push(ids, kind, id);
    push(keys, kind, key);
  }
  // Every kind the write touches: updates, deletes and keys are in `ids`, creates are not.
  const kinds = CONTENT_KINDS.filter((kind) => ids.has(kind) || changes.creates.some((item) => item.kind === kind));
  return { ids, keys, kinds };
}

/**
 * Decides the write: refused (nothing is written) when a named resource moved on or is gone, a
 * bundle key is held by a resource this write does not delete, or a kind would exceed its quota;
 * otherwise the rows to write, deletes first so a key they free can be taken by a create.
 */
export function planCatalogWrite(changes: CatalogChanges, facts: CatalogFacts): CatalogWriteOutcome | CatalogPlan {
  const { accountId, at, authorKeyId } = changes;
  const added = new Map<ContentKind, ContentAmount>();
  const add = (kind: ContentKind, items: number, bytes: number) => {
    const amount = added.get(kind) ?? { items: 0, bytes: 0 };
    added.set(kind, { items: amount.items + items, bytes: amount.bytes + bytes });
  };
  const plan: CatalogPlan = { deletes: [], updates: [], creates: [], versions: [] };
  const version = (item: CatalogItem, number: number): VersionRow => ({
    resourceId: item.record.id,
    accountId,
    kind: item.kind,
    version: number,
    content: versionContent(item),
    authorKeyId,
    createdAt: at,
  });

  const deleted = new Set<string>();
  for (const { kind, id } of changes.deletes) {
    const stored = facts.stored.get(storedKey(kind, id));
    if (!stored) return { ok: false, stale: { kind, id, version: null } };
    add(kind, -1, -stored.sizeBytes);
    deleted.add(id);
    plan.deletes.push({ kind, id });
  }
  for (const update of changes.updates) {
    const { kind, record, baseVersion } = update;
    const stored = facts.stored.get(storedKey(kind, record.id));
    if (!stored || stored.version !== baseVersion || deleted.has(record.id)) {
      return { ok: false, stale: { kind, id: record.id, version: stored && !deleted.has(record.id) ? stored.version : null } };
    }
    const sizeBytes = itemSizeBytes(update);
    add(kind, 0, sizeBytes - stored.sizeBytes);
    const next = baseVersion + 1;
    // A key is given, never taken away: an update read before a key adoption carries null, which
    // must not undo it (regression: an import's adopted key was lost to a concurrent update).
    const key = record.bundleKey === null ? {} : { bundleKey: record.bundleKey };
    plan.updates.push({ kind, id: record.id, set: { ...versionContent(update), ...key, version: next, updatedAt: at, sizeBytes } });
    plan.versions.push(version(update, next));
  }
  const claimed = new Set<string>();
  for (const { kind, id, key, baseVersion } of changes.keys ?? []) {
    const stored = facts.stored.get(storedKey(kind, id));
    if (!stored || stored.version !== baseVersion || deleted.has(id))
      return { ok: false, stale: { kind, id, version: stored && !deleted.has(id) ? stored.version : null } };
    const holder = facts.keyHolders.get(storedKey(kind, key));
    const claim = storedKey(kind, key);
    if ((holder !== undefined && holder !== id && !deleted.has(holder)) || claimed.has(claim)) return { ok: false, keyTaken: { kind, key } };
    claimed.add(claim);
    plan.updates.push({ kind, id, set: { bundleKey: key } });
  }
  for (const create of changes.creates) {
    const { kind, record } = create;
    if (record.bundleKey !== null) {
      const holder = facts.keyHolders.get(storedKey(kind, record.bundleKey));
      const claim = storedKey(kind, record.bundleKey);
      if ((holder !== undefined && !deleted.has(holder)) || claimed.has(claim)) return { ok: false, keyTaken: { kind, key: record.bundleKey } };
      claimed.add(claim);
    }
    const sizeBytes = itemSizeBytes(create);
    add(kind, 1, sizeBytes);
    plan.creates.push({ kind, row: { ...record, version: 1, updatedAt: at, sizeBytes } });
    plan.versions.push(version(create, 1));
  }
  for (const [kind, amount] of added) {
    const excess = quotaExcess(kind, facts.holdings(kind), amount, changes.quotas[kind]);
    if (excess) return { ok: false, excess };
  }
  return plan;
}

export function isPlan(outcome: CatalogWriteOutcome | CatalogPlan): outcome is CatalogPlan {
  return 'versions' in outcome;
}
