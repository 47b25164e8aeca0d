import { and, count, desc, eq, getTableColumns, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { factsNeeded, isPlan, planCatalogWrite, storedKey, type StoredState } from '../catalog-changes.js';
import { recordColumns, type ContentAmount } from '../quota-excess.js';
import { immediateTransaction } from './immediate-transaction.js';
import type { PorchDatabase } from './open-database.js';
import { limitParameter } from './limit-parameter.js';
import { onFirstUse } from './on-first-use.js';
import { rowStatement } from './row-statement.js';
import { compositions, contextCards, resourceLabels, resourceVersions, skills, workflows } from './schema.js';
import type { CatalogChanges, CatalogRepository, CatalogWriteOutcome, ContentKind, ContextCardRepository, OwnedPageRequest } from '../store.js';

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
 * How much of each kind an account holds: a count and a sum read from the (account, size) index
 * alone, so checking a quota costs the same whatever the rows hold.
 */
function createHoldings(db: PorchDatabase): (kind: ContentKind, accountId: string) => ContentAmount {
  const heldIn = (table: (typeof CONTENT_TABLES)[ContentKind]) =>
    onFirstUse(() =>
      db
        .select({ items: count(), bytes: sql<number>`coalesce(sum(${table.sizeBytes}), 0)` })
        .from(table)
        .where(eq(table.accountId, sql.placeholder('accountId')))
        .prepare(),
    );
  const statements = {
    contextCards: heldIn(contextCards),
    compositions: heldIn(compositions),
    skills: heldIn(skills),
    workflows: heldIn(workflows),
  } satisfies Record<ContentKind, unknown>;
  return (kind, accountId) => statements[kind]().get({ accountId }) ?? { items: 0, bytes: 0 };
}

/**
 * Newest first (ids are UUIDv7), starting after the `cursor` placeholder when paging. Lists are
 * prepared once per shape (first page or after a cursor) instead of built and compiled per
 * request: building the query was most of a small list's cost.
 */
function pageWhere(accountColumn: SQLiteColumn, idColumn: SQLiteColumn, afterCursor: boolean, extra?: SQL): SQL | undefined {
  return and(eq(accountColumn, sql.placeholder('accountId')), afterCursor ? lt(idColumn, sql.placeholder('cursor')) : undefined, extra);
}

/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1;

/** One prepared statement for the first page and one for the pages after a cursor. */
function byPageShape<Statement>(prepare: (afterCursor: boolean) => Statement): { first: () => Statement; after: () => Statement } {
  return { first: onFirstUse(() => prepare(false)), after: onFirstUse(() => prepare(true)) };
}

function pageParams({ accountId, page }: OwnedPageRequest) {
  return { accountId, cursor: page.cursor ?? '', limit: page.limit ?? NO_LIMIT };
}

export function createContextCardRepository(db: PorchDatabase): ContextCardRepository {
  const findOwned = onFirstUse(() =>
    db
      .select({ ...cardColumns, productionVersion })
      .from(contextCards)
      .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
      .prepare(),
  );
  const listPage = (inCategory: boolean) =>
    byPageShape((afterCursor) =>
      rowStatement(db, cardColumns, (fields) =>
        db
          .select(fields)
          .from(contextCards)
          .where(
            pageWhere(contextCards.accountId, contextCards.id, afterCursor, inCategory ? eq(contextCards.category, sql.placeholder('category')) : undefined),
          )
          .orderBy(desc(contextCards.id))
          .limit(limitParameter('limit')),
      ),
    );
  const anyCategory = listPage(false);
  const oneCategory = listPage(true);
  return {
    async list(request) {
      const { category } = request;
      const shapes = category === undefined ? anyCategory : oneCategory;
      return (request.page.cursor ? shapes.after() : shapes.first()).all({ ...pageParams(request), category: category ?? '' });
    },
    async findOwned({ accountId, id }) {
      return findOwned().get({ id, accountId }) ?? null;
    },
  };
}

/** Applies a planned catalog write (catalog-changes.ts) inside the caller's transaction. */
function createCatalogWriter(db: PorchDatabase) {
  const holdings = createHoldings(db);
  const read = (changes: CatalogChanges) => {
    const { ids, keys, kinds } = factsNeeded(changes);
    const stored = new Map<string, StoredState>();
    const keyHolders = new Map<string, string>();
    for (const [kind, kindIds] of ids) {
      const table = CONTENT_TABLES[kind];
      const rows = db
        .select({ id: table.id, version: table.version, sizeBytes: table.sizeBytes })
        .from(table)
        .where(and(eq(table.accountId, changes.accountId), inArray(table.id, kindIds)))
        .all();
      for (const row of rows) stored.set(storedKey(kind, row.id), { version: row.version, sizeBytes: row.sizeBytes });
    }
    for (const [kind, kindKeys] of keys) {
      const table = CONTENT_TABLES[kind];
      const rows = db
        .select({ id: table.id, bundleKey: table.bundleKey })
        .from(table)
        .where(and(eq(table.accountId, changes.accountId), inArray(table.bundleKey, kindKeys)))
        .all();
      for (const row of rows) if (row.bundleKey !== null) keyHolders.set(storedKey(kind, row.bundleKey), row.id);
    }
    const held = new Map<ContentKind, ContentAmount>(kinds.map((kind) => [kind, holdings(kind, changes.accountId)]));
    return { stored, keyHolders, holdings: (kind: ContentKind) => held.get(kind) ?? { items: 0, bytes: 0 } };
  };
  return immediateTransaction(db, (changes: CatalogChanges): CatalogWriteOutcome => {
    const plan = planCatalogWrite(changes, read(changes));
    if (!isPlan(plan)) return plan;
    for (const { kind, id } of plan.deletes) {
      const table = CONTENT_TABLES[kind];
      db.delete(table).where(eq(table.id, id)).run();
      db.delete(resourceLabels).where(eq(resourceLabels.resourceId, id)).run();
      db.update(resourceVersions).set({ deletedAt: changes.at }).where(eq(resourceVersions.resourceId, id)).run();
    }
    for (const { kind, id, set } of plan.updates) {
      const table = CONTENT_TABLES[kind];
      db.update(table).set(set).where(eq(table.id, id)).run();
    }
    for (const { kind, row } of plan.creates) {
      // The plan's row is the kind's record (typed by CatalogItem) plus the size the store keeps.
      db.insert(CONTENT_TABLES[kind])
        .values(row as never)
        .run();
    }
    for (const version of plan.versions) db.insert(resourceVersions).values(version).run();
    return { ok: true };
  });
}

export function createCatalogRepository(db: PorchDatabase): CatalogRepository {
  const write = createCatalogWriter(db);
  const compositionPages = byPageShape((afterCursor) =>
    rowStatement(db, compositionColumns, (fields) =>
      db
        .select(fields)
        .from(compositions)
        .where(pageWhere(compositions.accountId, compositions.id, afterCursor))
        .orderBy(desc(compositions.id))
        .limit(limitParameter('limit')),
    ),
  );
  const skillPages = byPageShape((afterCursor) =>
    rowStatement(db, skillColumns, (fields) =>
      db
        .select(fields)
        .from(skills)
        .where(pageWhere(skills.accountId, skills.id, afterCursor))
        .orderBy(desc(skills.id))
        .limit(limitParameter('limit')),
    ),
  );
  const workflowPages = byPageShape((afterCursor) =>
    rowStatement(db, workflowColumns, (fields) =>
      db
        .select(fields)
        .from(workflows)
        .where(pageWhere(workflows.accountId, workflows.id, afterCursor))
        .orderBy(desc(workflows.id))
        .limit(limitParameter('limit')),
    ),
  );
  const owned = { id: sql.placeholder('id'), accountId: sql.placeholder('accountId') };
  const compositionById = onFirstUse(() =>
    db
      .select({ ...compositionColumns, productionVersion })
      .from(compositions)
      .where(and(eq(compositions.id, owned.id), eq(compositions.accountId, owned.accountId)))
      .prepare(),
  );
  const skillById = onFirstUse(() =>
    db
      .select({ ...skillColumns, productionVersion })
      .from(skills)
      .where(and(eq(skills.id, owned.id), eq(skills.accountId, owned.accountId)))
      .prepare(),
  );
  const workflowById = onFirstUse(() =>
    db
      .select({ ...workflowColumns, productionVersion })
      .from(workflows)
      .where(and(eq(workflows.id, owned.id), eq(workflows.accountId, owned.accountId)))
      .prepare(),
  );
  const compositionUsed = onFirstUse(() =>
    db
      .update(compositions)
      .set({ timesUsed: sql`${compositions.timesUsed} + 1` })
      .where(eq(compositions.id, sql.placeholder('id')))
      .prepare(),
  );
  const workflowUsed = onFirstUse(() =>
    db
      .update(workflows)
      .set({ usageCount: sql`${workflows.usageCount} + 1` })
      .where(eq(workflows.id, sql.placeholder('id')))
      .prepare(),
  );
  // A version as the store reads it: every column but the owner, which the query already matched.
  const { accountId: _owner, ...versionColumns } = getTableColumns(resourceVersions);
  const ownedVersions = and(eq(resourceVersions.resourceId, owned.id), eq(resourceVersions.accountId, owned.accountId));
  const versionPages = byPageShape((afterCursor) =>
    db
      .select(versionColumns)
      .from(resourceVersions)
      .where(and(ownedVersions, afterCursor ? lt(resourceVersions.version, sql.placeholder('cursor')) : undefined))
      .orderBy(desc(resourceVersions.version))
      .limit(limitParameter('limit'))
      .prepare(),
  );
  const versionById = onFirstUse(() =>
    db
      .select(versionColumns)
      .from(resourceVersions)
      .where(and(ownedVersions, eq(resourceVersions.version, sql.placeholder('version'))))
      .prepare(),
  );
  const setLabel = immediateTransaction(
    db,
    ({ accountId, id, kind, label, version, at }: Parameters<CatalogRepository['setLabel']>[0]): Awaited<ReturnType<CatalogRepository['setLabel']>> => {
      const table = CONTENT_TABLES[kind];
      const resource = db
        .select({ version: table.version })
        .from(table)
        .where(and(eq(table.id, id), eq(table.accountId, accountId)))
        .get();
      if (!resource) return 'no_resource';
      if (version < 1 || version > resource.version) return 'no_version';
      db.insert(resourceLabels)
        .values({ resourceId: id, label, version, accountId, updatedAt: at })
        .onConflictDoUpdate({ target: [resourceLabels.resourceId, resourceLabels.label], set: { version, updatedAt: at } })
        .run();
      return 'set';
    },
  );
  return {
    async listCompositions(request) {
      return (request.page.cursor ? compositionPages.after() : compositionPages.first()).all(pageParams(request));
    },
    async listSkills(request) {
      return (request.page.cursor ? skillPages.after() : skillPages.first()).all(pageParams(request));
    },
    async listWorkflows(request) {
      return (request.page.cursor ? workflowPages.after() : workflowPages.first()).all(pageParams(request));
    },
    async findComposition({ accountId, id }) {
      return compositionById().get({ id, accountId }) ?? null;
    },
    async findSkill({ accountId, id }) {
      return skillById().get({ id, accountId }) ?? null;
    },
    async findWorkflow({ accountId, id }) {
      return workflowById().get({ id, accountId }) ?? null;
    },
    async incrementCompositionUse(id) {
      compositionUsed().run({ id });
    },
    async incrementWorkflowUse(id) {
      workflowUsed().run({ id });
    },
    async write(changes) {
      return write(changes);
    },
    async findIdByKey({ accountId, kind, key }) {
      const table = CONTENT_TABLES[kind];
      const found = db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.accountId, accountId), eq(table.bundleKey, key)))
        .get();
      return found?.id ?? null;
    },
    async listVersions({ accountId, id, page }) {
      const statement = page.cursor ? versionPages.after() : versionPages.first();
      return statement.all({ accountId, id, cursor: Number(page.cursor ?? 0), limit: page.limit ?? NO_LIMIT });
    },
    async findVersion({ accountId, id, version }) {
      return versionById().get({ accountId, id, version }) ?? null;
    },
    async listLabels({ accountId, id }) {
      return db
        .select({ resourceId: resourceLabels.resourceId, label: resourceLabels.label, version: resourceLabels.version, updatedAt: resourceLabels.updatedAt })
        .from(resourceLabels)
        .where(and(eq(resourceLabels.resourceId, id), eq(resourceLabels.accountId, accountId)))
        .orderBy(resourceLabels.label)
        .all();
    },
    async setLabel(request) {
      return setLabel(request);
    },
    async removeLabel({ accountId, id, label }) {
      const removed = db
        .delete(resourceLabels)
        .where(and(eq(resourceLabels.resourceId, id), eq(resourceLabels.accountId, accountId), eq(resourceLabels.label, label)))
        .run();
      return removed.changes > 0;
    },
    async pruneDeletedVersions(before) {
      return db.delete(resourceVersions).where(lte(resourceVersions.deletedAt, before)).run().changes;
    },
    async exportAll(accountId) {
      const all = { accountId, page: {} } satisfies OwnedPageRequest;
      return {
        contextCards: (await createContextCardRepository(db).list(all)).reverse(),
        compositions: (await this.listCompositions(all)).reverse(),
        skills: (await this.listSkills(all)).reverse(),
        workflows: (await this.listWorkflows(all)).reverse(),
      };
    },
  };
}
