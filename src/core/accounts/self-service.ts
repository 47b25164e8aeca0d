/**
 * What an account holder can do for themselves with a key: see the account and the models it may
 * name, and manage the account's own API keys. A key can never give another key more than it holds itself: scopes
 * must be a subset of the calling key's, limits at most the calling key's.
 */
import type { ApiKeyRecord, CredentialKind, Store } from '../../db/store.js';
import type { AiGateway } from '../ai/ai-gateway.js';
import type { ByokService } from '../byok/byok.js';
import type { Plan } from '../domain/plans.js';
import { refuseConnectedApp, requireAccountHolder, type Caller } from '../access/caller.js';
import { ALL_SCOPES, DEFAULT_KEY_SCOPES, parseScopes } from '../access/scopes.js';
import type { Clock } from '../clock.js';
import { tokensToCredits } from '../credits/credits.js';
import { PorchError } from '../errors.js';
import { isoOrNull, toIsoTimestamp } from '../views.js';
import { type AccountService, DEFAULT_REQUESTS_PER_DAY, DEFAULT_REQUESTS_PER_MINUTE, type KeyView } from './accounts.js';
import { type OrganisationPoliciesView, policiesOf } from './organisation-admin.js';

export interface KeyLimitsView {
  requests_per_minute: number;
  requests_per_day: number;
}

export interface OwnKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  limits: KeyLimitsView;
  status: KeyView['status'];
  created_at: string;
  /** The start of the last minute in which the key made a request (minute precision); null when never used. */
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
}

export interface AccountSelfView {
  account: { id: string; email: string; name: string | null; plan: Plan; created_at: string };
  organisation: { id: string; name: string; policies: OrganisationPoliciesView };
  credits: { balance_tokens: number; reserved_tokens: number; available_tokens: number; available_credits: number };
  key: {
    id: string;
    kind: CredentialKind;
    /** An app connected with OAuth: its access token acts as this credential, which no key list shows. */
    connected_app: boolean;
    name: string;
    scopes: string[];
    limits: KeyLimitsView & { max_in_flight: number };
  };
}

export interface OwnKeyCreation {
  name?: string | undefined;
  scopes?: string[] | undefined;
  requests_per_minute?: number | undefined;
  requests_per_day?: number | undefined;
  /** ISO 8601; validated by the operation's schema. */
  expires_at?: string | undefined;
}

export interface CreatedOwnKey {
  key: OwnKeyView;
  /** The key itself, shown this once. */
  api_key: string;
}

export interface SelfServiceDependencies {
  store: Store;
  accounts: AccountService;
  /** Which models there are and which an account may use. */
  ai: Pick<AiGateway, 'usableModels' | 'defaultModel' | 'isEcho'>;
  /** Whose BYOK keys pay for which provider's calls. */
  byok: Pick<ByokService, 'hasActiveKey'>;
  clock: Clock;
  maxInFlightPerKey: number;
}

export interface ModelView {
  id: string;
  provider: string;
  region: string;
  max_output_tokens: number;
  context_window: number | null;
  default: boolean;
  /** A BYOK key of the account or its organisation pays for its calls (no credits). */
  byok: boolean;
}

export interface ModelsView {
  /** What a call naming no model (and whose resource names none) runs on; null when this account may not use it. */
  default_model: string | null;
  models: ModelView[];
}

function ownKeyView(key: KeyView, lastCountedSeconds: number | undefined): OwnKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    limits: { requests_per_minute: key.requests_per_minute, requests_per_day: key.requests_per_day },
    status: key.status,
    created_at: key.created_at,
    last_used_at: isoOrNull(lastCountedSeconds === undefined ? null : lastCountedSeconds * 1_000),
    expires_at: key.expires_at,
    revoked_at: key.revoked_at,
    replaced_by: key.replaced_by,
  };
}

/** A limit for a new key: the caller's own when not given, never above it. */
/**
 * What a caller may give a key it creates: a key, at most what it holds itself; a console session
 * (the account holder), any scope, and at most the limits the operator's keys get by default.
 * When no scopes are asked for, either gets a new key's default scopes, a key only those it holds:
 * the scopes granted only explicitly (write:*, manage:*, read:usage) are never copied unasked
 * (regression: a key without `scopes` inherited every scope of the key that made it).
 */
function keyCreationBounds(credential: Caller['credential']): {
  scopes: readonly string[];
  defaultScopes: readonly string[];
  requestsPerMinute: number;
  requestsPerDay: number;
} {
  if (credential.kind !== 'session') {
    return { ...credential, defaultScopes: DEFAULT_KEY_SCOPES.filter((scope) => credential.scopes.includes(scope)) };
  }
  return { scopes: ALL_SCOPES, defaultScopes: DEFAULT_KEY_SCOPES, requestsPerMinute: DEFAULT_REQUESTS_PER_MINUTE, requestsPerDay: DEFAULT_REQUESTS_PER_DAY };
}

/** Refuses scopes the calling credential does not hold: a key never hands out more than it has. */
function requireScopesHeld(own: { scopes: readonly string[] }, scopes: readonly string[], what: string): void {
  const beyond = scopes.filter((scope) => !own.scopes.includes(scope));
  if (beyond.length > 0) {
    throw new PorchError(
      'INSUFFICIENT_PERMISSIONS',
      `A key can only ${what} it holds itself; this key lacks: ${beyond.join(', ')}. Use a key that holds them.`,
    );
  }
}

/** A limit for a new key: the bound when not given, never above it (`bound` says whose it is). */
function limitWithin(requested: number | undefined, own: number, field: string, bound: string): number {
  if (requested === undefined) return own;
  if (requested > own) throw new PorchError('VALIDATION_ERROR', `Invalid request: ${field}: must be at most ${own}, ${bound}.`);
  return requested;
}

/** Whose limit bounds a new key's: the calling key's, or, in the console, the default a key gets. */
function boundOf(credential: Caller['credential']): string {
  return credential.kind === 'session' ? 'the most a key created in the console may have' : "the calling key's own limit";
}

export function createSelfService({ store, accounts, ai, byok, clock, maxInFlightPerKey }: SelfServiceDependencies) {
  const missingKey = (id: string) => new PorchError('RESOURCE_NOT_FOUND', `No API key with id ${id}.`);

  /** Another account's key reads exactly as a missing one. */
  async function requireOwnKey(caller: Caller, id: string): Promise<ApiKeyRecord> {
    const key = await store.apiKeys.findById(id);
    // A connected app's credential is not a key: it is revoked with revoke_connected_app.
    if (!key || key.accountId !== caller.account.id || key.kind !== 'user') throw missingKey(id);
    return key;
  }

  async function withLastUse(keys: KeyView[]): Promise<OwnKeyView[]> {
    const lastCounted = await store.rateLimits.lastCounted(keys.map((key) => key.id));
    return keys.map((key) => ownKeyView(key, lastCounted.get(key.id)));
  }

  /** The record of the key that authenticated the caller, for its name; a console session has none. */
  async function credentialRecord(credential: Caller['credential']): Promise<{ name: string } | null> {
    if (credential.kind === 'api_key') return store.apiKeys.findById(credential.id);
    if (credential.kind === 'partner_key') return store.partnerKeys.findById(credential.id);
    return { name: 'Console session' };
  }

  /** When the calling key expires (null: never, or not a key: a session, an OAuth token, a partner). */
  async function expiryOf(caller: Caller): Promise<number | null> {
    return caller.credential.kind === 'api_key' ? ((await store.apiKeys.findById(caller.credential.id))?.expiresAt ?? null) : null;
  }

  return {
    async account(caller: Caller): Promise<AccountSelfView> {
      const { account, credential } = caller;
      const organisation = await store.organisations.findById(account.organisationId);
      if (!organisation) throw new PorchError('INTERNAL_ERROR', 'The account has no organisation.');
      const balance = await store.credits.balance(account.id);
      const keyRecord = await credentialRecord(credential);
      const available = balance.balanceTokens - balance.reservedTokens;
      return {
        account: { id: account.id, email: account.email, name: account.name, plan: account.plan, created_at: toIsoTimestamp(account.createdAt) },
        organisation: {
          id: organisation.id,
          name: organisation.name,
          policies: policiesOf(organisation),
        },
        credits: {
          balance_tokens: balance.balanceTokens,
          reserved_tokens: balance.reservedTokens,
          available_tokens: available,
          available_credits: tokensToCredits(available),
        },
        key: {
          id: credential.id,
          kind: credential.kind,
          connected_app: credential.connectedApp === true,
          name: keyRecord?.name ?? '',
          scopes: [...credential.scopes],
          limits: { requests_per_minute: credential.requestsPerMinute, requests_per_day: credential.requestsPerDay, max_in_flight: maxInFlightPerKey },
        },
      };
    },

    /** The models the caller's plan and organisation allow, in configuration order: those a call may name. */
    async models(caller: Caller): Promise<ModelsView> {
      const organisation = await store.organisations.findById(caller.account.organisationId);
      if (!organisation) throw new PorchError('INTERNAL_ERROR', 'The account has no organisation.');
      const allowed = ai.usableModels(caller.account.plan, organisation.euOnlyModels);
      const providers = [...new Set(allowed.filter((model) => !ai.isEcho(model.id)).map((model) => model.provider))];
      const keyed = new Set<string>();
      for (const provider of providers) if (await byok.hasActiveKey(caller.account, provider)) keyed.add(provider);
      // Under strict BYOK a provider without a key is refused (403), so its models cannot be named
      // (regression: listed all the same); echo runs locally and needs no key.
      const usable = organisation.strictByok ? allowed.filter((model) => ai.isEcho(model.id) || keyed.has(model.provider)) : allowed;
      return {
        default_model: usable.some((model) => model.isDefault) ? ai.defaultModel : null,
        models: usable.map((model) => ({
          id: model.id,
          provider: model.provider,
          region: model.region,
          max_output_tokens: model.maxOutputTokens,
          context_window: model.contextWindow,
          default: model.isDefault,
          byok: keyed.has(model.provider),
        })),
      };
    },

    async listKeys(caller: Caller): Promise<OwnKeyView[]> {
      requireAccountHolder(caller, "list an account's keys");
      return withLastUse(await accounts.listKeys(caller.account.id));
    },

    async createKey(caller: Caller, input: OwnKeyCreation): Promise<CreatedOwnKey> {
      requireAccountHolder(caller, "create an account's keys");
      refuseConnectedApp(caller, "create an account's keys");
      const own = keyCreationBounds(caller.credential);
      if (input.scopes === undefined && own.defaultScopes.length === 0) {
        // A key holding only explicit-only scopes has no defaults to give: a key with no scopes could call nothing.
        throw new PorchError(
          'VALIDATION_ERROR',
          'Invalid request: scopes: the calling key holds none of the default key scopes, so the new key needs its scopes named; send "scopes" with the ones it should hold.',
        );
      }
      const scopes = input.scopes === undefined ? [...own.defaultScopes] : parseScopes(input.scopes);
      requireScopesHeld(own, scopes, 'create keys with scopes');
      const requested = input.expires_at === undefined ? undefined : Date.parse(input.expires_at);
      if (requested !== undefined && requested <= clock.now()) throw new PorchError('VALIDATION_ERROR', 'Invalid request: expires_at: must be in the future.');
      // Nor does a key outlive the key that made it: a key given out for a week cannot mint a
      // permanent one. Its own expiry is the default and the latest allowed.
      const ownExpiry = await expiryOf(caller);
      if (ownExpiry !== null && requested !== undefined && requested > ownExpiry) {
        throw new PorchError('VALIDATION_ERROR', `Invalid request: expires_at: must be at most ${toIsoTimestamp(ownExpiry)}, when the calling key expires.`);
      }
      const expiresAt = requested ?? ownExpiry ?? undefined;
      const created = await accounts.createKey({
        accountId: caller.account.id,
        ...(input.name === undefined ? {} : { name: input.name }),
        scopes,
        requestsPerMinute: limitWithin(input.requests_per_minute, own.requestsPerMinute, 'requests_per_minute', boundOf(caller.credential)),
        requestsPerDay: limitWithin(input.requests_per_day, own.requestsPerDay, 'requests_per_day', boundOf(caller.credential)),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      });
      return { key: ownKeyView(created.key, undefined), api_key: created.plaintext };
    },

    async rotateKey(caller: Caller, id: string, graceSeconds: number): Promise<CreatedOwnKey & { previous: OwnKeyView }> {
      requireAccountHolder(caller, "rotate an account's keys");
      refuseConnectedApp(caller, "rotate an account's keys");
      const old = await requireOwnKey(caller, id);
      // The new key is answered to the caller, so a key may rotate only keys that hold no more than
      // it does (scopes and limits). The account holder signed in to the console may rotate any.
      const own = keyCreationBounds(caller.credential);
      requireScopesHeld(own, old.scopes, 'rotate keys whose scopes');
      if (caller.credential.kind !== 'session' && (old.requestsPerMinute > own.requestsPerMinute || old.requestsPerDay > own.requestsPerDay)) {
        throw new PorchError(
          'INSUFFICIENT_PERMISSIONS',
          `A key can only rotate keys whose limits are at most its own (${own.requestsPerMinute} a minute, ${own.requestsPerDay} a day); key ${id} has ${old.requestsPerMinute} and ${old.requestsPerDay}. Use a key with higher limits.`,
        );
      }
      // Nor a key that outlives it: the successor keeps the old key's expiry (regression: a key
      // given out for ten minutes rotated a permanent one and held its successor for good).
      const ownExpiry = await expiryOf(caller);
      if (ownExpiry !== null && (old.expiresAt === null || old.expiresAt > ownExpiry)) {
        throw new PorchError(
          'INSUFFICIENT_PERMISSIONS',
          `A key can only rotate keys that expire no later than it does (${toIsoTimestamp(ownExpiry)}); key ${id} ${old.expiresAt === null ? 'never expires' : `expires ${toIsoTimestamp(old.expiresAt)}`}. Use a key that expires later, or none.`,
        );
      }
      const rotated = await accounts.rotateKey(id, { graceSeconds });
      const [previous] = await withLastUse([rotated.previous]);
      return { key: ownKeyView(rotated.key, undefined), api_key: rotated.plaintext, previous: previous ?? ownKeyView(rotated.previous, undefined) };
    },

    /** Revoking the calling key itself is allowed: this request completes, the next one is refused. */
    async revokeKey(caller: Caller, id: string): Promise<OwnKeyView> {
      requireAccountHolder(caller, "revoke an account's keys");
      await requireOwnKey(caller, id);
      const [revoked] = await withLastUse([await accounts.revokeKey(id)]);
      if (!revoked) throw missingKey(id);
      return revoked;
    },
  };
}

export type SelfService = ReturnType<typeof createSelfService>;
