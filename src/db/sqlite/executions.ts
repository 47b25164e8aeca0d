import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { PorchDatabase } from './open-database.js';
import { isInstanceLive, retireInstance } from './instances.js';
import { onFirstUse } from './on-first-use.js';
import { byokKeys, idempotencyRecords } from './schema.js';
import type { ByokKeyRepository, ByokOwner, IdempotencyClaim, IdempotencyRepository } from '../store.js';

function ownerWhere(owner: ByokOwner) {
  return 'accountId' in owner ? eq(byokKeys.accountId, owner.accountId) : eq(byokKeys.organisationId, owner.organisationId);
}

export function createByokKeyRepository(db: PorchDatabase): ByokKeyRepository {
  // Every execution asks for an active key (account, then organisation): prepared once.
  const activeForAccount = onFirstUse(() =>
    db
      .select()
      .from(byokKeys)
      .where(and(eq(byokKeys.accountId, sql.placeholder('ownerId')), eq(byokKeys.provider, sql.placeholder('provider')), isNull(byokKeys.revokedAt)))
      .prepare(),
  );
  const activeForOrganisation = onFirstUse(() =>
    db
      .select()
      .from(byokKeys)
      .where(and(eq(byokKeys.organisationId, sql.placeholder('ownerId')), eq(byokKeys.provider, sql.placeholder('provider')), isNull(byokKeys.revokedAt)))
      .prepare(),
  );
  return {
    async put(record) {
      const owner: ByokOwner = record.accountId !== null ? { accountId: record.accountId } : { organisationId: record.organisationId ?? '' };
      db.transaction(
        (tx) => {
          tx.update(byokKeys)
            .set({ revokedAt: record.createdAt })
            .where(and(ownerWhere(owner), eq(byokKeys.provider, record.provider), isNull(byokKeys.revokedAt)))
            .run();
          tx.insert(byokKeys).values(record).run();
        },
        { behavior: 'immediate' },
      );
    },
    async findActive({ owner, provider }) {
      const statement = 'accountId' in owner ? activeForAccount() : activeForOrganisation();
      return statement.get({ ownerId: 'accountId' in owner ? owner.accountId : owner.organisationId, provider }) ?? null;
    },
    async list(owner) {
      return db.select().from(byokKeys).where(ownerWhere(owner)).all();
    },
    async revoke({ id, at }) {
      db.update(byokKeys)
        .set({ revokedAt: at })
        .where(and(eq(byokKeys.id, id), isNull(byokKeys.revokedAt)))
        .run();
      return db.select().from(byokKeys).where(eq(byokKeys.id, id)).get() ?? null;
    },
  };
}

export function createIdempotencyRepository(db: PorchDatabase): IdempotencyRepository {
  const keyWhere = (accountId: string, idempotencyKey: string) =>
    and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.idempotencyKey, idempotencyKey));
  return {
    async claim(request): Promise<IdempotencyClaim> {
      return db.transaction(
        (tx): IdempotencyClaim => {
          const existing = tx.select().from(idempotencyRecords).where(keyWhere(request.accountId, request.idempotencyKey)).get();
          if (existing && existing.expiresAt > request.now) {
            if (existing.operation !== request.operation || existing.requestHash !== request.requestHash) {
              return { kind: 'conflict', operation: existing.operation, requestHash: existing.requestHash };
            }
            if (existing.responseStatus !== null) return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
            if (existing.instanceId === null || !request.mayReleaseLapsed || isInstanceLive(db, existing.instanceId, request.now))
              return { kind: 'in_progress' };
            // The process running the first request is gone: release what it held, and run this retry.
            retireInstance(db, existing.instanceId, request.charging);
          }
          if (existing) tx.delete(idempotencyRecords).where(keyWhere(request.accountId, request.idempotencyKey)).run();
          tx.insert(idempotencyRecords)
            .values({
              accountId: request.accountId,
              idempotencyKey: request.idempotencyKey,
              operation: request.operation,
              requestHash: request.requestHash,
              responseStatus: null,
              responseBody: null,
              createdAt: request.now,
              expiresAt: request.expiresAt,
              instanceId: request.instanceId,
            })
            .run();
          return { kind: 'claimed' };
        },
        { behavior: 'immediate' },
      );
    },
    async complete({ accountId, idempotencyKey, instanceId, status, body }) {
      db.update(idempotencyRecords)
        .set({ responseStatus: status, responseBody: body })
        .where(and(keyWhere(accountId, idempotencyKey), eq(idempotencyRecords.instanceId, instanceId)))
        .run();
    },
    async abandon({ accountId, idempotencyKey, instanceId }) {
      db.delete(idempotencyRecords)
        .where(and(keyWhere(accountId, idempotencyKey), eq(idempotencyRecords.instanceId, instanceId)))
        .run();
    },
    async deleteExpired(at) {
      return db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, at)).run().changes;
    },
  };
}
