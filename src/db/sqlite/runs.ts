import { and, desc, eq, getTableColumns, isNotNull, lt, sql } from 'drizzle-orm';
import { immediateTransaction } from './immediate-transaction.js';
import type { PorchDatabase } from './open-database.js';
import { runs } from './schema.js';
import { runListWhere } from '../run-filters.js';
import type { RunRecord, RunRepository, WebhookEventRecord } from '../store.js';
import { prepareWebhookEnqueue } from './webhooks.js';

const { payload: _payload, ...summaryColumns } = getTableColumns(runs);

/** Runs newest first (ids are UUIDv7); lists read every column but the payload. */
export function createRunRepository(db: PorchDatabase): RunRepository {
  const enqueueWebhooks = prepareWebhookEnqueue(db);
  const insertWithEvents = immediateTransaction(db, (run: RunRecord, events: readonly WebhookEventRecord[]) => {
    db.insert(runs).values(run).run();
    enqueueWebhooks(events);
  });
  return {
    async insert(run, events = []) {
      if (events.length === 0) db.insert(runs).values(run).run();
      else insertWithEvents(run, events);
    },
    async findOwned({ accountId, id }) {
      return (
        db
          .select()
          .from(runs)
          .where(and(eq(runs.id, id), eq(runs.accountId, accountId)))
          .get() ?? null
      );
    },
    async list(request) {
      const rows = db
        .select({ ...summaryColumns, hasPayload: sql<number>`${runs.payload} is not null` })
        .from(runs)
        .where(runListWhere(runs, request))
        .orderBy(desc(runs.id))
        .limit(request.page.limit ?? -1)
        .all();
      return rows.map((row) => ({ ...row, hasPayload: row.hasPayload === 1 }));
    },
    async prunePayloads({ before }) {
      return db
        .update(runs)
        .set({ payload: null })
        .where(and(lt(runs.createdAt, before), isNotNull(runs.payload)))
        .run().changes;
    },
  };
}
