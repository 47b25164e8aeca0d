/**
 * The PostgreSQL schema: the same tables as SQLite's (src/db/sqlite/schema.ts), in PostgreSQL's
 * types. Timestamps and token counts are `bigint` read as JavaScript numbers (epoch milliseconds
 * and token totals stay far below 2^53). JSON columns are `json`, not `jsonb`: `jsonb` reorders
 * object keys, and stored definitions, results and replayed responses must read back exactly as
 * written. Ids are UUIDv7 text, so ordering by id is ordering by creation time, as on SQLite.
 *
 * One deliberate difference: the rate-limit counters of a key are one row holding both windows,
 * so a single `INSERT ... ON CONFLICT DO UPDATE ... WHERE` checks and counts atomically under the
 * row's lock (src/db/postgres/rate-limits.ts).
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, json, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
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

/** Epoch milliseconds, or a token count: beyond 32 bits, within JavaScript's exact integers. */
const epochMs = (name: string) => bigint(name, { mode: 'number' });
const tokens = (name: string) => bigint(name, { mode: 'number' });

const timestamps = {
  createdAt: epochMs('created_at').notNull(),
};

/** The newest version's number and the import key of a versioned resource (as on SQLite). */
const versioned = {
  version: integer('version').notNull().default(1),
  bundleKey: text('bundle_key'),
};

export const organisations = pgTable('organisations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  euOnlyModels: boolean('eu_only_models').notNull().default(false),
  strictByok: boolean('strict_byok').notNull().default(false),
  ownerAccountId: text('owner_account_id'),
  /** Bumped on every sanitiser rule change, so each process can tell cheaply whether its compiled ruleset is stale. */
  sanitiserRulesVersion: integer('sanitiser_rules_version').notNull().default(0),
  /** Guardrails on model calls (core/sanitiser/guardrails.ts): off, report, redact or block. */
  guardrailInputs: text('guardrail_inputs', { enum: GUARDRAIL_MODES }).notNull().default('off'),
  guardrailOutputs: text('guardrail_outputs', { enum: GUARDRAIL_MODES }).notNull().default('off'),
  guardrailMinSeverity: text('guardrail_min_severity', { enum: GUARDRAIL_SEVERITIES }).notNull().default('warn'),
  ...timestamps,
});

export const accounts = pgTable(
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
    downgradedAt: epochMs('downgraded_at'),
    ...timestamps,
  },
  (table) => [uniqueIndex('accounts_email_unique').on(table.email), index('accounts_organisation_idx').on(table.organisationId)],
);

export const apiKeys = pgTable(
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
    scopes: json('scopes').$type<string[]>().notNull(),
    requestsPerMinute: integer('requests_per_minute').notNull(),
    requestsPerDay: integer('requests_per_day').notNull(),
    ...timestamps,
    expiresAt: epochMs('expires_at'),
    revokedAt: epochMs('revoked_at'),
    /** The key that replaced this one in a rotation (its successor); null until rotated. */
    replacedBy: text('replaced_by'),
  },
  (table) => [uniqueIndex('api_keys_hash_unique').on(table.hash), index('api_keys_account_idx').on(table.accountId)],
);

export const partnerKeys = pgTable(
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
    scopes: json('scopes').$type<string[] | null>(),
    requestsPerMinute: integer('requests_per_minute').notNull(),
    requestsPerDay: integer('requests_per_day').notNull(),
    ...timestamps,
    revokedAt: epochMs('revoked_at'),
  },
  (table) => [uniqueIndex('partner_keys_hash_unique').on(table.hash)],
);

export const rateLimitCounters = pgTable('rate_limit_counters', {
  keyId: text('key_id').primaryKey(),
  /** Unix seconds at which the current minute window started, and the requests counted in it. */
  minuteStart: bigint('minute_start', { mode: 'number' }).notNull(),
  minuteCount: integer('minute_count').notNull(),
  /** Unix seconds at which the current UTC day started, and the requests counted in it. */
  dayStart: bigint('day_start', { mode: 'number' }).notNull(),
  dayCount: integer('day_count').notNull(),
});

export const creditBalances = pgTable('credit_balances', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id),
  /** Tokens the account owns (1 credit = 1,000 tokens). */
  balanceTokens: tokens('balance_tokens').notNull(),
  /** Tokens held by open reservations; available = balance - reserved. */
  reservedTokens: tokens('reserved_tokens').notNull(),
  updatedAt: epochMs('updated_at').notNull(),
  /** A settlement that crosses below this emits `credits.low` (null: never), as on SQLite. */
  lowBalanceThresholdTokens: tokens('low_balance_threshold_tokens'),
});

export const creditReservations = pgTable(
  'credit_reservations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    tokens: tokens('tokens').notNull(),
    ...timestamps,
    /** A reservation still open after this time was left by a crash and is released by the sweeper. */
    expiresAt: epochMs('expires_at').notNull(),
    /** The process holding it; released when that process's lease ends (null: made before leases existed). */
    instanceId: text('instance_id'),
  },
  (table) => [index('credit_reservations_expiry_idx').on(table.expiresAt), index('credit_reservations_instance_idx').on(table.instanceId)],
);

export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    kind: text('kind', { enum: ['grant', 'usage', 'adjustment'] }).notNull(),
    deltaTokens: tokens('delta_tokens').notNull(),
    balanceAfterTokens: tokens('balance_after_tokens').notNull(),
    reference: text('reference'),
    ...timestamps,
  },
  // By account in id order: a page of the ledger, and the account's highest entry id (ledger-order.ts), are one seek.
  (table) => [index('credit_ledger_account_id_idx').on(table.accountId, table.id)],
);

export const usageRecords = pgTable(
  'usage_records',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    apiKeyId: text('api_key_id'),
    partnerKeyId: text('partner_key_id'),
    operation: text('operation').notNull(),
    resourceId: text('resource_id'),
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
    inputTokens: tokens('input_tokens').notNull(),
    outputTokens: tokens('output_tokens').notNull(),
    totalTokens: tokens('total_tokens').notNull(),
    chargedTokens: tokens('charged_tokens').notNull(),
    byok: boolean('byok').notNull(),
    durationMs: integer('duration_ms').notNull(),
    status: text('status', { enum: ['succeeded', 'failed', 'billing_failed'] }).notNull(),
    /**
     * A repeat of the request's model call (the judge's second call after an unreadable verdict):
     * a model call, but not a request of its own, so /usage counts the request once.
     */
    retry: boolean('retry').notNull().default(false),
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

export const contextCards = pgTable(
  'context_cards',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    title: text('title').notNull(),
    content: text('content').notNull(),
    category: text('category'),
    tags: json('tags').$type<string[]>().notNull(),
    description: text('description'),
    emoji: text('emoji'),
    ...timestamps,
    updatedAt: epochMs('updated_at').notNull(),
    ...versioned,
    /** What the row counts against the account's byte quota (src/db/content-size.ts); not part of the record. */
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('context_cards_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('context_cards_account_idx').on(table.accountId, table.id),
    index('context_cards_category_idx').on(table.accountId, table.category, table.id),
    index('context_cards_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const compositions = pgTable(
  'compositions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    description: text('description').notNull(),
    tags: json('tags').$type<string[]>().notNull(),
    template: text('template').notNull(),
    variables: json('variables').$type<{ name: string; required: boolean; default?: string; description?: string }[]>().notNull(),
    defaultModel: text('default_model'),
    timesUsed: integer('times_used').notNull().default(0),
    ...timestamps,
    updatedAt: epochMs('updated_at').notNull().default(0),
    ...versioned,
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('compositions_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('compositions_account_idx').on(table.accountId, table.id),
    index('compositions_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const skills = pgTable(
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
    updatedAt: epochMs('updated_at').notNull().default(0),
    ...versioned,
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('skills_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('skills_account_idx').on(table.accountId, table.id),
    index('skills_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

export const workflows = pgTable(
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
    definition: json('definition').$type<unknown>().notNull(),
    usageCount: integer('usage_count').notNull().default(0),
    ...timestamps,
    updatedAt: epochMs('updated_at').notNull().default(0),
    ...versioned,
    sizeBytes: integer('size_bytes').notNull().default(0),
  },
  (table) => [
    uniqueIndex('workflows_bundle_key_unique').on(table.accountId, table.bundleKey),
    index('workflows_account_idx').on(table.accountId, table.id),
    index('workflows_size_idx').on(table.accountId, table.sizeBytes),
  ],
);

/** Every version of every versioned resource (see the SQLite schema). */
export const resourceVersions = pgTable(
  'resource_versions',
  {
    resourceId: text('resource_id').notNull(),
    version: integer('version').notNull(),
    accountId: text('account_id').notNull(),
    kind: text('kind', { enum: ['contextCards', 'compositions', 'skills', 'workflows'] }).notNull(),
    content: json('content').$type<Record<string, unknown>>().notNull(),
    authorKeyId: text('author_key_id'),
    ...timestamps,
    deletedAt: epochMs('deleted_at'),
  },
  (table) => [primaryKey({ columns: [table.resourceId, table.version] }), index('resource_versions_deleted_idx').on(table.deletedAt)],
);

/** Named versions; `latest` is implicit and never stored. */
export const resourceLabels = pgTable(
  'resource_labels',
  {
    resourceId: text('resource_id').notNull(),
    label: text('label').notNull(),
    version: integer('version').notNull(),
    accountId: text('account_id').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.resourceId, table.label] })],
);

/**
 * Every execution of a workflow, composition, skill or persona, for its account to read back.
 * The payload (inputs, result and trace) is dropped after `retention.run_days`; the rest stays.
 */
export const runs = pgTable(
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
    inputTokens: tokens('input_tokens').notNull(),
    outputTokens: tokens('output_tokens').notNull(),
    totalTokens: tokens('total_tokens').notNull(),
    chargedTokens: tokens('charged_tokens').notNull(),
    durationMs: integer('duration_ms').notNull(),
    ...timestamps,
    payload: json('payload').$type<{ inputs: unknown; result: unknown }>(),
    /** Which kind of key started it (a partner key acts for the account), so an asynchronous run can act as it. */
    keyKind: text('key_kind', { enum: CREDENTIAL_KINDS }),
    /** How many times a process claimed it: a run cut off by a crash is retried once, then failed. */
    attempts: integer('attempts').notNull().default(0),
    /** The process (instance id) running it, while it runs asynchronously. */
    claimedBy: text('claimed_by'),
    startedAt: epochMs('started_at'),
    finishedAt: epochMs('finished_at'),
    /** Set when the owner asked to cancel it while it ran; the process running it aborts the call. */
    cancelRequestedAt: epochMs('cancel_requested_at'),
    /** The W3C trace context of the request that queued it, which the run's spans continue; null otherwise. */
    traceContext: json('trace_context').$type<RunTraceContext>(),
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

export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    /** Scoped per account: the same header value from two accounts never collides. */
    accountId: text('account_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    operation: text('operation').notNull(),
    requestHash: text('request_hash').notNull(),
    /** null while the first request is still running. */
    responseStatus: integer('response_status'),
    responseBody: json('response_body').$type<unknown>(),
    ...timestamps,
    expiresAt: epochMs('expires_at').notNull(),
    /** The process running the first request; its unfinished claim is released when that process's lease ends. */
    instanceId: text('instance_id'),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.idempotencyKey] }),
    index('idempotency_expiry_idx').on(table.expiresAt),
    index('idempotency_instance_idx').on(table.instanceId),
  ],
);

export const byokKeys = pgTable(
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
    revokedAt: epochMs('revoked_at'),
  },
  (table) => [index('byok_keys_owner_idx').on(table.accountId, table.organisationId, table.provider)],
);

export const sanitiserRules = pgTable(
  'sanitiser_rules',
  {
    id: text('id').primaryKey(),
    organisationId: text('organisation_id')
      .notNull()
      .references(() => organisations.id),
    ruleId: text('rule_id').notNull(),
    kind: text('kind', { enum: ['custom', 'override'] }).notNull(),
    definition: json('definition').$type<unknown>().notNull(),
    ...timestamps,
    updatedAt: epochMs('updated_at').notNull(),
  },
  (table) => [uniqueIndex('sanitiser_rules_org_rule_unique').on(table.organisationId, table.ruleId)],
);

/** Running Porch processes and their leases (src/core/instance.ts renews them). */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  startedAt: epochMs('started_at').notNull(),
  /** After this, the process counts as gone, and what it held is released. */
  leaseExpiresAt: epochMs('lease_expires_at').notNull(),
});

/** One row per execution in flight: the per-key in-flight limit counts the rows of live instances. */
export const executionSlots = pgTable(
  'execution_slots',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    instanceId: text('instance_id').notNull(),
    ...timestamps,
  },
  (table) => [index('execution_slots_key_idx').on(table.keyId), index('execution_slots_instance_idx').on(table.instanceId)],
);

/** Webhook endpoints, as on SQLite (src/db/sqlite/schema.ts): the secret only ever encrypted. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    url: text('url').notNull(),
    description: text('description'),
    events: json('events').$type<string[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    encryptedSecret: text('encrypted_secret').notNull(),
    previousEncryptedSecret: text('previous_encrypted_secret'),
    previousSecretExpiresAt: epochMs('previous_secret_expires_at'),
    ...timestamps,
    updatedAt: epochMs('updated_at').notNull(),
  },
  (table) => [index('webhook_endpoints_account_idx').on(table.accountId, table.id)],
);

/** The webhook outbox, as on SQLite; claimed with FOR UPDATE SKIP LOCKED. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    endpointId: text('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    accountId: text('account_id').notNull(),
    type: text('type').notNull(),
    payload: text('payload'),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: epochMs('next_attempt_at'),
    claimedUntil: epochMs('claimed_until'),
    lastAttemptAt: epochMs('last_attempt_at'),
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

/** Every webhook delivery attempt, as on SQLite. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    attemptedAt: epochMs('attempted_at').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  (table) => [index('webhook_attempts_delivery_idx').on(table.endpointId, table.eventId)],
);

/** Console sign-in: an account's password, as an argon2id PHC string (never the password). */
export const accountPasswords = pgTable('account_passwords', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id),
  passwordHash: text('password_hash').notNull(),
  updatedAt: epochMs('updated_at').notNull(),
});

/** Console sessions, shared by every process; the cookie's token is stored as its sha256 only. */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    ...timestamps,
    lastSeenAt: epochMs('last_seen_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    revokedAt: epochMs('revoked_at'),
    userAgent: text('user_agent'),
  },
  (table) => [uniqueIndex('console_sessions_token_unique').on(table.tokenHash), index('console_sessions_account_idx').on(table.accountId)],
);

/** One-time links of `porch account invite` and `reset-password` (sha256 of the token only). */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose', { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    ...timestamps,
    expiresAt: epochMs('expires_at').notNull(),
    usedAt: epochMs('used_at'),
  },
  (table) => [uniqueIndex('account_tokens_token_unique').on(table.tokenHash), index('account_tokens_account_idx').on(table.accountId)],
);

/**
 * The OAuth authorization server's objects (oidc-provider's models), keyed by the sha256 of their
 * id: for codes and tokens the id is the secret itself, so it is never stored.
 */
export const oauthRecords = pgTable(
  'oauth_records',
  {
    model: text('model').notNull(),
    idHash: text('id_hash').notNull(),
    /** The object's JSON without its id; text, so it reads back exactly as written. */
    payload: text('payload').notNull(),
    grantId: text('grant_id'),
    uidHash: text('uid_hash'),
    expiresAt: epochMs('expires_at'),
    consumedAt: epochMs('consumed_at'),
  },
  (table) => [
    primaryKey({ columns: [table.model, table.idHash] }),
    index('oauth_records_grant_idx').on(table.grantId),
    index('oauth_records_uid_idx').on(table.uidHash),
    index('oauth_records_expiry_idx').on(table.expiresAt),
  ],
);

/** Apps connected with OAuth: the grant an account approved and the `oauth` key its tokens act as. */
export const oauthConnections = pgTable(
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
    revokedAt: epochMs('revoked_at'),
  },
  (table) => [uniqueIndex('oauth_connections_grant_unique').on(table.grantId), index('oauth_connections_account_idx').on(table.accountId)],
);
