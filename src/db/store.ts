/**
 * The storage ports. Core reaches storage only through these interfaces; every method returns a
 * promise so that a networked implementation (PostgreSQL for multi-instance deployments) can be
 * added beside the SQLite one without touching core or the doors. Each method that checks and
 * updates is atomic: the SQLite implementation runs it as one synchronous transaction.
 *
 * Records use camelCase and epoch-millisecond timestamps; core shapes them for the API.
 */

import type { Plan } from '../core/domain/plans.js';

/** What a guardrail does with findings on a model call's input or output. */
export const GUARDRAIL_MODES = ['off', 'report', 'redact', 'block'] as const;
export type GuardrailMode = (typeof GUARDRAIL_MODES)[number];
/** The lowest finding severity a guardrail acts on. */
export const GUARDRAIL_SEVERITIES = ['info', 'warn', 'block'] as const;
export type GuardrailSeverity = (typeof GUARDRAIL_SEVERITIES)[number];

export interface OrganisationRecord {
  id: string;
  name: string;
  euOnlyModels: boolean;
  strictByok: boolean;
  ownerAccountId: string | null;
  sanitiserRulesVersion: number;
  guardrailInputs: GuardrailMode;
  guardrailOutputs: GuardrailMode;
  guardrailMinSeverity: GuardrailSeverity;
  createdAt: number;
}

export interface AccountRecord {
  id: string;
  organisationId: string;
  email: string;
  name: string | null;
  plan: Plan;
  downgradedAt: number | null;
  createdAt: number;
}

/**
 * `user`: a key the account holder created (list_keys, the 5-key limit). `oauth`: the credential
 * behind an app connected with OAuth (an MCP host); its tokens authenticate as this key, so every
 * per-key mechanism applies, but it is listed as a connected app, never among the keys.
 */
export const API_KEY_KINDS = ['user', 'oauth'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  kind: ApiKeyKind;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[];
  requestsPerMinute: number;
  requestsPerDay: number;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  /** The key that replaced this one in a rotation; a key is rotated at most once. */
  replacedBy: string | null;
}

export interface PartnerKeyRecord {
  id: string;
  organisationId: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[] | null;
  requestsPerMinute: number;
  requestsPerDay: number;
  createdAt: number;
  revokedAt: number | null;
}

export interface CreditBalance {
  balanceTokens: number;
  reservedTokens: number;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  kind: 'grant' | 'usage' | 'adjustment';
  deltaTokens: number;
  balanceAfterTokens: number;
  reference: string | null;
  createdAt: number;
}

export interface UsageRecord {
  id: string;
  accountId: string;
  apiKeyId: string | null;
  partnerKeyId: string | null;
  operation: string;
  resourceId: string | null;
  /** The version of the resource that ran; null when the call ran no versioned resource (the judge). */
  resourceVersion: number | null;
  runId: string | null;
  nodeId: string | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  chargedTokens: number;
  byok: boolean;
  durationMs: number;
  status: 'succeeded' | 'failed' | 'billing_failed';
  /** A repeat of the request's model call (the judge's retry after an unreadable verdict): counted as a model call, not as a request. */
  retry: boolean;
  createdAt: number;
}

/**
 * What every versioned resource (context card and persona, composition, skill, workflow) records
 * besides its content: its newest version's number, when that was written, and the bundle key it
 * was imported under (`porch import` upserts by it).
 */
export interface VersionedFields {
  version: number;
  updatedAt: number;
  bundleKey: string | null;
}

export interface ContextCardRecord extends VersionedFields {
  id: string;
  accountId: string;
  title: string;
  content: string;
  category: string | null;
  tags: string[];
  description: string | null;
  emoji: string | null;
  createdAt: number;
}

export interface CompositionVariable {
  name: string;
  required: boolean;
  default?: string;
  description?: string;
}

export interface CompositionRecord extends VersionedFields {
  id: string;
  accountId: string;
  name: string;
  description: string;
  tags: string[];
  template: string;
  variables: CompositionVariable[];
  defaultModel: string | null;
  timesUsed: number;
  createdAt: number;
}

export interface SkillRecord extends VersionedFields {
  id: string;
  accountId: string;
  name: string;
  description: string;
  category: string;
  instructions: string;
  model: string | null;
  createdAt: number;
}

export interface WorkflowRecord extends VersionedFields {
  id: string;
  accountId: string;
  name: string;
  description: string;
  category: string;
  definition: unknown;
  usageCount: number;
  createdAt: number;
}

/** A record found by id for running it: with the version its `production` label names, if any. */
export type Labelled<Record> = Record & { productionVersion: number | null };

/** A page request: newest first; `cursor` is the id of the last item of the previous page. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** A page of what one account owns. */
export interface OwnedPageRequest {
  accountId: string;
  page: PageRequest;
}

/** One record, found only when `accountId` owns it: another account's id reads as absent. */
export interface OwnedId {
  accountId: string;
  id: string;
}

/** Which record to revoke, and when (epoch ms). */
export interface Revocation {
  id: string;
  at: number;
}

export interface RateWindowLimits {
  keyId: string;
  requestsPerMinute: number;
  requestsPerDay: number;
  /** Unix seconds now; windows are aligned to the minute and the UTC day. */
  nowSeconds: number;
}

export interface RateWindowOutcome {
  allowed: boolean;
  /** Which window refused the request, when it was refused. */
  exceeded: 'minute' | 'day' | null;
  minuteCount: number;
  dayCount: number;
  minuteResetSeconds: number;
  dayResetSeconds: number;
}

/**
 * `outcome` and whether an execution's slot was taken with it, written out as one literal: on
 * Node 20 a property added to a spread copy gives every copy a map of its own (see `runOutcome`
 * in core/execution/executions.ts).
 */
export function withSlot(outcome: RateWindowOutcome, slotAcquired: boolean): RateWindowOutcome & { slotAcquired: boolean } {
  return {
    allowed: outcome.allowed,
    exceeded: outcome.exceeded,
    minuteCount: outcome.minuteCount,
    dayCount: outcome.dayCount,
    minuteResetSeconds: outcome.minuteResetSeconds,
    dayResetSeconds: outcome.dayResetSeconds,
    slotAcquired,
  };
}

export interface BundleRecords {
  contextCards: ContextCardRecord[];
  compositions: CompositionRecord[];
  skills: SkillRecord[];
  workflows: WorkflowRecord[];
}

/** The kinds of content an account owns that quotas bound (personas are context cards). */
export const CONTENT_KINDS = ['contextCards', 'compositions', 'skills', 'workflows'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/**
 * What a version of each kind holds: the fields of the record a create or update writes. The
 * rest (id, owner, creation time, usage counters, bundle key) belongs to the resource, not to a
 * version of it.
 */
export const VERSIONED_CONTENT_FIELDS = {
  contextCards: ['title', 'content', 'category', 'tags', 'description', 'emoji'],
  compositions: ['name', 'description', 'tags', 'template', 'variables', 'defaultModel'],
  skills: ['name', 'description', 'category', 'instructions', 'model'],
  workflows: ['name', 'description', 'category', 'definition'],
} as const satisfies Record<ContentKind, readonly string[]>;

/** How much of one kind an account may hold: items, and bytes of their stored text (see content-size.ts). */
export interface KindQuota {
  maxItems: number;
  maxBytes: number;
}

export type ContentQuotas = Record<ContentKind, KindQuota>;

/** What the account would hold of `kind` had the write gone through, over `quota`. */
export interface QuotaExcess {
  kind: ContentKind;
  quota: KindQuota;
  items: number;
  bytes: number;
}

/** A write bounded by a quota: done, or refused (nothing written) with what it would have made. */
export type QuotaOutcome = { ok: true } | { ok: false; excess: QuotaExcess };

export type ReserveOutcome = { ok: true; balance: CreditBalance } | { ok: false; balance: CreditBalance };

export type SettleOutcome =
  | { ok: true; balance: CreditBalance }
  | { ok: false; reason: 'insufficient_balance' | 'unknown_reservation'; balance: CreditBalance };

export interface OrganisationRepository {
  findById(id: string): Promise<OrganisationRecord | null>;
  update(request: {
    id: string;
    changes: Partial<Pick<OrganisationRecord, 'name' | 'euOnlyModels' | 'strictByok' | 'guardrailInputs' | 'guardrailOutputs' | 'guardrailMinSeverity'>>;
  }): Promise<OrganisationRecord | null>;
}

export interface AccountCreation {
  account: AccountRecord;
  /** The account's personal organisation, created with it; null when it joins an existing one. */
  organisation: OrganisationRecord | null;
  initialTokens: number;
  /** The id of the ledger entry that grants `initialTokens`; none is written when they are 0. */
  grantEntryId: string;
}

export interface PlanChange {
  id: string;
  plan: Plan;
  downgradedAt: number | null;
  /** When set, every active key of the account is revoked at this time, in the same transaction. */
  revokeKeysAt: number | null;
}

export interface AccountRepository {
  /** Creates the account, its organisation when given, its balance and its grant, in one transaction. */
  create(creation: AccountCreation): Promise<void>;
  findById(id: string): Promise<AccountRecord | null>;
  findByEmail(email: string): Promise<AccountRecord | null>;
  list(): Promise<AccountRecord[]>;
  /** The accounts of one organisation (its members), oldest first. */
  listByOrganisation(organisationId: string): Promise<AccountRecord[]>;
  count(): Promise<number>;
  setPlan(change: PlanChange): Promise<AccountRecord | null>;
}

export interface ApiKeyRepository {
  /** Inserts the key unless its account already has `maxActive` keys active at `now`; atomic. */
  insertIfBelowLimit(request: { key: ApiKeyRecord; maxActive: number; now: number }): Promise<boolean>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /**
   * The key with this hash if it is usable at `now` (not revoked, not expired), with its account,
   * else null. The filter runs in the query, so a revoked key costs the authenticator what an
   * unknown one does; key and account come in one read, as every authenticated request needs
   * both (on PostgreSQL, one round trip instead of two).
   */
  findUsableByHash(request: { hash: string; now: number }): Promise<{ key: ApiKeyRecord; account: AccountRecord } | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes the key unless it already was (the first revocation time stays); the key as it now is. */
  revoke(revocation: Revocation): Promise<ApiKeyRecord | null>;
  /** Revokes every active key of the account; returns how many. */
  revokeAllForAccount(request: { accountId: string; at: number }): Promise<number>;
  /**
   * Retires `oldId` and inserts `replacement` in one transaction (rotation), marking `oldId` as
   * replaced by it: `inactive` when `oldId` was not active at `at`, or was already rotated. Without `graceUntil` the old key is revoked at `at`; with it,
   * the old key stays usable until then (its expiry is set to `graceUntil`, or kept when it is
   * sooner), so the account has one more working key: `full` when an account holder's key would
   * take the account's working keys (those in a grace period included) above `maxWorking`.
   */
  replace(request: { oldId: string; replacement: ApiKeyRecord; at: number; graceUntil?: number; maxWorking: number }): Promise<KeyReplacement>;
}

/** What `ApiKeyRepository.replace` did. */
export type KeyReplacement = 'replaced' | 'inactive' | 'full';

export interface PartnerKeyRepository {
  insert(key: PartnerKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<PartnerKeyRecord | null>;
  /** The key with this hash unless it is revoked; the filter runs in the query, as for API keys. */
  findUsableByHash(hash: string): Promise<PartnerKeyRecord | null>;
  findById(id: string): Promise<PartnerKeyRecord | null>;
  listByOrganisation(organisationId: string): Promise<PartnerKeyRecord[]>;
  revoke(revocation: Revocation): Promise<PartnerKeyRecord | null>;
}

export interface RateLimitRepository {
  /** Counts the request in both windows if neither is full; one atomic check-and-increment. */
  consume(limits: RateWindowLimits): Promise<RateWindowOutcome>;
  /**
   * `consume` and, for a request it counts, one of the key's execution slots (as
   * `ExecutionSlotRepository.acquire` takes it) in the same atomic step: an execution's admission
   * in one transaction instead of two. A request the windows refuse takes no slot; a request
   * counted when no slot is free stays counted, as one refused for concurrency after the limiter
   * always was. The slot is given back with `ExecutionSlotRepository.release`.
   */
  consumeWithSlot(limits: RateWindowLimits, slot: SlotRequest): Promise<RateWindowOutcome & { slotAcquired: boolean }>;
  /**
   * Both windows as they stand, counting nothing: for answers to an authenticated caller that the
   * rate limiter never saw (a refused scope, an unknown route), which still report the windows.
   */
  peek(limits: RateWindowLimits): Promise<RateWindowOutcome>;
  /**
   * When each key last had a request counted: the start (Unix seconds) of the latest minute window
   * it was counted in. Read from the counters the limiter writes anyway, so knowing when a key was
   * last used costs no write per request. Keys never counted are absent.
   */
  lastCounted(keyIds: readonly string[]): Promise<Map<string, number>>;
}

export interface CreditGrant {
  accountId: string;
  tokens: number;
  reference: string | null;
  at: number;
  /** The id of the ledger entry the grant writes. */
  entryId: string;
}

export interface CreditReservationRequest {
  accountId: string;
  tokens: number;
  /** The reservation is refused unless available balance covers both `tokens` and this. */
  minimumAvailableTokens: number;
  at: number;
  /** After this, the reservation counts as left behind by a crash (see `releaseExpired`). */
  expiresAt: number;
  /** The Porch process holding it: when that process's lease ends, the reservation is released. */
  instanceId: string;
  /** The id the reservation is stored under, and later settled or released by. */
  reservationId: string;
}

export interface CreditSettlement {
  reservationId: string;
  chargeTokens: number;
  reference: string | null;
  at: number;
  /** The id of the ledger entry the charge writes; none is written when `chargeTokens` is 0. */
  entryId: string;
  /** The record of the call being paid for, written with the charge. */
  usage?: UsageRecord;
  /** Builds `credits.low` when this charge takes the balance below the account's threshold (see LowBalanceEventBuilder). */
  lowBalanceEvent?: LowBalanceEventBuilder;
}

/**
 * The `credits.low` event of a settlement, built by core once the engine knows it crossed: the
 * balance went from at or above the account's threshold to below it, in this settlement. Called
 * inside the settlement's transaction, so the outbox row lands with the charge or not at all.
 */
export type LowBalanceEventBuilder = (crossing: { accountId: string; balanceTokens: number; thresholdTokens: number; at: number }) => WebhookEventRecord;

/**
 * How a charge accrued under a reservation that closes without a settlement (released, expired,
 * its process gone) is written, as a settlement's charge is: at `at`, the time it is written,
 * under a new ledger entry id (ids order the ledger), with `credits.low` when it takes the
 * balance across the account's threshold.
 */
export interface AccruedCharging {
  at: number;
  newEntryId: () => string;
  lowBalanceEvent?: LowBalanceEventBuilder | undefined;
}

export interface CreditRepository {
  balance(accountId: string): Promise<CreditBalance>;
  /** The balance below which a settlement emits `credits.low`; null: never (the default). */
  lowBalanceThreshold(accountId: string): Promise<number | null>;
  setLowBalanceThreshold(request: { accountId: string; thresholdTokens: number | null; at: number }): Promise<void>;
  grant(grant: CreditGrant): Promise<CreditBalance>;
  /** Holds `tokens` if available balance (balance less open reservations) covers it; atomic. */
  reserve(request: CreditReservationRequest): Promise<ReserveOutcome>;
  /**
   * Adds `tokens` to an open reservation if available balance covers them; atomic. Refused
   * (`ok: false`) when it does not, or when the reservation is no longer open.
   */
  extend(request: { reservationId: string; tokens: number; at: number }): Promise<ReserveOutcome>;
  /**
   * Writes the record of a call paid from an open reservation (a workflow run's), to be charged
   * when the reservation closes: by its settlement, its release, its expiry or the end of the
   * process holding it, whichever comes first, exactly once. The caller keeps what it accrues
   * within the reservation's tokens. A crash after this never loses the call's charge. False
   * (nothing written) when the reservation is no longer open.
   */
  accrue(request: { reservationId: string; usage: UsageRecord }): Promise<boolean>;
  /**
   * Closes the reservation and charges `chargeTokens` plus what was accrued under it; refuses
   * (and releases) when the balance cannot cover `chargeTokens` (the accrued charge, already
   * covered by the reservation, is always taken). `usage`, the record of the call being paid
   * for, is written in the same transaction when the charge succeeds: a charge never lands
   * without its record, or the reverse.
   */
  settle(settlement: CreditSettlement): Promise<SettleOutcome>;
  /** Closes the reservation; what was accrued under it is charged (see AccruedCharging), the rest goes back. */
  release(reservationId: string, charging: AccruedCharging): Promise<void>;
  /** Releases reservations expired at `charging.at` (left behind by a crash), charging what they accrued; returns how many. */
  releaseExpired(charging: AccruedCharging): Promise<number>;
  ledger(accountId: string): Promise<LedgerEntry[]>;
  /** A page of the account's ledger, newest first. */
  ledgerPage(request: OwnedPageRequest): Promise<LedgerEntry[]>;
}

/** What usage aggregates are grouped by: the UTC day, the model, the operation, the resource or the key. */
export const USAGE_GROUPINGS = ['day', 'model', 'operation', 'resource', 'key'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageAggregateRequest {
  accountId: string;
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive. */
  to: number;
  groupBy: UsageGrouping;
  /** A second grouping within each group (a day's usage by model, say): one row per pair that had usage. */
  splitBy?: UsageGrouping | undefined;
}

/**
 * One group's totals. A workflow execution writes one row for the run and one per model call of
 * its nodes, so the totals read each fact once: `requests` and `errors` count the rows that
 * stand for an execution or call answered to a client (no `nodeId`, not a retry's row);
 * `modelCalls`, tokens and charges count the rows of model calls
 * (every row but a workflow run's own, which repeats its nodes' sums).
 */
export interface UsageAggregateRow {
  /** The group's key: `YYYY-MM-DD` (UTC) for days, else the model, operation, resource or key id; null when the rows have none. */
  group: string | null;
  /** With `splitBy`: the second grouping's key, as `group` (null when the rows have none). */
  split?: string | null;
  requests: number;
  errors: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  chargedTokens: number;
}

export interface UsageRepository {
  insert(record: UsageRecord): Promise<void>;
  /**
   * Marks a succeeded call's record failed: the model answered and was charged, but the request
   * it served failed after (its answer blocked by the output guardrail, or an unreadable verdict).
   * A record written as failed or not succeeded stays as it is.
   */
  markFailed(id: string): Promise<void>;
  listByAccount(accountId: string): Promise<UsageRecord[]>;
  /** Totals per group (or per group and split) over a time range, summed in the database (never by reading the rows); in ascending order. */
  aggregate(request: UsageAggregateRequest): Promise<UsageAggregateRow[]>;
}

/**
 * Cards are written through `CatalogRepository.write`, like every versioned resource. Quotas are
 * checked where they are written, in the same transaction as the write: the account's count and
 * byte total of the kind, plus what the write adds, against the quota. Engines keep a size per
 * row (`contentSizeBytes`) so the total is an indexed sum, never a read of the content; a
 * networked engine serialises one account's writes (a row lock on the account) so two concurrent
 * writes cannot both pass the check.
 */
export interface ContextCardRepository {
  /** The account's cards, newest first; only those in `category` when it is given. */
  list(request: OwnedPageRequest & { category?: string }): Promise<ContextCardRecord[]>;
  findOwned(request: OwnedId): Promise<Labelled<ContextCardRecord> | null>;
}

/** One resource of a versioned kind with its whole record, as a catalog write carries it. */
export type CatalogItem =
  | { kind: 'contextCards'; record: ContextCardRecord }
  | { kind: 'compositions'; record: CompositionRecord }
  | { kind: 'skills'; record: SkillRecord }
  | { kind: 'workflows'; record: WorkflowRecord };

/**
 * A change to an existing resource: its content (and bundle key) become `record`'s, as version
 * `baseVersion + 1`, if its newest version is still `baseVersion` (optimistic concurrency: a
 * writer that read an older version is told so and reads again, so no update is ever lost).
 * Usage counters and the creation time are the store's and stay as they are.
 */
export type CatalogUpdate = CatalogItem & { baseVersion: number };

/**
 * Creates, updates and deletes in one account's catalog, written in one transaction: all or
 * nothing. Each create and update also writes the immutable version it makes; a delete removes
 * the resource and its labels and marks its versions deleted (they stay for the audit trail until
 * retention removes them).
 */
export interface CatalogChanges {
  accountId: string;
  creates: CatalogItem[];
  updates: CatalogUpdate[];
  deletes: Array<{ kind: ContentKind; id: string }>;
  /**
   * Bundle keys given to resources that had none, whose content does not change: no new version
   * (an import adopting a resource made without a key). Refused as an update would be when the
   * resource moved on from `baseVersion`, and as a create would be when another holds the key.
   */
  keys?: Array<{ kind: ContentKind; id: string; key: string; baseVersion: number }>;
  at: number;
  /** The API key that made the change, recorded on each version (null: the CLI or an import). */
  authorKeyId: string | null;
  quotas: ContentQuotas;
}

export type CatalogWriteOutcome =
  | { ok: true }
  | { ok: false; excess: QuotaExcess }
  /** An update's or delete's resource is no longer at the version read (`version`), or is gone (null). */
  | { ok: false; stale: { kind: ContentKind; id: string; version: number | null } }
  /** A create's bundle key is already another live resource's. */
  | { ok: false; keyTaken: { kind: ContentKind; key: string } };

/** One immutable version of a resource: its content as written (src/db/resource-content.ts). */
export interface VersionRecord {
  resourceId: string;
  kind: ContentKind;
  version: number;
  content: Record<string, unknown>;
  authorKeyId: string | null;
  createdAt: number;
  /** When the resource was deleted; its versions stay until retention removes them. */
  deletedAt: number | null;
}

export interface LabelRecord {
  resourceId: string;
  label: string;
  version: number;
  updatedAt: number;
}

export type SetLabelOutcome = 'set' | 'no_resource' | 'no_version';

export interface CatalogRepository {
  listCompositions(request: OwnedPageRequest): Promise<CompositionRecord[]>;
  listSkills(request: OwnedPageRequest): Promise<SkillRecord[]>;
  listWorkflows(request: OwnedPageRequest): Promise<WorkflowRecord[]>;
  findComposition(request: OwnedId): Promise<Labelled<CompositionRecord> | null>;
  findSkill(request: OwnedId): Promise<Labelled<SkillRecord> | null>;
  findWorkflow(request: OwnedId): Promise<Labelled<WorkflowRecord> | null>;
  incrementCompositionUse(id: string): Promise<void>;
  incrementWorkflowUse(id: string): Promise<void>;
  /**
   * Applies creates, updates and deletes in one transaction (see CatalogChanges). Nothing is
   * written when any kind would then exceed its quota (the first kind over it is named), when a
   * resource changed since it was read, or when a bundle key is taken.
   */
  write(changes: CatalogChanges): Promise<CatalogWriteOutcome>;
  /** The id of the account's live resource of `kind` imported or created under bundle `key`. */
  findIdByKey(request: { accountId: string; kind: ContentKind; key: string }): Promise<string | null>;
  /** The resource's versions, newest first; `page.cursor` is a version number (as text). */
  listVersions(request: OwnedId & { page: PageRequest }): Promise<VersionRecord[]>;
  findVersion(request: OwnedId & { version: number }): Promise<VersionRecord | null>;
  /** The resource's explicit labels (`latest` is implicit and never stored). */
  listLabels(request: OwnedId): Promise<LabelRecord[]>;
  /** Points `label` at `version` of a live resource of `kind`, atomically with checking both exist. */
  setLabel(request: OwnedId & { kind: ContentKind; label: string; version: number; at: number }): Promise<SetLabelOutcome>;
  /** Removes the label; false when the resource had none of that name. */
  removeLabel(request: OwnedId & { label: string }): Promise<boolean>;
  /** Removes the versions of resources deleted at or before `before`; returns how many. */
  pruneDeletedVersions(before: number): Promise<number>;
  /** Everything an account owns, for export. */
  exportAll(accountId: string): Promise<BundleRecords>;
}

export interface ByokKeyRecord {
  id: string;
  /** Exactly one of accountId / organisationId is set. */
  accountId: string | null;
  organisationId: string | null;
  provider: string;
  /** AES-256-GCM ciphertext; never the plaintext. */
  encryptedKey: string;
  /** The last characters of the key, for display. */
  keyHint: string;
  createdAt: number;
  revokedAt: number | null;
}

export type ByokOwner = { accountId: string } | { organisationId: string };

export interface ByokKeyRepository {
  /** Stores the key, revoking any active key of the same owner and provider, in one transaction. */
  put(record: ByokKeyRecord): Promise<void>;
  findActive(request: { owner: ByokOwner; provider: string }): Promise<ByokKeyRecord | null>;
  list(owner: ByokOwner): Promise<ByokKeyRecord[]>;
  revoke(revocation: Revocation): Promise<ByokKeyRecord | null>;
}

/** One account's use of one Idempotency-Key value. */
export interface IdempotencyKeyRef {
  accountId: string;
  idempotencyKey: string;
}

export interface IdempotencyClaimRequest extends IdempotencyKeyRef {
  operation: string;
  requestHash: string;
  now: number;
  expiresAt: number;
  /**
   * The Porch process running the request. An unfinished claim whose process's lease has ended
   * (killed, or shut down mid-request) is released with everything that process held, and the
   * retry claims the key afresh.
   */
  instanceId: string;
  /** How what a dead claim's process accrued is charged, when the claim is taken over (see `instanceId`). */
  charging: AccruedCharging;
  /**
   * Whether the caller may take a lapsed lease for a dead process's (core/instance.ts,
   * settlesIn). When false, an unfinished claim of a process whose lease lapsed is in progress.
   */
  mayReleaseLapsed: boolean;
}

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  /** The key was used for another request: the operation and request hash it was used for. */
  | { kind: 'conflict'; operation: string; requestHash: string }
  | { kind: 'in_progress' };

export interface IdempotencyRepository {
  /** Claims the key for this request, or says what an earlier request with it left; atomic. */
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /**
   * Stores the response a replay will answer with, while the claim is still `instanceId`'s: one
   * another process took over (this one's lease ran out meanwhile) is that process's to end.
   */
  complete(request: IdempotencyKeyRef & { instanceId: string; status: number; body: unknown }): Promise<void>;
  /** Forgets a claim whose request failed, so a retry runs again; only while the claim is still `instanceId`'s. */
  abandon(request: IdempotencyKeyRef & { instanceId: string }): Promise<void>;
  deleteExpired(at: number): Promise<number>;
}

/** The kinds of execution a run records (the four executable resources). */
export const RUN_KINDS = ['workflow', 'composition', 'skill', 'persona'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** Where a run is: waiting in the queue, being executed, or ended one of three ways. */
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type FinishedRunStatus = Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;

/** What a run kept of its request and answer; null once retention pruned it. */
export interface RunPayload {
  inputs: unknown;
  result: unknown;
  /** A queued run's, until it ends: the models it was accepted for (see QueuedRunModels). */
  models?: QueuedRunModels | undefined;
}

/**
 * The models a queued run's calls use, as the process that accepted it resolved them: only a
 * process that serves every one of them, and, when a call falls back to the configured default
 * model, has that same default, claims it. Another process sharing the database may run with
 * other providers (`porch mcp` without the server's keys): it must not run the call on a model
 * of its own, nor fail it for a model the accepting server offers.
 */
export interface QueuedRunModels {
  /** Every model id the run will call. */
  ids: string[];
  /** The configured default model the run relies on; null when every call names its model. */
  defaultModel: string | null;
}

/** The models a process serves, as a claim matches them against a queued run's (QueuedRunModels). */
export interface ServedModels {
  ids: readonly string[];
  defaultModel: string;
}

/** One execution of a workflow, composition, skill or persona, as its account can read it back. */
export interface RunRecord {
  id: string;
  accountId: string;
  /** The API or partner key that started it. */
  keyId: string | null;
  kind: RunKind;
  resourceId: string;
  /** The resource version executed; null until resources are versioned. */
  version: number | null;
  status: RunStatus;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  chargedTokens: number;
  durationMs: number;
  createdAt: number;
  payload: RunPayload | null;
  /** Which kind of key `keyId` names (null for runs recorded before it was kept). */
  keyKind: CredentialKind | null;
  /** How many times a process took it from the queue (0 for a run executed in its request). */
  attempts: number;
  /** The process (instance id) executing it while it runs asynchronously. */
  claimedBy: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  cancelRequestedAt: number | null;
  /**
   * The W3C trace context of the request that queued it (its operation span's), which the run's
   * spans and provider calls continue when a process executes it; null for a run executed in its
   * request, and for one queued outside any trace.
   */
  traceContext: RunTraceContext | null;
}

/** W3C Trace Context as its headers carry it: a traceparent and, when the trace has one, its tracestate. */
export interface RunTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** A run executed in its request, recorded once it ended: the queue's fields do not apply. */
export type RecordedRun = Omit<RunRecord, 'attempts' | 'claimedBy' | 'cancelRequestedAt' | 'keyKind' | 'startedAt' | 'finishedAt' | 'traceContext'> &
  Partial<Pick<RunRecord, 'keyKind' | 'startedAt' | 'finishedAt'>>;

/** A run without its payload: what lists read, so a page never loads traces. */
export type RunSummaryRecord = Omit<RunRecord, 'payload'> & { hasPayload: boolean };

export interface RunListRequest extends OwnedPageRequest {
  kind?: RunKind | undefined;
  resourceId?: string | undefined;
  status?: RunStatus | undefined;
}

/** A run asked for asynchronously: queued with its inputs, executed later by whichever process claims it. */
export type QueuedRunRecord = Pick<RunRecord, 'id' | 'accountId' | 'keyId' | 'keyKind' | 'kind' | 'resourceId' | 'version' | 'createdAt'> & {
  /** The one model a single-call run will call, shown while it waits and runs; absent or null for a workflow. */
  model?: string | null | undefined;
  inputs: unknown;
  /** Absent or null when it was queued outside any trace. */
  traceContext?: RunTraceContext | null | undefined;
  /** Absent or null: any process may claim it. */
  models?: QueuedRunModels | null | undefined;
};

/** How an asynchronous run ended, written by the process that held it. */
export interface RunCompletion {
  id: string;
  /** The process that claimed it: a run another process took over since (its lease ran out) is left alone. */
  instanceId: string;
  status: FinishedRunStatus;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  chargedTokens: number;
  durationMs: number;
  finishedAt: number;
  result: unknown;
}

/** A run's token and credit totals over its attempts so far. */
export type RunAttemptCost = Pick<RunCompletion, 'id' | 'instanceId' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'chargedTokens'>;

export type RunCancellation =
  /** It was queued and now never runs. */
  | { outcome: 'cancelled'; run: RunRecord }
  /** It is running: the process running it aborts it. */
  | { outcome: 'requested'; run: RunRecord }
  /** It had already ended. */
  | { outcome: 'finished'; run: RunRecord }
  | { outcome: 'missing' };

export interface RunRepository {
  /**
   * Records a run executed in its request, once it ended, and, in the same transaction, one outbox
   * delivery per enabled endpoint of the account subscribed to each event's type (`run.completed`,
   * `run.failed`): an event is never lost nor sent for a run that was not recorded.
   */
  insert(run: RecordedRun, events?: readonly WebhookEventRecord[]): Promise<void>;
  /** Queues an asynchronous run. */
  enqueue(run: QueuedRunRecord): Promise<void>;
  /**
   * Takes the oldest queued run whose account has fewer than `maxRunningPerAccount` runs running
   * (across every process), marks it running under `instanceId` and counts the attempt; atomic,
   * so two processes never take the same run nor exceed an account's bound. With `serves`, only a
   * run whose models it covers (QueuedRunModels; a run without them, any): the others stay queued
   * for a process that serves them. Null when none is ready.
   */
  claim(request: { instanceId: string; now: number; maxRunningPerAccount: number; serves?: ServedModels | undefined }): Promise<RunRecord | null>;
  /**
   * Ends a run the instance still holds, writing its webhook events in the same transaction; false
   * when it no longer does (another process took it over), and then no event is written.
   */
  complete(completion: RunCompletion, events?: readonly WebhookEventRecord[]): Promise<boolean>;
  /**
   * Keeps on a run the instance still holds what its attempts have cost so far (a shutdown cut
   * the current one off, after it was charged; the run goes back to the queue and the next
   * attempt adds its own). False when the instance no longer holds it.
   */
  noteAttemptCost(cost: RunAttemptCost): Promise<boolean>;
  /**
   * Gives a run the instance still holds back to the queue, as if never started (its attempt
   * stays counted): an attempt the store's outage stopped before anything was charged. False,
   * leaving the run as it is, when the instance no longer holds it or its cancellation was asked.
   */
  requeue(request: { id: string; instanceId: string }): Promise<boolean>;
  /** Cancels a queued run at once, or asks the process running it to stop. */
  cancel(request: OwnedId & { now: number }): Promise<RunCancellation>;
  /** Of these running runs, the ones whose cancellation was asked for. */
  cancelRequested(ids: readonly string[]): Promise<string[]>;
  /**
   * Runs left running by processes whose lease is gone (they crashed): those claimed fewer than
   * `maxAttempts` times, and not cancelled meanwhile, go back to the queue; the others are
   * returned, still running, for the caller to end (cancelled when their owner asked, else failed).
   */
  recoverOrphans(request: { now: number; maxAttempts: number }): Promise<{ requeued: number; stranded: RunRecord[] }>;
  findOwned(request: OwnedId): Promise<RunRecord | null>;
  /** The account's runs, newest first, filtered as asked; payloads are not read. */
  list(request: RunListRequest): Promise<RunSummaryRecord[]>;
  /** Drops the payload of every run created before `before` (epoch ms), keeping the rest of the row; returns how many. */
  prunePayloads(request: { before: number }): Promise<number>;
}

export interface SanitiserRuleRecord {
  id: string;
  organisationId: string;
  ruleId: string;
  kind: 'custom' | 'override';
  definition: unknown;
  createdAt: number;
  updatedAt: number;
}

export interface SanitiserRuleRepository {
  /**
   * Inserts or replaces the organisation's rule with this rule id, and bumps the organisation's
   * rules version. With `expectedVersion`, writes only while the rules version is still that one
   * and answers false, writing nothing, once another change has landed: a caller that checked the
   * organisation's rules against a limit writes only what it checked. True when written.
   */
  upsert(record: SanitiserRuleRecord, expectedVersion?: number): Promise<boolean>;
  list(organisationId: string): Promise<SanitiserRuleRecord[]>;
  /** Removes a rule and bumps the rules version; false when there was none. */
  remove(request: { organisationId: string; ruleId: string }): Promise<boolean>;
  /** The organisation's current rules version (0 when it never had rules). */
  version(organisationId: string): Promise<number>;
}

/** The events an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['run.completed', 'run.failed', 'credits.low'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * One event for an account's endpoints. Core builds it; the engine writes one delivery per
 * enabled endpoint subscribed to `type`, in the transaction of what the event reports.
 */
export interface WebhookEventRecord {
  /** The message id: the `webhook-id` every endpoint receives it under, the same on every retry. */
  id: string;
  accountId: string;
  type: WebhookEventType;
  /** The exact body signed and sent (Standard Webhooks `{type, timestamp, data}`, as JSON text). */
  payload: string;
  createdAt: number;
}

export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  /** AES-256-GCM ciphertext of the `whsec_` secret; never the plaintext. */
  encryptedSecret: string;
  /** The secret before the last rotation, still signing beside the new one until `previousSecretExpiresAt`. */
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export interface WebhookAttemptRecord {
  id: string;
  endpointId: string;
  eventId: string;
  attemptedAt: number;
  /** The receiver's HTTP status; null when no response arrived. */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed (timeout, connection, tls, redirect, http_status, blocked_address, dns, invalid_url, secret); null on success. */
  error: string | null;
}

export interface WebhookDeliveryRecord {
  endpointId: string;
  /** The event's id: the `webhook-id` header. */
  eventId: string;
  accountId: string;
  type: string;
  /** Null once retention pruned it (the attempts' status codes and timings stay). */
  payload: string | null;
  status: WebhookDeliveryStatus;
  /** Attempts since it was queued or redelivered. */
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
}

/** A delivery claimed for an attempt, with what sending it needs. */
export interface ClaimedWebhookDelivery extends WebhookDeliveryRecord {
  payload: string;
  url: string;
  encryptedSecret: string;
  previousEncryptedSecret: string | null;
  previousSecretExpiresAt: number | null;
}

/** How an attempt ended, written with its log row: the delivery is done, or waits until `nextAttemptAt`. */
export interface WebhookAttemptResult {
  attempt: WebhookAttemptRecord;
  status: WebhookDeliveryStatus;
  /** When to try again; null when the delivery is done. */
  nextAttemptAt: number | null;
}

/**
 * The bounds a claiming process keeps on its attempts in flight, so that receivers that hang or
 * fail hold a bounded part of its slots (src/db/webhook-claims.ts says how they are applied).
 */
export interface WebhookClaimShares {
  /** Attempts one endpoint may have in flight; one for an endpoint whose last attempt failed. */
  perEndpoint: number;
  /** Attempts one account's endpoints may have in flight together. */
  perAccount: number;
  /** Of those, attempts to the account's endpoints whose last attempt failed. */
  failingPerAccount: number;
  /** Attempts to endpoints whose last attempt failed, of every account together. */
  failing: number;
}

/** An endpoint the claiming process has attempts in flight at. */
export interface WebhookEndpointBusy {
  accountId: string;
  count: number;
}

/** A claim of due deliveries by one process, within its shares, counting what it already has in flight. */
export interface WebhookClaimRequest {
  now: number;
  limit: number;
  claimUntil: number;
  shares: WebhookClaimShares;
  /** The claiming process's attempts in flight, by endpoint id. */
  busy: ReadonlyMap<string, WebhookEndpointBusy>;
  /** Endpoints whose last attempt in the claiming process failed (until one succeeds), with their account ids. */
  failing: ReadonlyMap<string, string>;
}

export type WebhookEndpointChanges = Partial<Pick<WebhookEndpointRecord, 'url' | 'description' | 'events' | 'enabled'>>;

export type RedeliverOutcome = 'queued' | 'not_found' | 'pending' | 'pruned';

export interface WebhookRepository {
  /** Inserts the endpoint unless the account already has `maxPerAccount`; atomic. */
  insertEndpointIfBelowLimit(request: { endpoint: WebhookEndpointRecord; maxPerAccount: number }): Promise<boolean>;
  findEndpoint(request: OwnedId): Promise<WebhookEndpointRecord | null>;
  /** The account's endpoints, oldest first. */
  listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  updateEndpoint(request: OwnedId & { changes: WebhookEndpointChanges; at: number }): Promise<WebhookEndpointRecord | null>;
  /**
   * Makes `encryptedSecret` the secret; the old one keeps signing until `previousExpiresAt` (none
   * when null). A rotation with a grace period while an earlier one's still runs changes nothing
   * and answers null, as for an endpoint the account does not have: only one previous secret is
   * kept, and replacing it would end the earlier grace early.
   */
  rotateSecret(request: OwnedId & { encryptedSecret: string; previousExpiresAt: number | null; at: number }): Promise<WebhookEndpointRecord | null>;
  /** Removes the endpoint with its deliveries and their attempts; false when the account had no such endpoint. */
  deleteEndpoint(request: OwnedId): Promise<boolean>;
  /** Queues the event for every subscribed enabled endpoint of its account (outside another write); returns how many deliveries. */
  enqueue(event: WebhookEventRecord): Promise<number>;
  /**
   * Claims up to `limit` pending deliveries due at `now` (unclaimed, or whose claim expired: its
   * process died) of enabled endpoints, until `claimUntil`; atomic, so no two processes claim one.
   * Earliest due first, within the request's shares (per endpoint, per account, for failing
   * endpoints), each counting the attempts the caller already has in flight, so that no endpoint's
   * or account's backlog, and no set of failing receivers, takes every slot from the others.
   */
  claimDue(request: WebhookClaimRequest): Promise<ClaimedWebhookDelivery[]>;
  /** Logs the attempt and moves the delivery on (done, or due again), releasing its claim. */
  recordAttempt(result: WebhookAttemptResult): Promise<void>;
  /** One endpoint's deliveries, newest first; `page.cursor` is an event id. */
  listDeliveries(request: OwnedId & { status?: WebhookDeliveryStatus | undefined; page: PageRequest }): Promise<WebhookDeliveryRecord[]>;
  /** One delivery of one of the account's endpoints. */
  findDelivery(request: OwnedId & { eventId: string }): Promise<WebhookDeliveryRecord | null>;
  /** The attempts of these deliveries of one endpoint, oldest first. */
  listAttempts(request: { endpointId: string; eventIds: readonly string[] }): Promise<WebhookAttemptRecord[]>;
  /** Queues a finished delivery again, due at `now`, with a fresh retry schedule. */
  redeliver(request: OwnedId & { eventId: string; now: number }): Promise<RedeliverOutcome>;
  /** Drops the payload of finished deliveries created before `before`; returns how many. */
  prunePayloads(request: { before: number }): Promise<number>;
}

/**
 * A running Porch process, known by a lease it renews. What a process holds (credit
 * reservations, execution slots, unfinished idempotency claims) is released when its lease ends:
 * at once on a clean shutdown, and within the lease's length after a crash.
 */
export interface InstanceRepository {
  /** Registers the instance, or renews its lease, until `leaseExpiresAt`. */
  renew(request: { id: string; now: number; leaseExpiresAt: number }): Promise<void>;
  /** Ends the instance and releases what it held, in one transaction, charging what its reservations accrued. */
  retire(id: string, charging: AccruedCharging): Promise<void>;
  /** Retires every instance whose lease ended at or before `charging.at`; returns how many. */
  retireExpired(charging: AccruedCharging): Promise<number>;
}

export interface SlotRequest {
  slotId: string;
  keyId: string;
  instanceId: string;
  /** Slots the key may hold at once, across every process. */
  maxInFlight: number;
  now: number;
}

/**
 * The per-key bound on executions in flight, shared by every process: a slot is a row, and only
 * slots of instances whose lease is live count, so a crash can never leave a key's slots taken.
 */
export interface ExecutionSlotRepository {
  /** Takes a slot if fewer than `maxInFlight` are held for the key by live instances; atomic. */
  acquire(request: SlotRequest): Promise<boolean>;
  release(slotId: string): Promise<void>;
  /** Slots held for the key by instances live at `now`. */
  count(request: { keyId: string; now: number }): Promise<number>;
}

/**
 * The database cannot be reached right now (the connection was lost, the server is restarting
 * or out of connections). Nothing was written, or the write's outcome is unknown and the caller
 * must not assume it landed: the request is answered 503 with Retry-After, never a 500.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** How long a client should wait before retrying, in seconds. */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/**
 * The database could not be used as configured (unreachable, credentials refused, migrated by a
 * newer Porch), or a database tool (migrate, copy, backup) declined to act; nothing was written.
 * The message names the setting and what to do. The CLI reports it without a stack trace.
 */
export class DatabaseRefusal extends Error {
  override readonly name = 'DatabaseRefusal';
}

/** Which engine holds the data and where, for start-up logs and decisions that depend on it. */
export interface StoreDescription {
  engine: 'sqlite' | 'postgres';
  /** Where the data lives, safe to log: a file path, ':memory:', or a PostgreSQL host and database (never a password). */
  location: string;
  /** True when the data lives only as long as this process (an in-memory database). */
  ephemeral: boolean;
}

/** What authenticated a call: an API key, a partner key, or a console session. */
export const CREDENTIAL_KINDS = ['api_key', 'partner_key', 'session'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** A signed-in console session. Only the sha256 of its cookie's token is stored. */
export interface ConsoleSessionRecord {
  id: string;
  accountId: string;
  tokenHash: string;
  createdAt: number;
  /** Refreshed as the session is used (at most once a minute); idle expiry counts from it. */
  lastSeenAt: number;
  /** The absolute expiry: no use extends a session past it. */
  expiresAt: number;
  revokedAt: number | null;
  /** The browser that signed in, shortened, so a user can tell their sessions apart. */
  userAgent: string | null;
}

/** What a one-time link lets its holder do: set the first password (invite) or a new one (reset). */
export const ACCOUNT_TOKEN_PURPOSES = ['invite', 'reset'] as const;
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number];

/** A one-time link's token (sha256 only), usable once before it expires. */
export interface AccountTokenRecord {
  id: string;
  accountId: string;
  tokenHash: string;
  purpose: AccountTokenPurpose;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface SignInRepository {
  /** The account's password hash (an argon2id PHC string), or null before it set one. */
  passwordHash(accountId: string): Promise<string | null>;
  /** Stores a one-time token; every earlier unused token of the account stops working. */
  issueToken(token: AccountTokenRecord): Promise<void>;
  /**
   * Redeems a one-time token in one transaction: marks it used, sets the password and revokes
   * every session of the account. Null, and nothing written, when the token is unknown, used or expired.
   */
  redeemToken(request: { tokenHash: string; passwordHash: string; now: number }): Promise<{ accountId: string; purpose: AccountTokenPurpose } | null>;
  /** Whether a one-time token is unused and unexpired at `now` (the link's page says so before a password is typed). */
  isTokenUsable(request: { tokenHash: string; now: number }): Promise<boolean>;
  createSession(session: ConsoleSessionRecord): Promise<void>;
  /** A session by id, whatever its state (a queued run started from the console checks it is still usable). */
  findSession(id: string): Promise<ConsoleSessionRecord | null>;
  /** The session of this token hash if it is neither revoked, past its absolute expiry, nor idle since `idleSince`. */
  findUsableSession(request: { tokenHash: string; now: number; idleSince: number }): Promise<ConsoleSessionRecord | null>;
  /** Records that the session was used at `at`. */
  touchSession(request: { id: string; at: number }): Promise<void>;
  /** Revokes one session of the account; false when it is not the account's or already ended. */
  revokeSession(request: { id: string; accountId: string; at: number }): Promise<boolean>;
  /** Revokes every session of the account (but `exceptId`); the number revoked. */
  revokeAllSessions(request: { accountId: string; at: number; exceptId?: string }): Promise<number>;
  /** The account's sessions still usable at `now` (idle ones included until they expire), newest first. */
  listSessions(request: { accountId: string; now: number; idleSince: number }): Promise<ConsoleSessionRecord[]>;
  /** Deletes sessions and tokens that ended before `before`; the number of rows removed. */
  pruneEnded(before: number): Promise<number>;
}

/**
 * One object of the OAuth authorization server (oidc-provider's models: Client, Grant, Session,
 * Interaction, AuthorizationCode, AccessToken, RefreshToken, RegistrationAccessToken, ...). Rows
 * are keyed by the sha256 of the object's id, because for tokens and codes the id IS the secret a
 * client presents: the database never holds a usable token.
 */
export interface OAuthRecord {
  model: string;
  idHash: string;
  /** The object as JSON, its secret id (`jti`) left out. */
  payload: string;
  /** The grant the object belongs to (tokens, codes, the grant itself), so a grant revokes all of them. */
  grantId: string | null;
  /** sha256 of a Session's `uid`, by which interactions find it. */
  uidHash: string | null;
  expiresAt: number | null;
  consumedAt: number | null;
}

/** An app an account connected with OAuth: the grant it approved and the key-like credential behind it. */
export interface OAuthConnectionRecord {
  /** The `oauth` api_keys row the connection's tokens act as. */
  keyId: string;
  accountId: string;
  clientId: string;
  clientName: string;
  grantId: string;
  createdAt: number;
  revokedAt: number | null;
}

/** A connection as listed: with its credential's scopes. */
export interface OAuthConnectionView extends OAuthConnectionRecord {
  scopes: string[];
}

export interface OAuthRepository {
  /** Inserts or replaces the object (oidc-provider saves a model again when it changes). */
  upsert(record: Omit<OAuthRecord, 'consumedAt'>): Promise<void>;
  /**
   * Replaces the payload and expiry of an object that still exists (a grant extended as its
   * tokens are refreshed); false, and nothing written, when it is gone (revoked meanwhile), so an
   * extension never brings a revoked grant back.
   */
  update(request: { model: string; idHash: string; payload: string; expiresAt: number | null }): Promise<boolean>;
  /** The object unless it expired by `now`. */
  find(request: { model: string; idHash: string; now: number }): Promise<OAuthRecord | null>;
  findByUid(request: { model: string; uidHash: string; now: number }): Promise<OAuthRecord | null>;
  /**
   * Marks a code or refresh token used; oidc-provider refuses it afterwards (and revokes its grant
   * on reuse). False when it already was: of concurrent uses, exactly one gets true.
   */
  consume(request: { model: string; idHash: string; at: number }): Promise<boolean>;
  destroy(request: { model: string; idHash: string }): Promise<void>;
  /**
   * Inserts the connection's credential (an `oauth` key) and the connection in one transaction,
   * if the connection's grant still exists; false, and nothing written, when it is gone (revoked
   * meanwhile: the other exchange of a code used twice). It and `revokeGrant` are serialised per
   * grant, so the two never interleave (regression, on PostgreSQL: a connection made after its
   * grant's revocation stayed listed, and its token worked).
   */
  connect(request: { key: ApiKeyRecord; connection: OAuthConnectionRecord }): Promise<boolean>;
  /**
   * The credential an access token acts as: the token's record and its connection's key, when the
   * token is unexpired at `now`, its connection unrevoked and its key usable. One lookup, so an
   * unknown token costs what a revoked one does.
   */
  findAccessToken(request: { idHash: string; now: number }): Promise<{ record: OAuthRecord; key: ApiKeyRecord } | null>;
  /**
   * The account's connections not revoked and whose grant has not expired by `now` (no `Grant`
   * object with the connection's grant id and an expiry at or before `now`), oldest first.
   */
  listConnections(request: { accountId: string; now: number }): Promise<OAuthConnectionView[]>;
  /**
   * Revokes a connection in one transaction: the connection, its key, and every object of its
   * grant (tokens, codes, the grant). Null when the account has no such active connection.
   */
  revokeConnection(request: { keyId: string; accountId: string; at: number }): Promise<OAuthConnectionRecord | null>;
  /**
   * Revokes a grant in one transaction: every object of it, and its connection and the
   * connection's key when they are active (a grant oidc-provider revoked leaves no app connected).
   */
  revokeGrant(request: { grantId: string; at: number }): Promise<void>;
  /**
   * Deletes objects that expired before `before`; the number removed. A connection whose grant is
   * among them ends with it, in the same transaction: the connection and its key are revoked as
   * of the grant's expiry (nothing of the app works any more).
   */
  pruneExpired(before: number): Promise<number>;
}

export interface Store {
  organisations: OrganisationRepository;
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  partnerKeys: PartnerKeyRepository;
  rateLimits: RateLimitRepository;
  credits: CreditRepository;
  usage: UsageRepository;
  contextCards: ContextCardRepository;
  catalog: CatalogRepository;
  byokKeys: ByokKeyRepository;
  idempotency: IdempotencyRepository;
  runs: RunRepository;
  webhooks: WebhookRepository;
  sanitiserRules: SanitiserRuleRepository;
  instances: InstanceRepository;
  executionSlots: ExecutionSlotRepository;
  signIn: SignInRepository;
  oauth: OAuthRepository;
  describe(): StoreDescription;
  /** True when the database answers a trivial query; false once the store is closed. */
  ping(): Promise<boolean>;
  /**
   * The database's migrations against this code's: `current`, `behind` (some pending), `ahead`
   * (a newer Porch migrated it since this process opened it), or `unavailable` (no answer).
   */
  schemaStatus(): Promise<'current' | 'behind' | 'ahead' | 'unavailable'>;
  close(): Promise<void>;
}
