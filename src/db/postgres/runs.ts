import { and, desc, eq, getTableColumns, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { runs } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import { queuedRunRow } from '../queued-runs.js';
import { runListWhere } from '../run-filters.js';
import type { RunCompletion, RunRecord, RunRepository } from '../store.js';
import { enqueueWebhookEvents } from './webhooks.js';

const { payload: _payload, ...summaryColumns } = getTableColumns(runs);

/** Queued runs a claim looks at in one go: enough to get past the runs of accounts at their bound. */
const CLAIM_CANDIDATES = 16;

/** The account's lock, held to the end of the transaction: claims of one account's runs queue on it, from every process. */
const lockAccountRuns = (tx: PostgresTransaction, accountId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`runs:${accountId}`}, 0))`);

const runningCount = async (tx: PostgresTransaction, accountId: string): Promise<number> =>
  (await tx.execute<{ n: number }>(sql`select count(*)::int as n from runs where status = 'running' and account_id = ${accountId}`)).rows[0]?.n ?? 0;

/**
 * Runs newest first (ids are UUIDv7); lists read every column but the payload. Asynchronous runs
 * are a queue in the same table. A claim reads the oldest candidates without locking them (locking
 * a batch would hide it from every other claimer until the claim commits), then, under the
 * candidate's account lock, counts the account's running runs and takes the run only if it is
 * still queued: the per-account bound is exact across processes and hosts, and a run is taken once.
 */
export function createRunRepository(db: PostgresDatabase): RunRepository {
  const lockOwned = async (tx: PostgresTransaction, accountId: string, id: string): Promise<RunRecord | null> =>
    (
      await tx
        .select()
        .from(runs)
        .where(and(eq(runs.id, id), eq(runs.accountId, accountId)))
        .for('update')
    )[0] ?? null;

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
    async enqueue(run) {
      await db.insert(runs).values(queuedRunRow(run));
    },
    async claim({ instanceId, now, maxRunningPerAccount, serves }) {
      // A run's models (QueuedRunModels, in its payload) are matched as JSON: no model it names
      // outside the served list, and its default model, if it relies on one, this process's.
      const served =
        serves === undefined
          ? sql``
          : sql`
            and not exists (select 1 from json_array_elements_text(q.payload->'models'->'ids') m(id) where m.id not in (select json_array_elements_text(${JSON.stringify(serves.ids)}::json)))
            and coalesce(q.payload->'models'->>'defaultModel', ${serves.defaultModel}) = ${serves.defaultModel}`;
      return inTransaction(db, async (tx) => {
        const candidates = await tx.execute<{ id: string; account_id: string }>(sql`
          select q.id, q.account_id from runs q
          where q.status = 'queued'
            and q.account_id not in (select r.account_id from runs r where r.status = 'running' group by r.account_id having count(*) >= ${maxRunningPerAccount})${served}
          order by q.id
          limit ${CLAIM_CANDIDATES}`);
        for (const candidate of candidates.rows) {
          await lockAccountRuns(tx, candidate.account_id);
          if ((await runningCount(tx, candidate.account_id)) >= maxRunningPerAccount) continue;
          // Another process may have taken it (or its owner cancelled it) since the candidates were read.
          const [claimed] = await tx
            .update(runs)
            .set({ status: 'running', claimedBy: instanceId, startedAt: now, attempts: sql`${runs.attempts} + 1` })
            .where(and(eq(runs.id, candidate.id), eq(runs.status, 'queued')))
            .returning();
          if (claimed) return claimed;
        }
        return null;
      });
    },
    async complete({ id, instanceId, result, ...fields }: RunCompletion, events = []) {
      return inTransaction(db, async (tx) => {
        const [held] = await tx.select().from(runs).where(eq(runs.id, id)).for('update');
        if (held?.status !== 'running' || held.claimedBy !== instanceId) return false;
        await tx
          .update(runs)
          .set({ ...fields, claimedBy: null, payload: { inputs: held.payload?.inputs ?? null, result } })
          .where(eq(runs.id, id));
        await enqueueWebhookEvents(tx, events);
        return true;
      });
    },
    async noteAttemptCost({ id, instanceId, ...totals }) {
      const noted = await db
        .update(runs)
        .set(totals)
        .where(and(eq(runs.id, id), eq(runs.status, 'running'), eq(runs.claimedBy, instanceId)))
        .returning({ id: runs.id });
      return noted.length > 0;
    },
    async requeue({ id, instanceId }) {
      const requeued = await db
        .update(runs)
        .set({ status: 'queued', claimedBy: null, startedAt: null })
        .where(and(eq(runs.id, id), eq(runs.status, 'running'), eq(runs.claimedBy, instanceId), isNull(runs.cancelRequestedAt)))
        .returning({ id: runs.id });
      return requeued.length > 0;
    },
    async cancel({ accountId, id, now }) {
      return inTransaction(db, async (tx) => {
        const run = await lockOwned(tx, accountId, id);
        if (!run) return { outcome: 'missing' } as const;
        if (run.status === 'queued') {
          const [cancelled] = await tx.update(runs).set({ status: 'cancelled', cancelRequestedAt: now, finishedAt: now }).where(eq(runs.id, id)).returning();
          return { outcome: 'cancelled', run: cancelled ?? run } as const;
        }
        if (run.status === 'running') {
          if (run.cancelRequestedAt !== null) return { outcome: 'requested', run } as const;
          const [requested] = await tx.update(runs).set({ cancelRequestedAt: now }).where(eq(runs.id, id)).returning();
          return { outcome: 'requested', run: requested ?? run } as const;
        }
        return { outcome: 'finished', run } as const;
      });
    },
    async cancelRequested(ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .select({ id: runs.id })
        .from(runs)
        .where(and(inArray(runs.id, [...ids]), eq(runs.status, 'running'), isNotNull(runs.cancelRequestedAt)));
      return rows.map((row) => row.id);
    },
    async recoverOrphans({ now, maxAttempts }) {
      return inTransaction(db, async (tx) => {
        const orphaned = sql`${runs.status} = 'running' and (${runs.claimedBy} is null or ${runs.claimedBy} not in (select id from instances where lease_expires_at > ${now}))`;
        const requeued = await tx
          .update(runs)
          .set({ status: 'queued', claimedBy: null, startedAt: null })
          .where(and(orphaned, lt(runs.attempts, maxAttempts), isNull(runs.cancelRequestedAt)))
          .returning({ id: runs.id });
        const stranded = await tx.select().from(runs).where(orphaned);
        return { requeued: requeued.length, stranded };
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
      // A queued or running run still needs its inputs.
      const pruned = await db
        .update(runs)
        .set({ payload: null })
        .where(and(lt(runs.createdAt, before), isNotNull(runs.payload), sql`${runs.status} not in ('queued', 'running')`))
        .returning({ id: runs.id });
      return pruned.length;
    },
  };
}
