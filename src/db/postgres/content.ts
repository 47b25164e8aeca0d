import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PostgresDatabase } from './open-database.js';
import { compositions, contextCards, skills, workflows } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { CatalogRepository, ContextCardRepository, OwnedPageRequest } from '../store.js';

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
    .select()
    .from(contextCards)
    .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
    .prepare('context_card_owned');
  return {
    async list(request) {
      const inCategory = request.category === undefined ? undefined : eq(contextCards.category, request.category);
      const query = db
        .select()
        .from(contextCards)
        .where(pageWhere(contextCards.accountId, contextCards.id, request, inCategory))
        .orderBy(desc(contextCards.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async findOwned({ accountId, id }) {
      return (await owned.execute({ id, accountId }))[0] ?? null;
    },
    async insert(card) {
      await db.insert(contextCards).values(card);
    },
    async update({ accountId, id, changes }) {
      if (Object.keys(changes).length === 0) return (await owned.execute({ id, accountId }))[0] ?? null;
      const [updated] = await db
        .update(contextCards)
        .set(changes)
        .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
        .returning();
      return updated ?? null;
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
    .select()
    .from(compositions)
    .where(and(eq(compositions.id, sql.placeholder('id')), eq(compositions.accountId, sql.placeholder('accountId'))))
    .prepare('composition_owned');
  const skillById = db
    .select()
    .from(skills)
    .where(and(eq(skills.id, sql.placeholder('id')), eq(skills.accountId, sql.placeholder('accountId'))))
    .prepare('skill_owned');
  const workflowById = db
    .select()
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
        .select()
        .from(compositions)
        .where(pageWhere(compositions.accountId, compositions.id, request))
        .orderBy(desc(compositions.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async listSkills(request) {
      const query = db
        .select()
        .from(skills)
        .where(pageWhere(skills.accountId, skills.id, request))
        .orderBy(desc(skills.id));
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async listWorkflows(request) {
      const query = db
        .select()
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
    async insertBundle(records) {
      await inTransaction(db, async (tx) => {
        await insertInBatches(tx, contextCards, records.contextCards);
        await insertInBatches(tx, compositions, records.compositions);
        await insertInBatches(tx, skills, records.skills);
        await insertInBatches(tx, workflows, records.workflows);
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
