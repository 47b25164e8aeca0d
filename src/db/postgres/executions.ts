import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { PostgresDatabase } from './open-database.js';
import { byokKeys, idempotencyRecords } from './schema.js';
import { isInstanceLive, retireInstance } from './instances.js';
import { inTransaction } from './transaction.js';
import type { ByokKeyRepository, ByokOwner, IdempotencyClaim, IdempotencyRepository } from '../store.js';

function ownerWhere(owner: ByokOwner) {
  return 'accountId' in owner ? eq(byokKeys.accountId, owner.accountId) : eq(byokKeys.organisationId, owner.organisationId);
}

export function createByokKeyRepository(db: PostgresDatabase): ByokKeyRepository {
  const activeForAccount = db
    .select()
    .from(byokKeys)
    .where(and(eq(byokKeys.accountId, sql.placeholder('ownerId')), eq(byokKeys.provider, sql.placeholder('provider')), isNull(byokKeys.revokedAt)))
    .prepare('byok_active_for_account');
  const activeForOrganisation = db
    .select()
    .from(byokKeys)
    .where(and(eq(byokKeys.organisationId, sql.placeholder('ownerId')), eq(byokKeys.provider, sql.placeholder('provider')), isNull(byokKeys.revokedAt)))
    .prepare('byok_active_for_organisation');
  return {
    async put(record) {
      const owner: ByokOwner = record.accountId !== null ? { accountId: record.accountId } : { organisationId: record.organisationId ?? '' };
      await inTransaction(db, async (tx) => {
        await tx
          .update(byokKeys)
          .set({ revokedAt: record.createdAt })
          .where(and(ownerWhere(owner), eq(byokKeys.provider, record.provider), isNull(byokKeys.revokedAt)));
        await tx.insert(byokKeys).values(record);
      });
    },
    async findActive({ owner, provider }) {
      const statement = 'accountId' in owner ? activeForAccount : activeForOrganisation;
      return (await statement.execute({ ownerId: 'accountId' in owner ? owner.accountId : owner.organisationId, provider }))[0] ?? null;
    },
    async list(owner) {
      return db.select().from(byokKeys).where(ownerWhere(owner));
    },
    async revoke({ id, at }) {
      await db
        .update(byokKeys)
        .set({ revokedAt: at })
        .where(and(eq(byokKeys.id, id), isNull(byokKeys.revokedAt)));
      return (await db.select().from(byokKeys).where(eq(byokKeys.id, id)))[0] ?? null;
    },
  };
}

export function createIdempotencyRepository(db: PostgresDatabase): IdempotencyRepository {
  const keyWhere = (accountId: string, idempotencyKey: string) =>
    and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.idempotencyKey, idempotencyKey));
  return {
    async claim(request): Promise<IdempotencyClaim> {
      const claim = {
        accountId: request.accountId,
        idempotencyKey: request.idempotencyKey,
        operation: request.operation,
        requestHash: request.requestHash,
        responseStatus: null,
        responseBody: null,
        createdAt: request.now,
        expiresAt: request.expiresAt,
        instanceId: request.instanceId,
      };
      return inTransaction(db, async (tx): Promise<IdempotencyClaim> => {
        // The insert wins for exactly one of any number of concurrent first requests; the others
        // lock the winner's row and read what it says.
        const inserted = await tx.insert(idempotencyRecords).values(claim).onConflictDoNothing().returning({ accountId: idempotencyRecords.accountId });
        if (inserted.length > 0) return { kind: 'claimed' };
        const [existing] = await tx.select().from(idempotencyRecords).where(keyWhere(request.accountId, request.idempotencyKey)).for('update');
        if (existing && existing.expiresAt > request.now) {
          if (existing.operation !== request.operation || existing.requestHash !== request.requestHash) {
            return { kind: 'conflict', operation: existing.operation, requestHash: existing.requestHash };
          }
          if (existing.responseStatus !== null) return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
          if (existing.instanceId === null || !request.mayReleaseLapsed || (await isInstanceLive(tx, existing.instanceId, request.now))) {
            return { kind: 'in_progress' };
          }
          // The process running the first request is gone: release what it held, and run this retry.
          await retireInstance(tx, existing.instanceId, request.charging);
        }
        // Expired (or deleted meanwhile): the key starts over with this request.
        await tx
          .insert(idempotencyRecords)
          .values(claim)
          .onConflictDoUpdate({ target: [idempotencyRecords.accountId, idempotencyRecords.idempotencyKey], set: claim });
        return { kind: 'claimed' };
      });
    },
    async complete({ accountId, idempotencyKey, instanceId, status, body }) {
      await db
        .update(idempotencyRecords)
        .set({ responseStatus: status, responseBody: body })
        .where(and(keyWhere(accountId, idempotencyKey), eq(idempotencyRecords.instanceId, instanceId)));
    },
    async abandon({ accountId, idempotencyKey, instanceId }) {
      await db.delete(idempotencyRecords).where(and(keyWhere(accountId, idempotencyKey), eq(idempotencyRecords.instanceId, instanceId)));
    },
    async deleteExpired(at) {
      const deleted = await db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, at)).returning({ accountId: idempotencyRecords.accountId });
      return deleted.length;
    },
  };
}
