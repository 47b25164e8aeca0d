/**
 * Records for the storage contract suite, built directly (no core services): each builder gives
 * a valid record with fresh ids, and the test overrides what it is about.
 */
import { newId } from '../../src/core/ids.js';
import type {
  CatalogChanges,
  CatalogItem,
  CatalogWriteOutcome,
  AccountRecord,
  AccruedCharging,
  ApiKeyRecord,
  ByokKeyRecord,
  BundleRecords,
  CompositionRecord,
  ContentQuotas,
  ContextCardRecord,
  KindQuota,
  OrganisationRecord,
  SkillRecord,
  Store,
  UsageRecord,
  WorkflowRecord,
} from '../../src/db/store.js';

/** A fixed instant on a minute boundary (2026-01-15 12:00:00 UTC), so window arithmetic stays plain. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** The Porch process the contract tests act as, where a record names the process holding it. */
export const INSTANCE_ID = 'instance-a';

let sequence = 0;
function unique(label: string): string {
  sequence += 1;
  return `${label}-${sequence}`;
}

export function organisationRecord(overrides: Partial<OrganisationRecord> = {}): OrganisationRecord {
  return {
    id: newId(),
    name: unique('organisation'),
    euOnlyModels: false,
    strictByok: false,
    ownerAccountId: null,
    sanitiserRulesVersion: 0,
    guardrailInputs: 'off',
    guardrailOutputs: 'off',
    guardrailMinSeverity: 'warn',
    createdAt: T0,
    ...overrides,
  };
}

export function accountRecord(organisationId: string, overrides: Partial<AccountRecord> = {}): AccountRecord {
  return { id: newId(), organisationId, email: `${unique('user')}@example.com`, name: null, plan: 'expert', downgradedAt: null, createdAt: T0, ...overrides };
}

/** An account with its own organisation and `tokens` granted, written through the port. */
export async function createAccount(store: Store, tokens = 10_000): Promise<{ account: AccountRecord; organisation: OrganisationRecord }> {
  const organisation = organisationRecord();
  const account = accountRecord(organisation.id);
  await store.accounts.create({ account, organisation: { ...organisation, ownerAccountId: account.id }, initialTokens: tokens, grantEntryId: newId() });
  return { account, organisation: { ...organisation, ownerAccountId: account.id } };
}

export function apiKeyRecord(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = newId();
  return {
    id,
    accountId,
    kind: 'user',
    name: 'key',
    prefix: 'mdi_test',
    hash: `hash-${id}`,
    scopes: ['api:expert'],
    requestsPerMinute: 60,
    requestsPerDay: 1_000,
    createdAt: T0,
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
    ...overrides,
  };
}

export function usageRecord(accountId: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: newId(),
    accountId,
    apiKeyId: null,
    partnerKeyId: null,
    operation: 'execute_composition',
    resourceId: null,
    resourceVersion: null,
    runId: null,
    nodeId: null,
    model: 'echo/echo',
    inputTokens: 10,
    outputTokens: 20,
    totalTokens: 30,
    chargedTokens: 30,
    byok: false,
    durationMs: 5,
    status: 'succeeded',
    retry: false,
    createdAt: T0,
    ...overrides,
  };
}

export function contextCardRecord(accountId: string, overrides: Partial<ContextCardRecord> = {}): ContextCardRecord {
  return {
    id: newId(),
    accountId,
    title: unique('card'),
    content: 'content',
    category: null,
    tags: ['a'],
    description: null,
    emoji: null,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    bundleKey: null,
    ...overrides,
  };
}

export function compositionRecord(accountId: string, overrides: Partial<CompositionRecord> = {}): CompositionRecord {
  return {
    id: newId(),
    accountId,
    name: unique('composition'),
    description: 'd',
    tags: [],
    template: 'Hello {{name}}',
    variables: [{ name: 'name', required: true }],
    defaultModel: null,
    timesUsed: 0,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    bundleKey: null,
    ...overrides,
  };
}

export function skillRecord(accountId: string, overrides: Partial<SkillRecord> = {}): SkillRecord {
  return {
    id: newId(),
    accountId,
    name: unique('skill'),
    description: 'd',
    category: 'general',
    instructions: 'Do it.',
    model: null,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    bundleKey: null,
    ...overrides,
  };
}

export function workflowRecord(accountId: string, overrides: Partial<WorkflowRecord> = {}): WorkflowRecord {
  return {
    id: newId(),
    accountId,
    name: unique('workflow'),
    description: 'd',
    category: 'general',
    definition: { nodes: [] },
    usageCount: 0,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    bundleKey: null,
    ...overrides,
  };
}

export function byokKeyRecord(owner: { accountId: string } | { organisationId: string }, overrides: Partial<ByokKeyRecord> = {}): ByokKeyRecord {
  return {
    id: newId(),
    accountId: 'accountId' in owner ? owner.accountId : null,
    organisationId: 'organisationId' in owner ? owner.organisationId : null,
    provider: 'openai',
    encryptedKey: `v1.ciphertext-${unique('key')}`,
    keyHint: '1234',
    createdAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

/** A quota no test reaches, for tests about something else. */
export const UNBOUNDED_QUOTA: KindQuota = { maxItems: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };
export const UNBOUNDED_QUOTAS: ContentQuotas = {
  contextCards: UNBOUNDED_QUOTA,
  compositions: UNBOUNDED_QUOTA,
  skills: UNBOUNDED_QUOTA,
  workflows: UNBOUNDED_QUOTA,
};

/** Each record of a bundle as a create of a catalog write, in bundle order. */
export function createsOf(records: Partial<BundleRecords>): CatalogItem[] {
  return [
    ...(records.contextCards ?? []).map((record) => ({ kind: 'contextCards' as const, record })),
    ...(records.compositions ?? []).map((record) => ({ kind: 'compositions' as const, record })),
    ...(records.skills ?? []).map((record) => ({ kind: 'skills' as const, record })),
    ...(records.workflows ?? []).map((record) => ({ kind: 'workflows' as const, record })),
  ];
}

/** A catalog write of one account (the kinds of change not given are empty), at T0, by no key. */
export function writeCatalog(
  store: Store,
  accountId: string,
  changes: Partial<Pick<CatalogChanges, 'creates' | 'updates' | 'deletes' | 'keys' | 'at'>>,
  quotas: ContentQuotas = UNBOUNDED_QUOTAS,
): Promise<CatalogWriteOutcome> {
  return store.catalog.write({ accountId, creates: [], updates: [], deletes: [], at: T0, authorKeyId: null, quotas, ...changes });
}

/** Writes the given records, as version 1 of each, past any quota (each account's in its own write). */
export async function insertRecords(store: Store, records: Partial<BundleRecords>): Promise<void> {
  const creates = createsOf(records);
  for (const accountId of new Set(creates.map((create) => create.record.accountId))) {
    const outcome = await writeCatalog(store, accountId, { creates: creates.filter((create) => create.record.accountId === accountId) });
    if (!outcome.ok) throw new Error(`an unbounded catalog write was refused: ${JSON.stringify(outcome)}`);
  }
}

/** Inserts one card past any quota. */
export async function insertCard(store: Store, card: ContextCardRecord): Promise<void> {
  await insertRecords(store, { contextCards: [card] });
}

/** How the store writes accrued charges at `at`: a fresh entry id each, no credits.low builder unless given. */
export function accruedCharging(at: number, lowBalanceEvent?: AccruedCharging['lowBalanceEvent']): AccruedCharging {
  return { at, newEntryId: newId, lowBalanceEvent };
}
