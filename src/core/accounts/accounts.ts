import { z } from 'zod';
import type { AccountRecord, ApiKeyRecord, GuardrailMode, GuardrailSeverity, OrganisationRecord, PartnerKeyRecord, Store } from '../../db/store.js';
import { KEY_GRACE_PERIOD_MS } from '../access/authenticator.js';
import { generateKey, PARTNER_KEY_PREFIX, USER_KEY_PREFIX } from '../access/key-material.js';
import { parseScopes, DEFAULT_KEY_SCOPES, partnerKeyScopes } from '../access/scopes.js';
import type { Clock } from '../clock.js';
import { creditsToTokens, tokensToCredits } from '../credits/credits.js';
import { PorchError } from '../errors.js';
import { PLANS, type Plan } from '../domain/plans.js';
import { newId } from '../ids.js';
import { isoOrNull, toIsoTimestamp } from '../views.js';

/** Spec §5: at most 5 keys per account (active ones; revoked keys do not count). */
export const MAX_ACTIVE_KEYS = 5;
/**
 * A rotation with a grace period leaves the old key working beside the new one: one key more
 * than the limit while it lasts, and no more (chained graceful rotations would otherwise give an
 * account any number of working keys, each with its own rate limits, for up to 24 h).
 */
export const MAX_WORKING_KEYS = MAX_ACTIVE_KEYS + 1;
/** Spec §8: the Expert plan's per-key limits. */
export const DEFAULT_REQUESTS_PER_MINUTE = 120;
export const DEFAULT_REQUESTS_PER_DAY = 20_000;

export interface AccountView {
  id: string;
  organisation_id: string;
  email: string;
  name: string | null;
  plan: Plan;
  downgraded_at: string | null;
  credits: number;
  created_at: string;
}

export interface KeyView {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  requests_per_minute: number;
  requests_per_day: number;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** The key's successor when it was rotated; null otherwise. */
  replaced_by: string | null;
}

export interface PartnerKeyView {
  id: string;
  organisation_id: string;
  name: string;
  prefix: string;
  /** What the key may call: its product surface, or an API key's default scopes when it was issued without one. */
  scopes: string[];
  requests_per_minute: number;
  requests_per_day: number;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedKey<View> {
  key: View;
  /** Shown once; only its hash is stored. */
  plaintext: string;
}

export interface RotatedKey extends CreatedKey<KeyView> {
  /** The key rotated away from: revoked, or active until its grace period ends. */
  previous: KeyView;
}

/** DECISIONS: a rotation may keep the old key working for up to 24 hours. */
export const MAX_ROTATION_GRACE_SECONDS = 86_400;

export interface CreateAccountInput {
  email: string;
  name?: string;
  plan: Plan;
  credits?: number;
  /** Join an existing organisation instead of getting a personal one. */
  organisationId?: string;
}

export interface CreateKeyInput {
  accountId: string;
  name?: string;
  scopes?: readonly string[];
  requestsPerMinute?: number;
  requestsPerDay?: number;
  expiresAt?: number;
}

export interface CreatePartnerKeyInput {
  organisationId: string;
  name?: string;
  scopes?: readonly string[];
  requestsPerMinute?: number;
  requestsPerDay?: number;
}

const emailSchema = z.email();
/** The largest per-key request limit: far above any real need, and exact in every engine's integer column. */
export const MAX_REQUEST_LIMIT = 1_000_000_000;
const limitSchema = z.number().int().min(1).max(MAX_REQUEST_LIMIT);

function checkLimit(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!limitSchema.safeParse(value).success) {
    throw new PorchError('VALIDATION_ERROR', `${what} must be a whole number from 1 to ${MAX_REQUEST_LIMIT.toLocaleString('en')}.`);
  }
  return value;
}

function keyStatus(key: ApiKeyRecord, now: number): KeyView['status'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * A key is rotated once: rotating it again during its grace period would add a second successor
 * the client never asked for, so the caller is pointed at the successor to rotate instead.
 */
function alreadyRotated(keyId: string, successorId: string): PorchError {
  return new PorchError('CONFLICT', `Key ${keyId} was already rotated; its successor is key ${successorId}. Rotate that key instead.`);
}

export function createAccountService(store: Store, clock: Clock) {
  async function requireAccount(id: string): Promise<AccountRecord> {
    const account = await store.accounts.findById(id);
    if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with id ${id}.`);
    return account;
  }

  const missingKey = (id: string) => new PorchError('RESOURCE_NOT_FOUND', `No API key with id ${id}.`);

  /**
   * An account holder's key. A connected app's credential reads as missing: it is disconnected
   * with the app (revoke_connected_app), and a key rotated from it would be an `oauth` key no
   * list shows and no limit counts.
   */
  async function requireUserKey(id: string): Promise<ApiKeyRecord> {
    const key = await store.apiKeys.findById(id);
    if (key?.kind !== 'user') throw missingKey(id);
    return key;
  }

  /**
   * The account holder's keys, as they stand: past a downgrade's grace period they are revoked for
   * good, and revoked here if no request has done it yet (regression: listed as active until one
   * did). Connected apps' credentials are connected apps (list_connected_apps), not keys.
   */
  async function userKeysOf(account: AccountRecord): Promise<ApiKeyRecord[]> {
    const now = clock.now();
    let keys = await store.apiKeys.listByAccount(account.id);
    const graceOver = account.plan !== 'expert' && account.downgradedAt !== null && now >= account.downgradedAt + KEY_GRACE_PERIOD_MS;
    if (graceOver && keys.some((key) => key.revokedAt === null)) {
      await store.apiKeys.revokeAllForAccount({ accountId: account.id, at: now });
      keys = await store.apiKeys.listByAccount(account.id);
    }
    return keys.filter((key) => key.kind === 'user');
  }

  async function accountView(account: AccountRecord): Promise<AccountView> {
    const balance = await store.credits.balance(account.id);
    return {
      id: account.id,
      organisation_id: account.organisationId,
      email: account.email,
      name: account.name,
      plan: account.plan,
      downgraded_at: isoOrNull(account.downgradedAt),
      credits: tokensToCredits(balance.balanceTokens - balance.reservedTokens),
      created_at: toIsoTimestamp(account.createdAt),
    };
  }

  function keyView(key: ApiKeyRecord): KeyView {
    return {
      id: key.id,
      account_id: key.accountId,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      requests_per_minute: key.requestsPerMinute,
      requests_per_day: key.requestsPerDay,
      status: keyStatus(key, clock.now()),
      created_at: toIsoTimestamp(key.createdAt),
      expires_at: isoOrNull(key.expiresAt),
      revoked_at: isoOrNull(key.revokedAt),
      replaced_by: key.replacedBy,
    };
  }

  function organisationView(organisation: OrganisationRecord) {
    return {
      id: organisation.id,
      name: organisation.name,
      eu_only_models: organisation.euOnlyModels,
      strict_byok: organisation.strictByok,
      owner_account_id: organisation.ownerAccountId,
      guardrail_inputs: organisation.guardrailInputs,
      guardrail_outputs: organisation.guardrailOutputs,
      guardrail_min_severity: organisation.guardrailMinSeverity,
    };
  }

  function partnerKeyView(key: PartnerKeyRecord): PartnerKeyView {
    return {
      id: key.id,
      organisation_id: key.organisationId,
      name: key.name,
      prefix: key.prefix,
      // As authenticateKey reads it (regression: shown as null, "(all)" in the CLI, while the key
      // held only the default scopes).
      scopes: [...partnerKeyScopes(key.scopes)],
      requests_per_minute: key.requestsPerMinute,
      requests_per_day: key.requestsPerDay,
      status: key.revokedAt === null ? 'active' : 'revoked',
      created_at: toIsoTimestamp(key.createdAt),
      revoked_at: isoOrNull(key.revokedAt),
    };
  }

  return {
    async createAccount(input: CreateAccountInput): Promise<AccountView> {
      const email = input.email.trim().toLowerCase();
      if (!emailSchema.safeParse(email).success) throw new PorchError('VALIDATION_ERROR', `"${input.email}" is not an email address.`);
      if (!PLANS.includes(input.plan)) throw new PorchError('VALIDATION_ERROR', `Plan must be one of ${PLANS.join(', ')}.`);
      const initialTokens = creditsToTokens(input.credits ?? 0, 'Initial credits');
      if (await store.accounts.findByEmail(email)) throw new PorchError('VALIDATION_ERROR', `An account with email ${email} already exists.`);
      const now = clock.now();
      const accountId = newId();
      let organisationId = input.organisationId;
      if (organisationId !== undefined && !(await store.organisations.findById(organisationId))) {
        throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
      }
      const organisation: OrganisationRecord | null =
        organisationId === undefined
          ? {
              id: newId(),
              name: input.name ?? email,
              euOnlyModels: false,
              strictByok: false,
              ownerAccountId: accountId,
              sanitiserRulesVersion: 0,
              guardrailInputs: 'off',
              guardrailOutputs: 'off',
              guardrailMinSeverity: 'warn',
              createdAt: now,
            }
          : null;
      organisationId ??= organisation?.id ?? '';
      const account: AccountRecord = {
        id: accountId,
        organisationId,
        email,
        name: input.name ?? null,
        plan: input.plan,
        downgradedAt: null,
        createdAt: now,
      };
      await store.accounts.create({ account, organisation, initialTokens, grantEntryId: newId() });
      return accountView(account);
    },

    async isEmailTaken(email: string): Promise<boolean> {
      return (await store.accounts.findByEmail(email.trim().toLowerCase())) !== null;
    },

    /** The account with this email (compared as stored: trimmed, lower-case). */
    async accountByEmail(email: string): Promise<AccountRecord> {
      const account = await store.accounts.findByEmail(email.trim().toLowerCase());
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', `No account with email ${email}.`);
      return account;
    },

    async countAccounts(): Promise<number> {
      return store.accounts.count();
    },

    async listAccounts(): Promise<AccountView[]> {
      return Promise.all((await store.accounts.list()).map(accountView));
    },

    async showAccount(id: string): Promise<AccountView & { keys: KeyView[] }> {
      const account = await requireAccount(id);
      return { ...(await accountView(account)), keys: (await userKeysOf(account)).map(keyView) };
    },

    /**
     * Leaving Expert starts the keys' grace period; returning within it restores them unchanged;
     * returning after it finds them revoked for good (they are revoked here if not already).
     */
    async setPlan(id: string, plan: Plan): Promise<AccountView> {
      if (!PLANS.includes(plan)) throw new PorchError('VALIDATION_ERROR', `Plan must be one of ${PLANS.join(', ')}.`);
      const account = await requireAccount(id);
      const now = clock.now();
      const graceOver = account.downgradedAt !== null && now >= account.downgradedAt + KEY_GRACE_PERIOD_MS;
      let downgradedAt = account.downgradedAt;
      if (account.plan === 'expert' && plan !== 'expert') downgradedAt = now;
      if (plan === 'expert') downgradedAt = null;
      const revokeKeysAt = account.plan !== 'expert' && graceOver ? now : null;
      const updated = await store.accounts.setPlan({ id, plan, downgradedAt, revokeKeysAt });
      return accountView(updated ?? account);
    },

    async createKey(input: CreateKeyInput): Promise<CreatedKey<KeyView>> {
      const account = await requireAccount(input.accountId);
      if (account.plan !== 'expert') {
        throw new PorchError('VALIDATION_ERROR', `Only Expert accounts may create API keys; this account is on the ${account.plan} plan.`);
      }
      const generated = generateKey(USER_KEY_PREFIX);
      const now = clock.now();
      const record: ApiKeyRecord = {
        id: newId(),
        accountId: account.id,
        kind: 'user',
        name: input.name?.trim() || 'API key',
        prefix: generated.prefix,
        hash: generated.hash,
        scopes: parseScopes(input.scopes ?? DEFAULT_KEY_SCOPES),
        requestsPerMinute: checkLimit(input.requestsPerMinute, DEFAULT_REQUESTS_PER_MINUTE, 'Requests per minute'),
        requestsPerDay: checkLimit(input.requestsPerDay, DEFAULT_REQUESTS_PER_DAY, 'Requests per day'),
        createdAt: now,
        expiresAt: input.expiresAt ?? null,
        revokedAt: null,
        replacedBy: null,
      };
      if (!(await store.apiKeys.insertIfBelowLimit({ key: record, maxActive: MAX_ACTIVE_KEYS, now }))) {
        throw new PorchError('VALIDATION_ERROR', `The account already has ${MAX_ACTIVE_KEYS} active keys, the most allowed; revoke one first.`);
      }
      return { key: keyView(record), plaintext: generated.plaintext };
    },

    async listKeys(accountId: string): Promise<KeyView[]> {
      return (await userKeysOf(await requireAccount(accountId))).map(keyView);
    },

    async revokeKey(keyId: string): Promise<KeyView> {
      await requireUserKey(keyId);
      const key = await store.apiKeys.revoke({ id: keyId, at: clock.now() });
      if (!key) throw missingKey(keyId);
      return keyView(key);
    },

    /**
     * Issues a new key with the same settings and retires the old one, atomically: revoked at
     * once, or, with `graceSeconds`, left working until then (its expiry is set, so clients can
     * move to the new key without a gap). The new key keeps the old one's expiry, if it had one.
     */
    async rotateKey(keyId: string, options: { graceSeconds?: number } = {}): Promise<RotatedKey> {
      const graceSeconds = options.graceSeconds ?? 0;
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_ROTATION_GRACE_SECONDS) {
        throw new PorchError('VALIDATION_ERROR', `The grace period must be a whole number of seconds from 0 to ${MAX_ROTATION_GRACE_SECONDS}.`);
      }
      const old = await requireUserKey(keyId);
      const now = clock.now();
      // A key that is not rotatable now (rotated before, revoked or expired) conflicts with the
      // key's state, whichever it is (regression: a revoked key was a 400, a rotated one a 409).
      if (old.replacedBy !== null) throw alreadyRotated(keyId, old.replacedBy);
      const status = keyStatus(old, now);
      if (status !== 'active') {
        throw new PorchError('CONFLICT', `Key ${keyId} is ${status}; only an active key can be rotated. Create a new key instead.`);
      }
      const generated = generateKey(USER_KEY_PREFIX);
      const replacement: ApiKeyRecord = {
        ...old,
        id: newId(),
        prefix: generated.prefix,
        hash: generated.hash,
        createdAt: now,
        revokedAt: null,
        replacedBy: null,
      };
      const graceUntil = graceSeconds > 0 ? now + graceSeconds * 1_000 : undefined;
      const replaced = await store.apiKeys.replace({
        oldId: old.id,
        replacement,
        at: now,
        ...(graceUntil === undefined ? {} : { graceUntil }),
        maxWorking: MAX_WORKING_KEYS,
      });
      if (replaced === 'inactive') {
        const current = await store.apiKeys.findById(keyId);
        if (current?.replacedBy) throw alreadyRotated(keyId, current.replacedBy);
        throw new PorchError('CONFLICT', `Key ${keyId} was revoked meanwhile; nothing was rotated.`);
      }
      if (replaced === 'full') {
        throw new PorchError(
          'VALIDATION_ERROR',
          `The account already has ${MAX_WORKING_KEYS} working keys, counting those still in a rotation's grace period; rotate without a grace period, or once a grace period has ended. Nothing was rotated.`,
        );
      }
      const previous = await store.apiKeys.findById(old.id);
      return { key: keyView(replacement), plaintext: generated.plaintext, previous: keyView(previous ?? old) };
    },

    async createPartnerKey(input: CreatePartnerKeyInput): Promise<CreatedKey<PartnerKeyView>> {
      if (!(await store.organisations.findById(input.organisationId))) {
        throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${input.organisationId}.`);
      }
      const generated = generateKey(PARTNER_KEY_PREFIX);
      const record: PartnerKeyRecord = {
        id: newId(),
        organisationId: input.organisationId,
        name: input.name?.trim() || 'Partner key',
        prefix: generated.prefix,
        hash: generated.hash,
        scopes: input.scopes === undefined ? null : parseScopes(input.scopes),
        requestsPerMinute: checkLimit(input.requestsPerMinute, DEFAULT_REQUESTS_PER_MINUTE, 'Requests per minute'),
        requestsPerDay: checkLimit(input.requestsPerDay, DEFAULT_REQUESTS_PER_DAY, 'Requests per day'),
        createdAt: clock.now(),
        revokedAt: null,
      };
      await store.partnerKeys.insert(record);
      return { key: partnerKeyView(record), plaintext: generated.plaintext };
    },

    async revokePartnerKey(keyId: string): Promise<PartnerKeyView> {
      const key = await store.partnerKeys.revoke({ id: keyId, at: clock.now() });
      if (!key) throw new PorchError('RESOURCE_NOT_FOUND', `No partner key with id ${keyId}.`);
      return partnerKeyView(key);
    },

    /**
     * Sets the organisation's policies: EU-only models, strict BYOK, and the guardrails every
     * model call passes (core/sanitiser/guardrails.ts). Only the fields given change.
     */
    async setOrganisationPolicy(
      organisationId: string,
      policy: {
        euOnlyModels?: boolean;
        strictByok?: boolean;
        guardrailInputs?: GuardrailMode;
        guardrailOutputs?: GuardrailMode;
        guardrailMinSeverity?: GuardrailSeverity;
      },
    ) {
      const updated = await store.organisations.update({ id: organisationId, changes: policy });
      if (!updated) throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
      return organisationView(updated);
    },

    /** The organisation and its policies, as `setOrganisationPolicy` answers them. */
    async showOrganisation(organisationId: string) {
      const found = await store.organisations.findById(organisationId);
      if (!found) throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
      return organisationView(found);
    },

    /** The organisation's partner keys, revoked ones included (never their plaintext). */
    async listPartnerKeys(organisationId: string): Promise<PartnerKeyView[]> {
      if (!(await store.organisations.findById(organisationId))) {
        throw new PorchError('RESOURCE_NOT_FOUND', `No organisation with id ${organisationId}.`);
      }
      return (await store.partnerKeys.listByOrganisation(organisationId)).map(partnerKeyView);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
