import { and, desc, eq, getTableColumns, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { bundleAdditions, contextCardSizeBytes, sizedBundle } from '../content-size.js';
import { definedChanges, quotaExcess, recordColumns, type ContentAmount } from '../quota-excess.js';
import type { PostgresDatabase } from './open-database.js';
import { accounts, compositions, contextCards, skills, workflows } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { CatalogRepository, ContentKind, ContextCardRepository, OwnedPageRequest } from '../store.js';

const cardColumns = recordColumns(getTableColumns(contextCards));
const compositionColumns = recordColumns(getTableColumns(compositions));
const skillColumns = recordColumns(getTableColumns(skills));
const workflowColumns = recordColumns(getTableColumns(workflows));

const CONTENT_TABLES = { contextCards, compositions, skills, workflows } as const;

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

export function createContextCardRepository(db: PostgresDatabase): ContextCardRepository {
  const owned = db
    .select(cardColumns)
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
    async insert({ card, quota }) {
      return inTransaction(db, async (tx) => {
        await lockAccounts(tx, [card.accountId]);
        const sizeBytes = contextCardSizeBytes(card);
        const excess = quotaExcess('contextCards', await holdings(tx, 'contextCards', card.accountId), { items: 1, bytes: sizeBytes }, quota);
        if (excess) return { ok: false, excess };
        await tx.insert(contextCards).values({ ...card, sizeBytes });
        return { ok: true };
      });
    },
    async update({ accountId, id, changes, quota }) {
      return inTransaction(db, async (tx) => {
        await lockAccounts(tx, [accountId]);
        const [current] = await tx
          .select(getTableColumns(contextCards))
          .from(contextCards)
          .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)));
        if (!current) return null;
        const { sizeBytes: storedSize, ...record } = current;
        // The size is of the card as it will be, known only here, inside the transaction that writes it.
        const sizeBytes = contextCardSizeBytes({ ...record, ...definedChanges(changes) });
        const excess = quotaExcess('contextCards', await holdings(tx, 'contextCards', accountId), { items: 0, bytes: sizeBytes - storedSize }, quota);
        if (excess) return { ok: false, excess };
        const [card] = await tx
          .update(contextCards)
          .set({ ...changes, sizeBytes })
          .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
          .returning(cardColumns);
        return card ? { ok: true, card } : null;
      });
    },
    async delete({ accountId, id }) {
      const deleted = await db
        .delete(contextCards)
        .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
        .returning({ id: contextCards.id });
      return deleted.length > 0;
    },
  };
}

export function createCatalogRepository(db: PostgresDatabase): CatalogRepository {
  const cards = createContextCardRepository(db);
  const compositionById = db
    .select(compositionColumns)
    .from(compositions)
    .where(and(eq(compositions.id, sql.placeholder('id')), eq(compositions.accountId, sql.placeholder('accountId'))))
    .prepare('composition_owned');
  const skillById = db
    .select(skillColumns)
    .from(skills)
    .where(and(eq(skills.id, sql.placeholder('id')), eq(skills.accountId, sql.placeholder('accountId'))))
    .prepare('skill_owned');
  const workflowById = db
    .select(workflowColumns)
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
    async insertBundle({ records, quotas }) {
      const bundle = sizedBundle(records);
      const additions = bundleAdditions(bundle);
      return inTransaction(db, async (tx) => {
        await lockAccounts(
          tx,
          additions.map((addition) => addition.accountId),
        );
        for (const { kind, accountId, added } of additions) {
          const excess = quotaExcess(kind, await holdings(tx, kind, accountId), added, quotas[kind]);
          if (excess) return { ok: false, excess };
        }
        await insertInBatches(tx, contextCards, bundle.contextCards);
        await insertInBatches(tx, compositions, bundle.compositions);
        await insertInBatches(tx, skills, bundle.skills);
        await insertInBatches(tx, workflows, bundle.workflows);
        return { ok: true };
      });
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
