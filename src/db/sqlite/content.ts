import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { compositions, contextCards, skills, workflows } from './schema.js';
import type { CatalogRepository, ContextCardRecord, ContextCardRepository, OwnedPageRequest } from '../store.js';

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
      .select()
      .from(contextCards)
      .where(and(eq(contextCards.id, sql.placeholder('id')), eq(contextCards.accountId, sql.placeholder('accountId'))))
      .prepare(),
  );
  const listPage = (inCategory: boolean) =>
    byPageShape((afterCursor) =>
      db
        .select()
        .from(contextCards)
        .where(pageWhere(contextCards.accountId, contextCards.id, afterCursor, inCategory ? eq(contextCards.category, sql.placeholder('category')) : undefined))
        .orderBy(desc(contextCards.id))
        .limit(sql.placeholder('limit'))
        .prepare(),
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
    async insert(card: ContextCardRecord) {
      db.insert(contextCards).values(card).run();
    },
    async update({ accountId, id, changes }) {
      return (
        db
          .update(contextCards)
          .set(changes)
          .where(and(eq(contextCards.id, id), eq(contextCards.accountId, accountId)))
          .returning()
          .get() ?? null
      );
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
  const compositionPages = byPageShape((afterCursor) =>
    db
      .select()
      .from(compositions)
      .where(pageWhere(compositions.accountId, compositions.id, afterCursor))
      .orderBy(desc(compositions.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const skillPages = byPageShape((afterCursor) =>
    db
      .select()
      .from(skills)
      .where(pageWhere(skills.accountId, skills.id, afterCursor))
      .orderBy(desc(skills.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const workflowPages = byPageShape((afterCursor) =>
    db
      .select()
      .from(workflows)
      .where(pageWhere(workflows.accountId, workflows.id, afterCursor))
      .orderBy(desc(workflows.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
  );
  const owned = { id: sql.placeholder('id'), accountId: sql.placeholder('accountId') };
  const compositionById = onFirstUse(() =>
    db
      .select()
      .from(compositions)
      .where(and(eq(compositions.id, owned.id), eq(compositions.accountId, owned.accountId)))
      .prepare(),
  );
  const skillById = onFirstUse(() =>
    db
      .select()
      .from(skills)
      .where(and(eq(skills.id, owned.id), eq(skills.accountId, owned.accountId)))
      .prepare(),
  );
  const workflowById = onFirstUse(() =>
    db
      .select()
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
