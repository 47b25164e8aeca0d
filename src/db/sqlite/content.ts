import { and, count, desc, eq, getTableColumns, lt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { bundleAdditions, contextCardSizeBytes, sizedBundle } from '../content-size.js';
import { definedChanges, quotaExcess, recordColumns, type ContentAmount } from '../quota-excess.js';
import { immediateTransaction } from './immediate-transaction.js';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { compositions, contextCards, skills, workflows } from './schema.js';
import type {
  BundleRecords,
  CatalogRepository,
  ContentKind,
  ContentQuotas,
  ContextCardRecord,
  ContextCardRepository,
  ContextCardUpdateOutcome,
  KindQuota,
  OwnedId,
  OwnedPageRequest,
  QuotaOutcome,
} from '../store.js';

const cardColumns = recordColumns(getTableColumns(contextCards));
const compositionColumns = recordColumns(getTableColumns(compositions));
const skillColumns = recordColumns(getTableColumns(skills));
const workflowColumns = recordColumns(getTableColumns(workflows));

const CONTENT_TABLES = { contextCards, compositions, skills, workflows } as const;

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
  const holdings = createHoldings(db);
  const findOwned = onFirstUse(() =>
    db
      .select(cardColumns)
      .from(contextCards)
      .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
      .prepare(),
  );
  const ownedSize = onFirstUse(() =>
    db
      .select({ sizeBytes: contextCards.sizeBytes })
      .from(contextCards)
      .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
      .prepare(),
  );
  const listPage = (inCategory: boolean) =>
    byPageShape((afterCursor) =>
      db
        .select(cardColumns)
        .from(contextCards)
        .where(pageWhere(contextCards.accountId, contextCards.id, afterCursor, inCategory ? eq(contextCards.category, sql.placeholder('category')) : undefined))
        .orderBy(desc(contextCards.id))
        .limit(sql.placeholder('limit'))
        .prepare(),
    );
  const anyCategory = listPage(false);
  const oneCategory = listPage(true);
  const insertCard = immediateTransaction(db, (card: ContextCardRecord, quota: KindQuota): QuotaOutcome => {
    const sizeBytes = contextCardSizeBytes(card);
    const excess = quotaExcess('contextCards', holdings('contextCards', card.accountId), { items: 1, bytes: sizeBytes }, quota);
    if (excess) return { ok: false, excess };
    db.insert(contextCards)
      .values({ ...card, sizeBytes })
      .run();
    return { ok: true };
  });
  const updateCard = immediateTransaction(
    db,
    ({
      accountId,
      id,
      changes,
      quota,
    }: OwnedId & { changes: Partial<Omit<ContextCardRecord, 'id' | 'accountId' | 'createdAt'>>; quota: KindQuota }): ContextCardUpdateOutcome => {
      const current = findOwned().get({ id, accountId });
      const stored = ownedSize().get({ id, accountId });
      if (!current || !stored) return null;
      // The size is of the card as it will be, known only here, inside the transaction that writes it.
      const sizeBytes = contextCardSizeBytes({ ...current, ...definedChanges(changes) });
      const excess = quotaExcess('contextCards', holdings('contextCards', accountId), { items: 0, bytes: sizeBytes - stored.sizeBytes }, quota);
      if (excess) return { ok: false, excess };
      const card = db
        .update(contextCards)
        .set({ ...changes, sizeBytes })
        .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
        .returning(cardColumns)
        .get();
      return card ? { ok: true, card } : null;
    },
  );
  return {
    async list(request) {
      const { category } = request;
      const shapes = category === undefined ? anyCategory : oneCategory;
      return (request.page.cursor ? shapes.after() : shapes.first()).all({ ...pageParams(request), category: category ?? '' });
    },
    async findOwned({ accountId, id }) {
      return findOwned().get({ id, accountId }) ?? null;
    },
    async insert({ card, quota }) {
      return insertCard(card, quota);
    },
    async update(request) {
      return updateCard(request);
    },
    async delete({ accountId, id }) {
      return (
        db
          .delete(contextCards)
          .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
          .run().changes > 0
      );
    },
  };
}

export function createCatalogRepository(db: PorchDatabase): CatalogRepository {
  const holdings = createHoldings(db);
  const compositionPages = byPageShape((afterCursor) =>
    db
      .select(compositionColumns)
      .from(compositions)
      .where(pageWhere(compositions.accountId, compositions.id, afterCursor))
      .orderBy(desc(compositions.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const skillPages = byPageShape((afterCursor) =>
    db
      .select(skillColumns)
      .from(skills)
      .where(pageWhere(skills.accountId, skills.id, afterCursor))
      .orderBy(desc(skills.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const workflowPages = byPageShape((afterCursor) =>
    db
      .select(workflowColumns)
      .from(workflows)
      .where(pageWhere(workflows.accountId, workflows.id, afterCursor))
      .orderBy(desc(workflows.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const owned = { id: sql.placeholder('id'), accountId: sql.placeholder('accountId') };
  const compositionById = onFirstUse(() =>
    db
      .select(compositionColumns)
      .from(compositions)
      .where(and(eq(compositions.id, owned.id), eq(compositions.accountId, owned.accountId)))
      .prepare(),
  );
  const skillById = onFirstUse(() =>
    db
      .select(skillColumns)
      .from(skills)
      .where(and(eq(skills.id, owned.id), eq(skills.accountId, owned.accountId)))
      .prepare(),
  );
  const workflowById = onFirstUse(() =>
    db
      .select(workflowColumns)
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
  const insertBundle = immediateTransaction(db, (records: BundleRecords, quotas: ContentQuotas): QuotaOutcome => {
    const bundle = sizedBundle(records);
    for (const { kind, accountId, added } of bundleAdditions(bundle)) {
      const excess = quotaExcess(kind, holdings(kind, accountId), added, quotas[kind]);
      if (excess) return { ok: false, excess };
    }
    for (const card of bundle.contextCards) db.insert(contextCards).values(card).run();
    for (const composition of bundle.compositions) db.insert(compositions).values(composition).run();
    for (const skill of bundle.skills) db.insert(skills).values(skill).run();
    for (const workflow of bundle.workflows) db.insert(workflows).values(workflow).run();
    return { ok: true };
  });
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
    async insertBundle({ records, quotas }) {
      return insertBundle(records, quotas);
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
