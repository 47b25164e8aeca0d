import { and, eq, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { organisations, sanitiserRules } from './schema.js';
import { inTransaction, type PostgresTransaction } from './transaction.js';
import type { SanitiserRuleRepository } from '../store.js';

/**
 * Every process compares this version with the one its compiled ruleset was built from, so a
 * change made anywhere is seen everywhere. From `expectedVersion` only when given (a concurrent
 * change holds the row until it commits, then the condition is read again on its version):
 * whether a row changed.
 */
async function bumpVersion(tx: PostgresTransaction, organisationId: string, expectedVersion?: number): Promise<boolean> {
  const bumped = await tx
    .update(organisations)
    .set({ sanitiserRulesVersion: sql`${organisations.sanitiserRulesVersion} + 1` })
    .where(
      expectedVersion === undefined
        ? eq(organisations.id, organisationId)
        : and(eq(organisations.id, organisationId), eq(organisations.sanitiserRulesVersion, expectedVersion)),
    )
    .returning({ id: organisations.id });
  return bumped.length > 0;
}

export function createSanitiserRuleRepository(db: PostgresDatabase): SanitiserRuleRepository {
  const readVersion = db
    .select({ version: organisations.sanitiserRulesVersion })
    .from(organisations)
    .where(eq(organisations.id, sql.placeholder('organisationId')))
    .prepare('sanitiser_rules_version');
  return {
    async upsert(record, expectedVersion) {
      return inTransaction(db, async (tx) => {
        // The version first: a stale one leaves nothing to undo.
        if (!(await bumpVersion(tx, record.organisationId, expectedVersion)) && expectedVersion !== undefined) return false;
        await tx
          .insert(sanitiserRules)
          .values(record)
          .onConflictDoUpdate({
            target: [sanitiserRules.organisationId, sanitiserRules.ruleId],
            set: { kind: record.kind, definition: record.definition, updatedAt: record.updatedAt },
          });
        return true;
      });
    },
    // Byte order, as SQLite sorts: the server's locale must not change the order rules apply in.
    async list(organisationId) {
      return db.select().from(sanitiserRules).where(eq(sanitiserRules.organisationId, organisationId)).orderBy(sql`${sanitiserRules.ruleId} collate "C"`);
    },
    async remove({ organisationId, ruleId }) {
      return inTransaction(db, async (tx) => {
        const removed = await tx
          .delete(sanitiserRules)
          .where(and(eq(sanitiserRules.organisationId, organisationId), eq(sanitiserRules.ruleId, ruleId)))
          .returning({ id: sanitiserRules.id });
        if (removed.length > 0) await bumpVersion(tx, organisationId);
        return removed.length > 0;
      });
    },
    async version(organisationId) {
      return (await readVersion.execute({ organisationId }))[0]?.version ?? 0;
    },
  };
}
