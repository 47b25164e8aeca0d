import type { AccountRecord, ApiKeyRecord, CredentialKind, PartnerKeyRecord, Store } from '../../db/store.js';
import { sessionCredential } from './console-sessions.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Caller } from './caller.js';
import { hashesEqual, hashKey, PARTNER_KEY_PREFIX, USER_KEY_PREFIX } from './key-material.js';
import type { OAuthService } from './oauth.js';
import { DEFAULT_KEY_SCOPES } from './scopes.js';

/** After leaving Expert, keys are suspended for this long, then revoked for good (spec §3). */
export const KEY_GRACE_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;

/** Keys longer than this cannot be ours; refusing them early keeps hashing cost bounded. */
const MAX_KEY_LENGTH = 256;

export interface Credentials {
  /** The X-API-Key value (or the Bearer token), as sent. */
  apiKey: string | undefined;
  /** X-Porch-Account: the account a partner key acts for. */
  actingAccountId?: string | undefined;
  /**
   * The URL of the protected resource the credentials were presented to. An OAuth access token
   * works only for the resource it was issued for (RFC 8707), the MCP endpoint: the REST door
   * names its API base here, so such a token is refused there. Unset: the MCP endpoint.
   */
  resource?: string | undefined;
  /**
   * Why the headers present no usable key although they present something (two keys, another
   * Authorization scheme): the refusal says so instead of "no key" or using one silently.
   */
  problem?: { code: 'INVALID_API_KEY'; message: string } | undefined;
}

/** How OAuth access tokens are checked: the connected apps, and the resource tokens are issued for. */
export interface OAuthAuthentication {
  oauth: Pick<OAuthService, 'findAccessToken'>;
  /** `{public_url}/api/public/mcp`. */
  mcpResource: string;
}

/** One message for every unusable key, so unknown, revoked and malformed keys are indistinguishable. */
function invalidKey(): PorchError {
  return new PorchError('INVALID_API_KEY', 'The API key is invalid, expired or revoked.');
}

/**
 * X-Porch-Account, when sent, must be an account id, whichever key came with it: a user key has
 * no use for it, but the OpenAPI document declares it a uuid for every keyed operation, and a
 * malformed one accepted here would make the server and the document disagree. Checked only
 * once the key is known good, so a bad key is refused the same way with or without the header.
 */
function refuseMalformedActingAccount(actingAccountId: string | undefined): void {
  if (actingAccountId !== undefined && !isUuid(actingAccountId)) {
    throw new PorchError('VALIDATION_ERROR', 'X-Porch-Account must be an account id (a uuid).');
  }
}

/** Who started a queued run: the key (and its kind) and the account it acted for. */
export interface RunIdentity {
  keyId: string;
  keyKind: CredentialKind;
  accountId: string;
}

function partnerKeyCredential(key: PartnerKeyRecord): Caller['credential'] {
  return {
    kind: 'partner_key',
    id: key.id,
    scopes: key.scopes ?? DEFAULT_KEY_SCOPES,
    requestsPerMinute: key.requestsPerMinute,
    requestsPerDay: key.requestsPerDay,
  };
}

function apiKeyCredential(key: ApiKeyRecord): Caller['credential'] {
  return {
    kind: 'api_key',
    id: key.id,
    scopes: key.scopes,
    requestsPerMinute: key.requestsPerMinute,
    requestsPerDay: key.requestsPerDay,
    ...(key.kind === 'oauth' ? { connectedApp: true } : {}),
  };
}

export interface Authenticator {
  authenticate(credentials: Credentials): Promise<Caller>;
  /**
   * The caller a queued run acts as, checked again when the run starts, as a request would be:
   * a key revoked or expired since, or an account no longer on Expert, refuses the run.
   */
  resume(identity: RunIdentity): Promise<Caller>;
}

export function createAuthenticator(store: Store, clock: Clock, oauthAuthentication?: OAuthAuthentication): Authenticator {
  /**
   * The plan rule of spec §3: a key works only while its account is on Expert. Inside the grace
   * period after a downgrade the keys are suspended; once it ends they are revoked for good.
   */
  /**
   * The plan rule. Past the downgrade's grace period the account's own keys are revoked for good,
   * so a key of the account is refused as one; a partner key acting for it is not the account's
   * and stays valid: it is told the account is not on Expert, as during the grace period.
   */
  async function checkPlan(account: AccountRecord, now: number, credential: 'own' | 'partner' = 'own'): Promise<void> {
    if (account.plan === 'expert') return;
    if (account.downgradedAt !== null && now >= account.downgradedAt + KEY_GRACE_PERIOD_MS) {
      await store.apiKeys.revokeAllForAccount({ accountId: account.id, at: now });
      if (credential === 'own') throw invalidKey();
    }
    throw new PorchError('API_EXPERT_ONLY', 'The API is available on the Expert plan only; this account is not on Expert.');
  }

  return {
    async resume({ keyId, keyKind, accountId }) {
      const now = clock.now();
      const account = await store.accounts.findById(accountId);
      if (!account) throw invalidKey();
      if (keyKind === 'session') {
        // A run queued from the console runs while its session lasts; signing out cancels what has not started.
        const session = await store.signIn.findSession(keyId);
        if (!session || session.accountId !== account.id || session.revokedAt !== null || session.expiresAt <= now) throw invalidKey();
        return { account, credential: sessionCredential(session) };
      }
      if (keyKind === 'partner_key') {
        const key = await store.partnerKeys.findById(keyId);
        if (!key || key.revokedAt !== null || key.organisationId !== account.organisationId) throw invalidKey();
        await checkPlan(account, now, 'partner');
        return { account, credential: partnerKeyCredential(key) };
      }
      const key = await store.apiKeys.findById(keyId);
      if (!key || key.accountId !== account.id || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now)) throw invalidKey();
      await checkPlan(account, now);
      return { account, credential: apiKeyCredential(key) };
    },

    async authenticate({ apiKey, actingAccountId: sentAccountId, resource, problem }) {
      if (problem !== undefined) throw new PorchError(problem.code, problem.message);
      // Ids are stored in lower case; a uuid means the same in either (regression: 403 "not in this organisation").
      const actingAccountId = sentAccountId?.toLowerCase();
      if (apiKey === undefined || apiKey.trim() === '') {
        throw new PorchError('MISSING_API_KEY', 'No API key was sent.');
      }
      const candidate = apiKey.trim().slice(0, MAX_KEY_LENGTH);
      // Every path hashes and looks up once, so a malformed key costs the same as an unknown one.
      const hash = hashKey(candidate);
      const now = clock.now();

      if (candidate.startsWith(PARTNER_KEY_PREFIX)) {
        const key = await store.partnerKeys.findUsableByHash(hash);
        if (!key || !hashesEqual(key.hash, hash)) throw invalidKey();
        const organisation = await store.organisations.findById(key.organisationId);
        const accountId = actingAccountId ?? organisation?.ownerAccountId ?? null;
        refuseMalformedActingAccount(actingAccountId);
        const account = accountId ? await store.accounts.findById(accountId) : null;
        if (!account || account.organisationId !== key.organisationId) {
          throw new PorchError('ACCESS_DENIED', "The account in X-Porch-Account is not in this partner key's organisation.");
        }
        await checkPlan(account, now, 'partner');
        return { account, credential: partnerKeyCredential(key) };
      }

      if (!candidate.startsWith(USER_KEY_PREFIX) && oauthAuthentication !== undefined) {
        // Not a key of ours by its shape: an OAuth access token (opaque), found by its hash with
        // its connection's credential in one lookup; revoked connections and expired tokens are
        // filtered out by that query, as revoked keys are below.
        const found = await oauthAuthentication.oauth.findAccessToken(candidate);
        if (!found) throw invalidKey();
        const { mcpResource } = oauthAuthentication;
        if (found.audience !== mcpResource) throw invalidKey();
        if ((resource ?? mcpResource) !== mcpResource) {
          throw new PorchError(
            'INVALID_API_KEY',
            `OAuth access tokens work only on the MCP endpoint (${mcpResource}); call the REST API with an API key (mdi_...).`,
          );
        }
        const account = await store.accounts.findById(found.key.accountId);
        if (!account) throw invalidKey();
        refuseMalformedActingAccount(actingAccountId);
        await checkPlan(account, now);
        return { account, credential: apiKeyCredential(found.key) };
      }

      // Revoked and expired keys are filtered out by the query itself: reading their row and
      // deciding here made them measurably slower to refuse than unknown keys.
      const found = await store.apiKeys.findUsableByHash({ hash, now });
      if (!found || !candidate.startsWith(USER_KEY_PREFIX) || !hashesEqual(found.key.hash, hash)) throw invalidKey();
      const { key, account } = found;
      refuseMalformedActingAccount(actingAccountId);
      await checkPlan(account, now);
      return { account, credential: apiKeyCredential(key) };
    },
  };
}
