import { and, desc, eq, getTableColumns, isNotNull, lt, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { runs } from './schema.js';
import { runListWhere } from '../run-filters.js';
import type { RunRepository } from '../store.js';
import { inTransaction } from './transaction.js';
import { enqueueWebhookEvents } from './webhooks.js';

const { payload: _payload, ...summaryColumns } = getTableColumns(runs);

/** Runs newest first (ids are UUIDv7); lists read every column but the payload. */
export function createRunRepository(db: PostgresDatabase): RunRepository {
  return {
    async insert(run, events = []) {
      if (events.length === 0) {
        await db.insert(runs).values(run);
        return;
      }
      await inTransaction(db, async (tx) => {
        await tx.insert(runs).values(run);
        await enqueueWebhookEvents(tx, events);
      });
    },
    async findOwned({ accountId, id }) {
      return (
        (
          await db
            .select()
            .from(runs)
            .where(and(eq(runs.id, id), eq(runs.accountId, accountId)))
        )[0] ?? null
      );
    },
    async list(request) {
      const query = db
        .select({ ...summaryColumns, hasPayload: sql<boolean>`${runs.payload} is not null` })
        .from(runs)
        .where(runListWhere(runs, request))
        .orderBy(desc(runs.id))
        .$dynamic();
      return request.page.limit === undefined ? query : query.limit(request.page.limit);
    },
    async prunePayloads({ before }) {
      const pruned = await db
        .update(runs)
        .set({ payload: null })
        .where(and(lt(runs.createdAt, before), isNotNull(runs.payload)))
        .returning({ id: runs.id });
      return pruned.length;
    },
  };
}
