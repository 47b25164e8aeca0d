import { and, asc, eq, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { onFirstUse } from './on-first-use.js';
import { organisations, sanitiserRules } from './schema.js';
import type { SanitiserRuleRepository } from '../store.js';

export function createSanitiserRuleRepository(db: PorchDatabase): SanitiserRuleRepository {
  const readVersion = onFirstUse(() =>
    db
      .select({ version: organisations.sanitiserRulesVersion })
      .from(organisations)
      .where(eq(organisations.id, sql.placeholder('organisationId')))
      .prepare(),
  );
  /** Bumps the rules version, from `expectedVersion` only when given; whether a row changed. */
  const bump = (organisationId: string, expectedVersion?: number) =>
    db
      .update(organisations)
      .set({ sanitiserRulesVersion: sql`${organisations.sanitiserRulesVersion} + 1` })
      .where(
        expectedVersion === undefined
          ? eq(organisations.id, organisationId)
          : and(eq(organisations.id, organisationId), eq(organisations.sanitiserRulesVersion, expectedVersion)),
      )
      .run().changes > 0;
  return {
    async upsert(record, expectedVersion) {
      return db.transaction(
        () => {
          // The version first: a stale one leaves nothing to undo.
          if (!bump(record.organisationId, expectedVersion) && expectedVersion !== undefined) return false;
          db.insert(sanitiserRules)
            .values(record)
            .onConflictDoUpdate({
              target: [sanitiserRules.organisationId, sanitiserRules.ruleId],
              set: { kind: record.kind, definition: record.definition, updatedAt: record.updatedAt },
            })
            .run();
          return true;
        },
        { behavior: 'immediate' },
      );
    },
    async list(organisationId) {
      return db.select().from(sanitiserRules).where(eq(sanitiserRules.organisationId, organisationId)).orderBy(asc(sanitiserRules.ruleId)).all();
    },
    async remove({ organisationId, ruleId }) {
      return db.transaction(
        () => {
          const removed =
            db
              .delete(sanitiserRules)
              .where(and(eq(sanitiserRules.organisationId, organisationId), eq(sanitiserRules.ruleId, ruleId)))
              .run().changes > 0;
          if (removed) bump(organisationId);
          return removed;
        },
        { behavior: 'immediate' },
      );
    },
    async version(organisationId) {
      return readVersion().get({ organisationId })?.version ?? 0;
    },
  };
}
