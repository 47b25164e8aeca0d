import { and, desc, eq, getTableColumns, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { immediateTransaction } from './immediate-transaction.js';
import { onFirstUse } from './on-first-use.js';
import type { PorchDatabase } from './open-database.js';
import { runs } from './schema.js';
import { queuedRunRow } from '../queued-runs.js';
import { runListWhere } from '../run-filters.js';
import type { RecordedRun, RunAttemptCost, RunCancellation, RunCompletion, RunRecord, RunRepository, WebhookEventRecord } from '../store.js';
import { prepareWebhookEnqueue } from './webhooks.js';

const { payload: _payload, ...summaryColumns } = getTableColumns(runs);

/**
 * Runs newest first (ids are UUIDv7); lists read every column but the payload. Asynchronous runs
 * are a queue in the same table: every check-and-update below is one statement or one IMMEDIATE
 * transaction, which SQLite serialises across every process on the file.
 */
export function createRunRepository(db: PorchDatabase): RunRepository {
  const enqueueWebhooks = prepareWebhookEnqueue(db);
  // Every execution records its run: prepared once rather than built and compiled per call.
  const insertStatement = onFirstUse(() =>
    db
      .insert(runs)
      .values({
        id: sql.placeholder('id'),
        accountId: sql.placeholder('accountId'),
        keyId: sql.placeholder('keyId'),
        keyKind: sql.placeholder('keyKind'),
        kind: sql.placeholder('kind'),
        resourceId: sql.placeholder('resourceId'),
        version: sql.placeholder('version'),
        status: sql.placeholder('status'),
        model: sql.placeholder('model'),
        inputTokens: sql.placeholder('inputTokens'),
        outputTokens: sql.placeholder('outputTokens'),
        totalTokens: sql.placeholder('totalTokens'),
        chargedTokens: sql.placeholder('chargedTokens'),
        durationMs: sql.placeholder('durationMs'),
        createdAt: sql.placeholder('createdAt'),
        // Bound as written, not through the JSON column's mapping, which would store a null payload as the text 'null'.
        payload: sql`${sql.placeholder('payload')}`,
        startedAt: sql.placeholder('startedAt'),
        finishedAt: sql.placeholder('finishedAt'),
      })
      .prepare(),
  );
  // The payload is serialised here, as its JSON column would (null stays NULL); the queue's
  // optional fields are bound as null.
  const insertRun = (run: RecordedRun) =>
    void insertStatement().run({
      ...run,
      payload: run.payload === null ? null : JSON.stringify(run.payload),
      keyKind: run.keyKind ?? null,
      startedAt: run.startedAt ?? null,
      finishedAt: run.finishedAt ?? null,
    });
  const insertWithEvents = immediateTransaction(db, (run: RecordedRun, events: readonly WebhookEventRecord[]) => {
    insertRun(run);
    enqueueWebhooks(events);
  });

  const anyQueued = onFirstUse(() => db.select({ id: runs.id }).from(runs).where(eq(runs.status, 'queued')).limit(1).prepare());
  const findById = (id: string): RunRecord | null => db.select().from(runs).where(eq(runs.id, id)).get() ?? null;

  const cancel = immediateTransaction(db, ({ accountId, id, now }: { accountId: string; id: string; now: number }): RunCancellation => {
    const run = db
      .select()
      .from(runs)
      .where(and(eq(runs.id, id), eq(runs.accountId, accountId)))
      .get();
    if (!run) return { outcome: 'missing' };
    if (run.status === 'queued') {
      const cancelled = db.update(runs).set({ status: 'cancelled', cancelRequestedAt: now, finishedAt: now }).where(eq(runs.id, id)).returning().get();
      return { outcome: 'cancelled', run: cancelled ?? run };
    }
    if (run.status === 'running') {
      if (run.cancelRequestedAt !== null) return { outcome: 'requested', run };
      const requested = db.update(runs).set({ cancelRequestedAt: now }).where(eq(runs.id, id)).returning().get();
      return { outcome: 'requested', run: requested ?? run };
    }
    return { outcome: 'finished', run };
  });

  const complete = immediateTransaction(db, ({ id, instanceId, result, ...fields }: RunCompletion, events: readonly WebhookEventRecord[]): boolean => {
    const held = findById(id);
    if (held?.status !== 'running' || held.claimedBy !== instanceId) return false;
    db.update(runs)
      .set({ ...fields, claimedBy: null, payload: { inputs: held.payload?.inputs ?? null, result } })
      .where(eq(runs.id, id))
      .run();
    enqueueWebhooks(events);
    return true;
  });

  const noteAttemptCost = ({ id, instanceId, ...totals }: RunAttemptCost): boolean =>
    db
      .update(runs)
      .set(totals)
      .where(and(eq(runs.id, id), eq(runs.status, 'running'), eq(runs.claimedBy, instanceId)))
      .run().changes > 0;

  const recoverOrphans = immediateTransaction(db, ({ now, maxAttempts }: { now: number; maxAttempts: number }) => {
    const orphaned = sql`${runs.status} = 'running' and (${runs.claimedBy} is null or ${runs.claimedBy} not in (select id from instances where lease_expires_at > ${now}))`;
    const requeued = db
      .update(runs)
      .set({ status: 'queued', claimedBy: null, startedAt: null })
      .where(and(orphaned, lt(runs.attempts, maxAttempts), isNull(runs.cancelRequestedAt)))
      .run().changes;
    const stranded = db.select().from(runs).where(orphaned).all();
    return { requeued, stranded };
  });

  return {
    async insert(run, events = []) {
      if (events.length === 0) insertRun(run);
      else insertWithEvents(run, events);
    },
    async enqueue(run) {
      db.insert(runs).values(queuedRunRow(run)).run();
    },
    async claim({ instanceId, now, maxRunningPerAccount, serves }) {
      // Every process polls the queue: an empty one is answered by a read, so an idle poll never
      // takes the file's write lock from the processes serving requests.
      if (anyQueued().get() === undefined) return null;
      // A run's models (QueuedRunModels, in its payload) are matched as JSON: no model it names
      // outside the served list, and its default model, if it relies on one, this process's.
      const served =
        serves === undefined
          ? sql``
          : sql`
                and not exists (select 1 from json_each(q.payload, '$.models.ids') m where m.value not in (select value from json_each(${JSON.stringify(serves.ids)})))
                and coalesce(json_extract(q.payload, '$.models.defaultModel'), ${serves.defaultModel}) = ${serves.defaultModel}`;
      // One statement: the pick and the update cannot be split by another process's claim.
      return (
        db
          .update(runs)
          .set({ status: 'running', claimedBy: instanceId, startedAt: now, attempts: sql`${runs.attempts} + 1` })
          .where(
            sql`${runs.id} = (
              select q.id from runs q
              where q.status = 'queued'
                and q.account_id not in (select r.account_id from runs r where r.status = 'running' group by r.account_id having count(*) >= ${maxRunningPerAccount})${served}
              order by q.id limit 1)`,
          )
          .returning()
          .get() ?? null
      );
    },
    async complete(completion, events = []) {
      return complete(completion, events);
    },
    async noteAttemptCost(cost) {
      return noteAttemptCost(cost);
    },
    async requeue({ id, instanceId }) {
      const held = and(eq(runs.id, id), eq(runs.status, 'running'), eq(runs.claimedBy, instanceId), isNull(runs.cancelRequestedAt));
      return db.update(runs).set({ status: 'queued', claimedBy: null, startedAt: null }).where(held).run().changes > 0;
    },
    async cancel(request) {
      return cancel(request);
    },
    async cancelRequested(ids) {
      if (ids.length === 0) return [];
      return db
        .select({ id: runs.id })
        .from(runs)
        .where(and(inArray(runs.id, [...ids]), eq(runs.status, 'running'), isNotNull(runs.cancelRequestedAt)))
        .all()
        .map((row) => row.id);
    },
    async recoverOrphans(request) {
      return recoverOrphans(request);
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
      // A queued or running run still needs its inputs.
      return db
        .update(runs)
        .set({ payload: null })
        .where(and(lt(runs.createdAt, before), isNotNull(runs.payload), sql`${runs.status} not in ('queued', 'running')`))
        .run().changes;
    },
  };
}
