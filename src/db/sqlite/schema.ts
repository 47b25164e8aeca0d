/**
 * The SQLite schema. Timestamps are integer epoch milliseconds (converted to ISO 8601 at the API
 * boundary); JSON columns hold arrays and objects that are always read and written whole.
 * Ids are UUIDv7, so ordering by id is ordering by creation time.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PLANS } from '../../core/domain/plans.js';
import {
  ACCOUNT_TOKEN_PURPOSES,
  API_KEY_KINDS,
  CREDENTIAL_KINDS,
  GUARDRAIL_MODES,
  GUARDRAIL_SEVERITIES,
  RUN_STATUSES,
  type RunTraceContext,
} from '../store.js';

const timestamps = {
  createdAt: integer('created_at').notNull(),
};

/**
 * The columns every versioned resource has (compositions, skills, workflows, context cards):
 * the number of its newest version (the row holds that version's content; every version's
 * content is in `resource_versions`), and the key it was imported under, which `porch import`
 * upserts by.
 */
const versioned = {
  version: integer('version').notNull().default(1),
  bundleKey: text('bundle_key'),
};

export const organisations = sqliteTable('organisations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  euOnlyModels: integer('eu_only_models', { mode: 'boolean' }).notNull().default(false),
  strictByok: integer('strict_byok', { mode: 'boolean' }).notNull().default(false),
  ownerAccountId: text('owner_account_id'),
  /**
   * Bumped on every sanitiser rule change, so each process can tell cheaply whether its compiled
   * ruleset is stale (the CLI changes rules from another process).
   */
  sanitiserRulesVersion: integer('sanitiser_rules_version').notNull().default(0),
  /** Guardrails on model calls (core/sanitiser/guardrails.ts): off, report, redact or block. */
  guardrailInputs: text('guardrail_inputs', { enum: GUARDRAIL_MODES }).notNull().default('off'),
  guardrailOutputs: text('guardrail_outputs', { enum: GUARDRAIL_MODES }).notNull().default('off'),
  guardrailMinSeverity: text('guardrail_min_severity', { enum: GUARDRAIL_SEVERITIES }).notNull().default('warn'),
  ...timestamps,
});

export const accounts = sqliteTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    organisationId: text('organisation_id')
      .notNull()
      .references(() => organisations.id),
    email: text('email').notNull(),
    name: text('name'),
    plan: text('plan', { enum: PLANS }).notNull(),
    /** When the account last left the Expert plan; starts the 7-day grace period of its keys. */
    downgradedAt: integer('downgraded_at'),
    ...timestamps,
  },
  (table) => [uniqueIndex('accounts_email_unique').on(table.email), index('accounts_organisation_idx').on(table.organisationId)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** `user` (created by the account holder) or `oauth` (the credential of a connected app). */
    kind: text('kind', { enum: API_KEY_KINDS }).notNull().default('user'),
    name: text('name').notNull(),
    /** The first characters of the key, safe to display ("mdi_AbC1"). */
    prefix: text('prefix').notNull(),
    /** SHA-256 of the whole key, hex. The plaintext is never stored. */
    hash: text('hash').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    requestsPerMinute: integer('requests_per_minute').notNull(),
    requestsPerDay: integer('requests_per_day').notNull(),
    ...timestamps,
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    /** The key that replaced this one in a rotation (its successor); null until rotated. */
    replacedBy: text('replaced_by'),
  },
  (table) => [uniqueIndex('api_keys_hash_unique').on(table.hash), index('api_keys_account_idx').on(table.accountId)],
);

export const partnerKeys = sqliteTable(
  'partner_keys',
  {
    id: text('id').primaryKey(),
    organisationId: text('organisation_id')
      .notNull()
      .references(() => organisations.id),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull(),
    /** The product surface: scopes the partner may use; null means every scope. */
    scopes: text('scopes', { mode: 'json' }).$type<string[] | null>(),
    requestsPerMinute: integer('requests_per_minute').notNull(),
    requestsPerDay: integer('requests_per_day').notNull(),
    ...timestamps,
    revokedAt: integer('revoked_at'),
  },
  (table) => [uniqueIndex('partner_keys_hash_unique').on(table.hash)],
);

export const rateLimitCounters = sqliteTable(
  'rate_limit_counters',
  {
    keyId: text('key_id').notNull(),
    window: text('window', { enum: ['minute', 'day'] }).notNull(),
    /** Unix seconds at which the current window started. */
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.keyId, table.window] })],
);

export const creditBalances = sqliteTable('credit_balances', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id),
  /** Tokens the account owns (1 credit = 1,000 tokens). */
  balanceTokens: integer('balance_tokens').notNull(),
  /** Tokens held by open reservations; available = balance - reserved. */
  reservedTokens: integer('reserved_tokens').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /**
   * A settlement that takes the balance from at or above this to below it emits `credits.low`
   * (null: never). Kept on the balance row, which every settlement reads already.
   */
  lowBalanceThresholdTokens: integer('low_balance_threshold_tokens'),
});

export const creditReservations = sqliteTable(
  'credit_reservations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    tokens: integer('tokens').notNull(),
    ...timestamps,
    /** A reservation still open after this time was left by a crash and is released by the sweeper. */
    expiresAt: integer('expires_at').notNull(),
    /** The process holding it; released when that process's lease ends (null: made before leases existed). */
    instanceId: text('instance_id'),
  },
  (table) => [index('credit_reservations_expiry_idx').on(table.expiresAt), index('credit_reservations_instance_idx').on(table.instanceId)],
);

export const creditLedger = sqliteTable(
  'credit_ledger',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    kind: text('kind', { enum: ['grant', 'usage', 'adjustment'] }).notNull(),
    deltaTokens: integer('delta_tokens').notNull(),
    balanceAfterTokens: integer('balance_after_tokens').notNull(),
    reference: text('reference'),
    ...timestamps,
  },
  // By account in id order: a page of the ledger, and the account's highest entry id (ledger-order.ts), are one seek.
  (table) => [index('credit_ledger_account_id_idx').on(table.accountId, table.id)],
);

export const usageRecords = sqliteTable(
  'usage_records',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    apiKeyId: text('api_key_id'),
    partnerKeyId: text('partner_key_id'),
    operation: text('operation').notNull(),
    resourceId: text('resource_id'),
    /** The version of the resource that ran (null for calls that run no versioned resource). */
    resourceVersion: integer('resource_version'),
    runId: text('run_id'),
    /**
     * The open reservation a workflow run's node calls are paid from: the call is charged when the
     * reservation closes (the run's settlement, or its release after a crash). Null once charged
     * with the call, as every single execution is.
     */
    reservationId: text('reservation_id'),
    nodeId: text('node_id'),
    model: text('model'),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    totalTokens: integer('total_tokens').notNull(),
    chargedTokens: integer('charged_tokens').notNull(),
    byok: integer('byok', { mode: 'boolean' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    status: text('status', { enum: ['succeeded', 'failed', 'billing_failed'] }).notNull(),
    /**
     * A repeat of the request's model call (the judge's second call after an unreadable verdict):
     * a model call, but not a request of its own, so /usage counts the request once.
     */
    retry: integer('retry', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (table) => [
    index('usage_records_run_idx').on(table.runId),
    // Only accrued calls (a workflow run's) name a reservation: the index holds just those rows.
    index('usage_records_reservation_idx').on(table.reservationId).where(sql`${table.reservationId} is not null`),
    // Usage aggregates read one account's rows over a time range; listing by account uses its prefix.
    index('usage_records_account_time_idx').on(table.accountId, table.createdAt),
  ],
);

export const contextCards = sqliteTable(
  'context_cards',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    title: text('title').notNull(),
    content: text('content').notNull(),
    category: text('category'),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    description: text('description'),
    emoji: text('emoji'),
    ...timestamps,
    updatedAt: integer('updated_at').notNull(),
    ...versioned,
    /** Bytes the row counts against the account's quota (src/db/content-size.ts). */
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('context_cards_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('context_cards_account_idx').on(table.accountId, table.id),
    index('context_cards_category_idx').on(table.accountId, table.category, table.id),
    // Covers the quota check (count and sum of sizes): the rows, content and all, are never read.
    index('context_cards_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const compositions = sqliteTable(
  'compositions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    description: text('description').notNull(),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    template: text('template').notNull(),
    variables: text('variables', { mode: 'json' }).$type<{ name: string; required: boolean; default?: string; description?: string }[]>().notNull(),
    defaultModel: text('default_model'),
    timesUsed: integer('times_used').notNull().default(0),
    ...timestamps,
    updatedAt: integer('updated_at').notNull().default(0),
    ...versioned,
    /** Bytes the row counts against the account's quota (src/db/content-size.ts). */
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('compositions_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('compositions_account_idx').on(table.accountId, table.id),
    index('compositions_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const skills = sqliteTable(
  'skills',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    instructions: text('instructions').notNull(),
    model: text('model'),
    ...timestamps,
    updatedAt: integer('updated_at').notNull().default(0),
    ...versioned,
    /** Bytes the row counts against the account's quota (src/db/content-size.ts). */
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('skills_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('skills_account_idx').on(table.accountId, table.id),
    index('skills_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const workflows = sqliteTable(
  'workflows',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    /** The validated workflow definition (variables, nodes, outputs), references resolved to ids. */
    definition: text('definition', { mode: 'json' }).$type<unknown>().notNull(),
    usageCount: integer('usage_count').notNull().default(0),
    ...timestamps,
    updatedAt: integer('updated_at').notNull().default(0),
    ...versioned,
    /** Bytes the row counts against the account's quota (src/db/content-size.ts). */
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('workflows_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('workflows_account_idx').on(table.accountId, table.id),
    index('workflows_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

/**
 * Every version of every versioned resource, immutable once written: the content of the resource
 * as that version had it (src/db/resource-content.ts says which fields). A deleted resource's
 * versions stay, marked `deleted_at`, until retention removes them.
 */
export const resourceVersions = sqliteTable(
  'resource_versions',
  {
    resourceId: text('resource_id').notNull(),
    version: integer('version').notNull(),
    accountId: text('account_id').notNull(),
    kind: text('kind', { enum: ['contextCards', 'compositions', 'skills', 'workflows'] }).notNull(),
    content: text('content', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** The API key that wrote it (null: the CLI, an import, or the console). */
    authorKeyId: text('author_key_id'),
    ...timestamps,
    deletedAt: integer('deleted_at'),
  },
  (table) => [primaryKey({ columns: [table.resourceId, table.version] }), index('resource_versions_deleted_idx').on(table.deletedAt)],
);

/** Named versions (`production`, `staging`, ...); `latest` is implicit and never stored. */
export const resourceLabels = sqliteTable(
  'resource_labels',
  {
    resourceId: text('resource_id').notNull(),
    label: text('label').notNull(),
    version: integer('version').notNull(),
    accountId: text('account_id').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.resourceId, table.label] })],
);

/**
 * Every execution of a workflow, composition, skill or persona, for its account to read back.
 * The payload (inputs, result and trace) is dropped after `retention.run_days`; the rest stays.
 */
export const runs = sqliteTable(
  'runs',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    keyId: text('key_id'),
    kind: text('kind', { enum: ['workflow', 'composition', 'skill', 'persona'] }).notNull(),
    resourceId: text('resource_id').notNull(),
    /** The resource version executed; null until resources are versioned. */
    version: integer('version'),
    /** Text in the database, so a status added later needs no migration. */
    status: text('status', { enum: RUN_STATUSES }).notNull(),
    model: text('model'),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    totalTokens: integer('total_tokens').notNull(),
    chargedTokens: integer('charged_tokens').notNull(),
    durationMs: integer('duration_ms').notNull(),
    ...timestamps,
    payload: text('payload', { mode: 'json' }).$type<{ inputs: unknown; result: unknown }>(),
    /** Which kind of key started it (a partner key acts for the account), so an asynchronous run can act as it. */
    keyKind: text('key_kind', { enum: CREDENTIAL_KINDS }),
    /** How many times a process claimed it: a run cut off by a crash is retried once, then failed. */
    attempts: integer('attempts').notNull().default(0),
    /** The process (instance id) running it, while it runs asynchronously. */
    claimedBy: text('claimed_by'),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
    /** Set when the owner asked to cancel it while it ran; the process running it aborts the call. */
    cancelRequestedAt: integer('cancel_requested_at'),
    /** The W3C trace context of the request that queued it, which the run's spans continue (JSON); null otherwise. */
    traceContext: text('trace_context', { mode: 'json' }).$type<RunTraceContext>(),
  },
  (table) => [
    index('runs_account_idx').on(table.accountId, table.id),
    index('runs_created_idx').on(table.createdAt),
    // The queue, in order: only queued runs are in it, so claiming stays cheap however many runs are kept.
    index('runs_queued_idx').on(table.id).where(sql`status = 'queued'`),
    // The running runs of an account, counted against its bound at every claim.
    index('runs_running_idx').on(table.accountId).where(sql`status = 'running'`),
  ],
);

export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    /** Scoped per account: the same header value from two accounts never collides. */
    accountId: text('account_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    operation: text('operation').notNull(),
    requestHash: text('request_hash').notNull(),
    /** null while the first request is still running. */
    responseStatus: integer('response_status'),
    responseBody: text('response_body', { mode: 'json' }).$type<unknown>(),
    ...timestamps,
    expiresAt: integer('expires_at').notNull(),
    /** The process running the first request; its unfinished claim is released when that process's lease ends. */
    instanceId: text('instance_id'),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.idempotencyKey] }),
    index('idempotency_expiry_idx').on(table.expiresAt),
    index('idempotency_instance_idx').on(table.instanceId),
  ],
);

export const byokKeys = sqliteTable(
  'byok_keys',
  {
    id: text('id').primaryKey(),
    /** Exactly one of accountId / organisationId is set. */
    accountId: text('account_id'),
    organisationId: text('organisation_id'),
    provider: text('provider').notNull(),
    /** AES-256-GCM ciphertext (versioned, with IV and tag); never the plaintext. */
    encryptedKey: text('encrypted_key').notNull(),
    keyHint: text('key_hint').notNull(),
    ...timestamps,
    revokedAt: integer('revoked_at'),
  },
  (table) => [index('byok_keys_owner_idx').on(table.accountId, table.organisationId, table.provider)],
);

export const sanitiserRules = sqliteTable(
  'sanitiser_rules',
  {
    id: text('id').primaryKey(),
    organisationId: text('organisation_id')
      .notNull()
      .references(() => organisations.id),
    ruleId: text('rule_id').notNull(),
    kind: text('kind', { enum: ['custom', 'override'] }).notNull(),
    definition: text('definition', { mode: 'json' }).$type<unknown>().notNull(),
    ...timestamps,
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [uniqueIndex('sanitiser_rules_org_rule_unique').on(table.organisationId, table.ruleId)],
);

/** Running Porch processes and their leases (src/core/instance.ts renews them). */
export const instances = sqliteTable('instances', {
  id: text('id').primaryKey(),
  startedAt: integer('started_at').notNull(),
  /** After this, the process counts as gone, and what it held is released. */
  leaseExpiresAt: integer('lease_expires_at').notNull(),
});

/** One row per execution in flight: the per-key in-flight limit counts the rows of live instances. */
export const executionSlots = sqliteTable(
  'execution_slots',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    instanceId: text('instance_id').notNull(),
    ...timestamps,
  },
  (table) => [index('execution_slots_key_idx').on(table.keyId), index('execution_slots_instance_idx').on(table.instanceId)],
);

/**
 * Webhook endpoints: where an account's events are delivered. The signing secret is stored
 * AES-256-GCM encrypted (never the plaintext); after a rotation the previous one keeps signing
 * beside the new one until `previous_secret_expires_at`, so receivers can switch over.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    url: text('url').notNull(),
    description: text('description'),
    /** The event types it subscribes to, a JSON array of strings. */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    encryptedSecret: text('encrypted_secret').notNull(),
    previousEncryptedSecret: text('previous_encrypted_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    ...timestamps,
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('webhook_endpoints_account_idx').on(table.accountId, table.id)],
);

/**
 * The outbox: one row per event and endpoint, written in the transaction of what the event
 * reports. `event_id` is the `webhook-id` the receiver sees, the same on every retry. A claim
 * (`claimed_until`) that outlives its process lets another process pick the delivery up.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    endpointId: text('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    accountId: text('account_id').notNull(),
    type: text('type').notNull(),
    /** The exact body signed and sent; null once retention (retention.run_days) pruned it. */
    payload: text('payload'),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    /** Attempts since the delivery was (re)queued; the retry schedule is read at this index. */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    claimedUntil: integer('claimed_until'),
    lastAttemptAt: integer('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    ...timestamps,
  },
  (table) => [
    primaryKey({ columns: [table.endpointId, table.eventId] }),
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt),
    index('webhook_deliveries_created_idx').on(table.createdAt),
  ],
);

/** Every delivery attempt: status code, duration and error class; kept after the payload is pruned. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    attemptedAt: integer('attempted_at').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    /** Why it failed (timeout, connection, redirect, http_status, blocked_address, dns); null on success. */
    error: text('error'),
  },
  (table) => [index('webhook_attempts_delivery_idx').on(table.endpointId, table.eventId)],
);

/** Console sign-in: an account's password, as an argon2id PHC string (never the password). */
export const accountPasswords = sqliteTable('account_passwords', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id),
  passwordHash: text('password_hash').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** Console sessions, shared by every process; the cookie's token is stored as its sha256 only. */
export const consoleSessions = sqliteTable(
  'console_sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    ...timestamps,
    lastSeenAt: integer('last_seen_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
    userAgent: text('user_agent'),
  },
  (table) => [uniqueIndex('console_sessions_token_unique').on(table.tokenHash), index('console_sessions_account_idx').on(table.accountId)],
);

/** One-time links of `porch account invite` and `reset-password` (sha256 of the token only). */
export const accountTokens = sqliteTable(
  'account_tokens',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose', { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    ...timestamps,
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (table) => [uniqueIndex('account_tokens_token_unique').on(table.tokenHash), index('account_tokens_account_idx').on(table.accountId)],
);

/**
 * The OAuth authorization server's objects (oidc-provider's models), keyed by the sha256 of their
 * id: for codes and tokens the id is the secret itself, so it is never stored.
 */
export const oauthRecords = sqliteTable(
  'oauth_records',
  {
    model: text('model').notNull(),
    idHash: text('id_hash').notNull(),
    /** The object's JSON without its id; text, so it reads back exactly as written. */
    payload: text('payload').notNull(),
    grantId: text('grant_id'),
    uidHash: text('uid_hash'),
    expiresAt: integer('expires_at'),
    consumedAt: integer('consumed_at'),
  },
  (table) => [
    primaryKey({ columns: [table.model, table.idHash] }),
    index('oauth_records_grant_idx').on(table.grantId),
    index('oauth_records_uid_idx').on(table.uidHash),
    index('oauth_records_expiry_idx').on(table.expiresAt),
  ],
);

/** Apps connected with OAuth: the grant an account approved and the `oauth` key its tokens act as. */
export const oauthConnections = sqliteTable(
  'oauth_connections',
  {
    keyId: text('key_id')
      .primaryKey()
      .references(() => apiKeys.id),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    grantId: text('grant_id').notNull(),
    ...timestamps,
    revokedAt: integer('revoked_at'),
  },
  (table) => [uniqueIndex('oauth_connections_grant_unique').on(table.grantId), index('oauth_connections_account_idx').on(table.accountId)],
);
