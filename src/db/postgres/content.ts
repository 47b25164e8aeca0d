import { and, desc, eq, getTableColumns, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { factsNeeded, isPlan, planCatalogWrite, storedKey, type StoredState } from '../catalog-changes.js';
import { recordColumns, type ContentAmount } from '../quota-excess.js';
import type { PostgresDatabase } from './open-database.js';
import { accounts, compositions, contextCards, resourceLabels, resourceVersions, skills, workflows } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { CatalogChanges, CatalogRepository, ContentKind, ContextCardRepository, OwnedPageRequest } from '../store.js';

const cardColumns = recordColumns(getTableColumns(contextCards));
const compositionColumns = recordColumns(getTableColumns(compositions));
const skillColumns = recordColumns(getTableColumns(skills));
const workflowColumns = recordColumns(getTableColumns(workflows));

const CONTENT_TABLES = { contextCards, compositions, skills, workflows } as const;

/** The version the resource's `production` label names, read with the resource in one statement. */
const productionVersion = sql<
  number | null
>`(select ${resourceLabels.version} from ${resourceLabels} where ${resourceLabels.resourceId} = ${sql.placeholder('id')} and ${resourceLabels.label} = 'production')`;

/**
 * Locks the accounts' rows until the transaction ends, so quota checks and writes for one account
 * queue, from any process, instead of two of them both seeing room for the last item. In id
 * order, so two transactions locking the same accounts cannot deadlock.
 */
async function lockAccounts(tx: PostgresTransaction, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(inArray(accounts.id, [...new Set(accountIds)].sort()))
    .orderBy(accounts.id)
    .for('update');
}

/** How much of a kind the account holds: a count and a sum read from the (account, size) index. */
async function holdings(tx: PostgresTransaction, kind: ContentKind, accountId: string): Promise<ContentAmount> {
  const table = CONTENT_TABLES[kind];
  const [held] = await tx
    .select({ items: sql<number>`count(*)::int`, bytes: sql<number>`coalesce(sum(${table.sizeBytes}), 0)::float8` })
    .from(table)
    .where(eq(table.accountId, accountId));
  return held ?? { items: 0, bytes: 0 };
}

/** Newest first (ids are UUIDv7), starting after the cursor when paging; without a limit, every row. */
function pageWhere(accountColumn: PgColumn, idColumn: PgColumn, request: OwnedPageRequest, extra?: SQL): SQL | undefined {
  return and(eq(accountColumn, request.accountId), request.page.cursor ? lt(idColumn, request.page.cursor) : undefined, extra);
}

/**
 * PostgreSQL binds at most 65,535 parameters per statement; a bundle's rows are inserted in
 * batches well below that whatever their width.
 */
const INSERT_BATCH_ROWS = 500;

async function insertInBatches<Table extends PgTable>(tx: PostgresTransaction, table: Table, rows: Table['$inferInsert'][]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH_ROWS) {
    await tx.insert(table).values(rows.slice(start, start + INSERT_BATCH_ROWS));
  }
}

/** `values` in slices small enough for one statement's parameters. */
function* batches<Value>(values: readonly Value[]): Generator<Value[]> {
  for (let start = 0; start < values.length; start += INSERT_BATCH_ROWS) yield values.slice(start, start + INSERT_BATCH_ROWS);
}

/**
 * A catalog write (catalog-changes.ts plans it): under the account's row lock, which every write
 * of the account's content takes, so the versions read here cannot move before the write lands.
 */
async function writeCatalog(db: PostgresDatabase, changes: CatalogChanges) {
  return inTransaction(db, async (tx) => {
    await lockAccounts(tx, [changes.accountId]);
    const { ids, keys, kinds } = factsNeeded(changes);
    const stored = new Map<string, StoredState>();
    const keyHolders = new Map<string, string>();
    for (const [kind, kindIds] of ids) {
      const table = CONTENT_TABLES[kind];
      for (const batch of batches(kindIds)) {
        const rows = await tx
          .select({ id: table.id, version: table.version, sizeBytes: table.sizeBytes })
          .from(table)
          .where(and(eq(table.accountId, changes.accountId), inArray(table.id, batch)));
        for (const row of rows) stored.set(storedKey(kind, row.id), { version: row.version, sizeBytes: row.sizeBytes });
      }
    }
    for (const [kind, kindKeys] of keys) {
      const table = CONTENT_TABLES[kind];
      for (const batch of batches(kindKeys)) {
        const rows = await tx
          .select({ id: table.id, bundleKey: table.bundleKey })
          .from(table)
          .where(and(eq(table.accountId, changes.accountId), inArray(table.bundleKey, batch)));
        for (const row of rows) if (row.bundleKey !== null) keyHolders.set(storedKey(kind, row.bundleKey), row.id);
      }
    }
    const held = new Map<ContentKind, ContentAmount>();
    for (const kind of kinds) held.set(kind, await holdings(tx, kind, changes.accountId));
    const plan = planCatalogWrite(changes, { stored, keyHolders, holdings: (kind) => held.get(kind) ?? { items: 0, bytes: 0 } });
    if (!isPlan(plan)) return plan;
    for (const { kind, id } of plan.deletes) {
      const table = CONTENT_TABLES[kind];
      await tx.delete(table).where(eq(table.id, id));
      await tx.delete(resourceLabels).where(eq(resourceLabels.resourceId, id));
      await tx.update(resourceVersions).set({ deletedAt: changes.at }).where(eq(resourceVersions.resourceId, id));
    }
    for (const { kind, id, set } of plan.updates) {
      const table = CONTENT_TABLES[kind];
      await tx.update(table).set(set).where(eq(table.id, id));
    }
    for (const kind of Object.keys(CONTENT_TABLES) as ContentKind[]) {
      // The plan's rows are the kind's records (typed by CatalogItem) plus the size the store keeps.
      const rows = plan.creates.filter((create) => create.kind === kind).map((create) => create.row as never);
      await insertInBatches(tx, CONTENT_TABLES[kind], rows);
    }
    await insertInBatches(tx, resourceVersions, plan.versions);
    return { ok: true } as const;
  });
}

export function createContextCardRepository(db: PostgresDatabase): ContextCardRepository {
  const owned = db
    .select({ ...cardColumns, productionVersion })
    .from(contextCards)
    .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
    .prepare('context_card_owned');
  return {
    async list(request) {
      const inCategory = request.category === undefined ? undefined : eq(contextCards.category, request.category);
      const query = db
        .select(cardColumns)
        .from(contextCards)
        .where(pageWhere(contextCards.accountId, contextCards.id, request, inCategory))
        .orderBy(desc(contextCards.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async findOwned({ accountId, id }) {
      return (await owned.execute({ id, accountId }))[0] ?? null;
    },
  };
}

// A version as the store reads it: every column but the owner, which the query already matched.
const { accountId: _owner, ...versionColumns } = getTableColumns(resourceVersions);

export function createCatalogRepository(db: PostgresDatabase): CatalogRepository {
  const cards = createContextCardRepository(db);
  const compositionById = db
    .select({ ...compositionColumns, productionVersion })
    .from(compositions)
    .where(and(eq(compositions.id, sql.placeholder('id')), eq(compositions.accountId, sql.placeholder('accountId'))))
    .prepare('composition_owned');
  const skillById = db
    .select({ ...skillColumns, productionVersion })
    .from(skills)
    .where(and(eq(skills.id, sql.placeholder('id')), eq(skills.accountId, sql.placeholder('accountId'))))
    .prepare('skill_owned');
  const workflowById = db
    .select({ ...workflowColumns, productionVersion })
    .from(workflows)
    .where(and(eq(workflows.id, sql.placeholder('id')), eq(workflows.accountId, sql.placeholder('accountId'))))
    .prepare('workflow_owned');
  const compositionUsed = db
    .update(compositions)
    .set({ timesUsed: sql`${compositions.timesUsed} + 1` })
    .where(eq(compositions.id, sql.placeholder('id')))
    .prepare('composition_used');
  const workflowUsed = db
    .update(workflows)
    .set({ usageCount: sql`${workflows.usageCount} + 1` })
    .where(eq(workflows.id, sql.placeholder('id')))
    .prepare('workflow_used');
  const catalog: CatalogRepository = {
    async listCompositions(request) {
      const query = db
        .select(compositionColumns)
        .from(compositions)
        .where(pageWhere(compositions.accountId, compositions.id, request))
        .orderBy(desc(compositions.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async listSkills(request) {
      const query = db
        .select(skillColumns)
        .from(skills)
        .where(pageWhere(skills.accountId, skills.id, request))
        .orderBy(desc(skills.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async listWorkflows(request) {
      const query = db
        .select(workflowColumns)
        .from(workflows)
        .where(pageWhere(workflows.accountId, workflows.id, request))
        .orderBy(desc(workflows.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async findComposition({ accountId, id }) {
      return (await compositionById.execute({ id, accountId }))[0] ?? null;
    },
    async findSkill({ accountId, id }) {
      return (await skillById.execute({ id, accountId }))[0] ?? null;
    },
    async findWorkflow({ accountId, id }) {
      return (await workflowById.execute({ id, accountId }))[0] ?? null;
    },
    async incrementCompositionUse(id) {
      await compositionUsed.execute({ id });
    },
    async incrementWorkflowUse(id) {
      await workflowUsed.execute({ id });
    },
    write: (changes) => writeCatalog(db, changes),
    async findIdByKey({ accountId, kind, key }) {
      const table = CONTENT_TABLES[kind];
      const [found] = await db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.accountId, accountId), eq(table.bundleKey, key)));
      return found?.id ?? null;
    },
    async listVersions({ accountId, id, page }) {
      const query = db
        .select(versionColumns)
        .from(resourceVersions)
        .where(
          and(
            eq(resourceVersions.resourceId, id),
            eq(resourceVersions.accountId, accountId),
            page.cursor ? lt(resourceVersions.version, Number(page.cursor)) : undefined,
          ),
        )
        .orderBy(desc(resourceVersions.version));
      return page.limit === undefined ? query : query.limit(page.limit);
    },
    async findVersion({ accountId, id, version }) {
      const [found] = await db
        .select(versionColumns)
        .from(resourceVersions)
        .where(and(eq(resourceVersions.resourceId, id), eq(resourceVersions.accountId, accountId), eq(resourceVersions.version, version)));
      return found ?? null;
    },
    async listLabels({ accountId, id }) {
      return db
        .select({ resourceId: resourceLabels.resourceId, label: resourceLabels.label, version: resourceLabels.version, updatedAt: resourceLabels.updatedAt })
        .from(resourceLabels)
        .where(and(eq(resourceLabels.resourceId, id), eq(resourceLabels.accountId, accountId)))
        .orderBy(resourceLabels.label);
    },
    async setLabel({ accountId, id, kind, label, version, at }) {
      return inTransaction(db, async (tx) => {
        // The account's lock orders this after any write of its catalog (a delete included).
        await lockAccounts(tx, [accountId]);
        const table = CONTENT_TABLES[kind];
        const [resource] = await tx
          .select({ version: table.version })
          .from(table)
          .where(and(eq(table.id, id), eq(table.accountId, accountId)));
        if (!resource) return 'no_resource';
        if (version < 1 || version > resource.version) return 'no_version';
        await tx
          .insert(resourceLabels)
          .values({ resourceId: id, label, version, accountId, updatedAt: at })
          .onConflictDoUpdate({ target: [resourceLabels.resourceId, resourceLabels.label], set: { version, updatedAt: at } });
        return 'set';
      });
    },
    async removeLabel({ accountId, id, label }) {
      const removed = await db
        .delete(resourceLabels)
        .where(and(eq(resourceLabels.resourceId, id), eq(resourceLabels.accountId, accountId), eq(resourceLabels.label, label)))
        .returning({ label: resourceLabels.label });
      return removed.length > 0;
    },
    async pruneDeletedVersions(before) {
      const removed = await db.delete(resourceVersions).where(lte(resourceVersions.deletedAt, before)).returning({ version: resourceVersions.version });
      return removed.length;
    },
    async exportAll(accountId) {
      const all = { accountId, page: {} } satisfies OwnedPageRequest;
      return {
        contextCards: (await cards.list(all)).reverse(),
        compositions: (await catalog.listCompositions(all)).reverse(),
        skills: (await catalog.listSkills(all)).reverse(),
        workflows: (await catalog.listWorkflows(all)).reverse(),
      };
    },
  };
  return catalog;
}
