/**
 * The storage ports. Core reaches storage only through these interfaces; every method returns a
 * promise so that a networked implementation (PostgreSQL for multi-instance deployments) can be
 * added beside the SQLite one without touching core or the doors. Each method that checks and
 * updates is atomic: the SQLite implementation runs it as one synchronous transaction.
 *
 * Records use camelCase and epoch-millisecond timestamps; core shapes them for the API.
 */

import type { Plan } from '../core/domain/plans.js';

export interface OrganisationRecord {
  id: string;
  name: string;
  euOnlyModels: boolean;
  strictByok: boolean;
  ownerAccountId: string | null;
  sanitiserRulesVersion: number;
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

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[];
  requestsPerMinute: number;
  requestsPerDay: number;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
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
  createdAt: number;
}

export interface ContextCardRecord {
  id: string;
  accountId: string;
  title: string;
  content: string;
  category: string | null;
  tags: string[];
  description: string | null;
  emoji: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface CompositionVariable {
  name: string;
  required: boolean;
  default?: string;
  description?: string;
}

export interface CompositionRecord {
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

export interface SkillRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  category: string;
  instructions: string;
  model: string | null;
  createdAt: number;
}

export interface WorkflowRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  category: string;
  definition: unknown;
  usageCount: number;
  createdAt: number;
}

/** A page request: newest first; `cursor` is the id of the last item of the previous page. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
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

export interface BundleRecords {
  contextCards: ContextCardRecord[];
  compositions: CompositionRecord[];
  skills: SkillRecord[];
  workflows: WorkflowRecord[];
}

export type ReserveOutcome =
  | { ok: true; reservationId: string; balance: CreditBalance }
  | { ok: false; balance: CreditBalance };

export type SettleOutcome =
  | { ok: true; balance: CreditBalance }
  | { ok: false; reason: 'insufficient_balance' | 'unknown_reservation'; balance: CreditBalance };

export interface OrganisationRepository {
  findById(id: string): Promise<OrganisationRecord | null>;
  update(id: string, changes: Partial<Pick<OrganisationRecord, 'name' | 'euOnlyModels' | 'strictByok'>>): Promise<OrganisationRecord | null>;
}

export interface AccountRepository {
  /** Creates an account and, when `organisation` is given, its personal organisation, in one transaction. */
  create(account: AccountRecord, organisation: OrganisationRecord | null, initialTokens: number): Promise<void>;
  findById(id: string): Promise<AccountRecord | null>;
  findByEmail(email: string): Promise<AccountRecord | null>;
  list(): Promise<AccountRecord[]>;
  count(): Promise<number>;
  /** Changes the plan; when `revokeKeysAt` is set, revokes every active key of the account in the same transaction. */
  setPlan(id: string, plan: Plan, downgradedAt: number | null, revokeKeysAt: number | null): Promise<AccountRecord | null>;
}

export interface ApiKeyRepository {
  /** Inserts the key unless the account already has `maxActive` active keys; atomic. */
  insertIfBelowLimit(key: ApiKeyRecord, maxActive: number, now: number): Promise<boolean>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: number): Promise<ApiKeyRecord | null>;
  revokeAllForAccount(accountId: string, at: number): Promise<number>;
  /** Revokes `oldId` and inserts `replacement` in one transaction (rotation). */
  replace(oldId: string, replacement: ApiKeyRecord, at: number): Promise<boolean>;
}

export interface PartnerKeyRepository {
  insert(key: PartnerKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<PartnerKeyRecord | null>;
  findById(id: string): Promise<PartnerKeyRecord | null>;
  listByOrganisation(organisationId: string): Promise<PartnerKeyRecord[]>;
  revoke(id: string, at: number): Promise<PartnerKeyRecord | null>;
}

export interface RateLimitStore {
  /** Counts the request in both windows if neither is full; one atomic check-and-increment. */
  consume(limits: RateWindowLimits): Promise<RateWindowOutcome>;
}

export interface CreditStore {
  balance(accountId: string): Promise<CreditBalance>;
  grant(accountId: string, tokens: number, reference: string | null, at: number): Promise<CreditBalance>;
  /** Holds `tokens` if available balance minus `minimumTokens` stays non-negative. */
  reserve(accountId: string, tokens: number, minimumAvailableTokens: number, at: number, expiresAt: number): Promise<ReserveOutcome>;
  /**
   * Closes the reservation and charges `chargeTokens`; refuses (and releases) when the balance
   * cannot cover it. `usage`, the record of the call being paid for, is written in the same
   * transaction when the charge succeeds: a charge never lands without its record, or the reverse.
   */
  settle(reservationId: string, chargeTokens: number, reference: string | null, at: number, usage?: UsageRecord): Promise<SettleOutcome>;
  release(reservationId: string): Promise<void>;
  /** Releases reservations that expired (left behind by a crash); returns how many. */
  releaseExpired(at: number): Promise<number>;
  ledger(accountId: string): Promise<LedgerEntry[]>;
}

export interface UsageRepository {
  insert(record: UsageRecord): Promise<void>;
  listByAccount(accountId: string): Promise<UsageRecord[]>;
}

export interface ContextCardRepository {
  list(accountId: string, page: PageRequest, category?: string): Promise<ContextCardRecord[]>;
  findOwned(accountId: string, id: string): Promise<ContextCardRecord | null>;
  insert(card: ContextCardRecord): Promise<void>;
  update(accountId: string, id: string, changes: Partial<Omit<ContextCardRecord, 'id' | 'accountId' | 'createdAt'>>): Promise<ContextCardRecord | null>;
  delete(accountId: string, id: string): Promise<boolean>;
}

export interface CatalogRepository {
  listCompositions(accountId: string, page: PageRequest): Promise<CompositionRecord[]>;
  listSkills(accountId: string, page: PageRequest): Promise<SkillRecord[]>;
  listWorkflows(accountId: string, page: PageRequest): Promise<WorkflowRecord[]>;
  findComposition(accountId: string, id: string): Promise<CompositionRecord | null>;
  findSkill(accountId: string, id: string): Promise<SkillRecord | null>;
  findWorkflow(accountId: string, id: string): Promise<WorkflowRecord | null>;
  incrementCompositionUse(id: string): Promise<void>;
  incrementWorkflowUse(id: string): Promise<void>;
  /** Writes a whole imported bundle in one transaction: all of it or nothing. */
  insertBundle(records: BundleRecords): Promise<void>;
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
  findActive(owner: ByokOwner, provider: string): Promise<ByokKeyRecord | null>;
  list(owner: ByokOwner): Promise<ByokKeyRecord[]>;
  revoke(id: string, at: number): Promise<ByokKeyRecord | null>;
}

export interface IdempotencyClaimRequest {
  accountId: string;
  idempotencyKey: string;
  operation: string;
  requestHash: string;
  now: number;
  expiresAt: number;
}

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  /** Claims the key for this request, or says what an earlier request with it left; atomic. */
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /** Stores the response a replay will answer with. */
  complete(accountId: string, idempotencyKey: string, status: number, body: unknown): Promise<void>;
  /** Forgets a claim whose request failed, so a retry runs again. */
  abandon(accountId: string, idempotencyKey: string): Promise<void>;
  deleteExpired(at: number): Promise<number>;
}

export interface WorkflowRunRecord {
  id: string;
  workflowId: string;
  accountId: string;
  status: 'completed' | 'failed';
  result: unknown;
  durationMs: number;
  createdAt: number;
}

export interface WorkflowRunRepository {
  insert(run: WorkflowRunRecord): Promise<void>;
  findOwned(accountId: string, id: string): Promise<WorkflowRunRecord | null>;
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
  /** Inserts or replaces the organisation's rule with this rule id, and bumps the organisation's rules version. */
  upsert(record: SanitiserRuleRecord): Promise<void>;
  list(organisationId: string): Promise<SanitiserRuleRecord[]>;
  /** Removes a rule and bumps the rules version; false when there was none. */
  remove(organisationId: string, ruleId: string): Promise<boolean>;
  /** The organisation's current rules version (0 when it never had rules). */
  version(organisationId: string): Promise<number>;
}

/** Which engine holds the data and where, for start-up logs and decisions that depend on it. */
export interface StoreDescription {
  engine: 'sqlite';
  /** Where the data lives, safe to log: a file path or ':memory:'. */
  location: string;
  /** True when the data lives only as long as this process (an in-memory database). */
  ephemeral: boolean;
}

export interface Store {
  organisations: OrganisationRepository;
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  partnerKeys: PartnerKeyRepository;
  rateLimits: RateLimitStore;
  credits: CreditStore;
  usage: UsageRepository;
  contextCards: ContextCardRepository;
  catalog: CatalogRepository;
  byokKeys: ByokKeyRepository;
  idempotency: IdempotencyStore;
  workflowRuns: WorkflowRunRepository;
  sanitiserRules: SanitiserRuleRepository;
  describe(): StoreDescription;
  /** True when the database answers a trivial query; false once the store is closed. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
