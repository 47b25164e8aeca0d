import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PorchDatabase } from '../open-database.js';
import { compositions, contextCards, skills, workflows } from '../schema.js';
import type { CatalogRepository, ContextCardRecord, ContextCardRepository, PageRequest } from '../store.js';

/** Newest first (ids are UUIDv7), starting after `cursor` when paging. */
function pageWhere(accountColumn: SQLiteColumn, idColumn: SQLiteColumn, accountId: string, page: PageRequest, extra?: SQL): SQL | undefined {
  return and(eq(accountColumn, accountId), page.cursor ? lt(idColumn, page.cursor) : undefined, extra);
}

/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1;

export function createContextCardRepository(db: PorchDatabase): ContextCardRepository {
  const findOwned = db
    .select()
    .from(contextCards)
    .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
    .prepare();
  return {
    async list(accountId, page, category) {
      return db
        .select()
        .from(contextCards)
        .where(pageWhere(contextCards.accountId, contextCards.id, accountId, page, category === undefined ? undefined : eq(contextCards.category, category)))
        .orderBy(desc(contextCards.id))
        .limit(page.limit ?? NO_LIMIT)
        .all();
    },
    async findOwned(accountId, id) {
      return findOwned.get({ id, accountId }) ?? null;
    },
    async insert(card: ContextCardRecord) {
      db.insert(contextCards).values(card).run();
    },
    async update(accountId, id, changes) {
      return (
        db
          .update(contextCards)
          .set(changes)
          .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
          .returning()
          .get() ?? null
      );
    },
    async delete(accountId, id) {
      return db.delete(contextCards).where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId))).run().changes > 0;
    },
  };
}

export function createCatalogRepository(db: PorchDatabase): CatalogRepository {
  return {
    async listCompositions(accountId, page) {
      return db
        .select()
        .from(compositions)
        .where(pageWhere(compositions.accountId, compositions.id, accountId, page))
        .orderBy(desc(compositions.id))
        .limit(page.limit ?? NO_LIMIT)
        .all();
    },
    async listSkills(accountId, page) {
      return db
        .select()
        .from(skills)
        .where(pageWhere(skills.accountId, skills.id, accountId, page))
        .orderBy(desc(skills.id))
        .limit(page.limit ?? NO_LIMIT)
        .all();
    },
    async listWorkflows(accountId, page) {
      return db
        .select()
        .from(workflows)
        .where(pageWhere(workflows.accountId, workflows.id, accountId, page))
        .orderBy(desc(workflows.id))
        .limit(page.limit ?? NO_LIMIT)
        .all();
    },
    async findComposition(accountId, id) {
      return db.select().from(compositions).where(and(eq(compositions.id, id), eq(compositions.accountId, accountId))).get() ?? null;
    },
    async findSkill(accountId, id) {
      return db.select().from(skills).where(and(eq(skills.id, id), eq(skills.accountId, accountId))).get() ?? null;
    },
    async findWorkflow(accountId, id) {
      return db.select().from(workflows).where(and(eq(workflows.id, id), eq(workflows.accountId, accountId))).get() ?? null;
    },
    async incrementCompositionUse(id) {
      db.update(compositions).set({ timesUsed: sql`${compositions.timesUsed} + 1` }).where(eq(compositions.id, id)).run();
    },
    async incrementWorkflowUse(id) {
      db.update(workflows).set({ usageCount: sql`${workflows.usageCount} + 1` }).where(eq(workflows.id, id)).run();
    },
    async insertBundle(records) {
      db.transaction(
        (tx) => {
          for (const card of records.contextCards) tx.insert(contextCards).values(card).run();
          for (const composition of records.compositions) tx.insert(compositions).values(composition).run();
          for (const skill of records.skills) tx.insert(skills).values(skill).run();
          for (const workflow of records.workflows) tx.insert(workflows).values(workflow).run();
        },
        { behavior: 'immediate' },
      );
    },
    async exportAll(accountId) {
      const all = { cursor: undefined } satisfies PageRequest;
      return {
        contextCards: (await createContextCardRepository(db).list(accountId, all)).reverse(),
        compositions: (await this.listCompositions(accountId, all)).reverse(),
        skills: (await this.listSkills(accountId, all)).reverse(),
        workflows: (await this.listWorkflows(accountId, all)).reverse(),
      };
    },
  };
}
