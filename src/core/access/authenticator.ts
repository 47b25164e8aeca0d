import type { AccountRecord, ApiKeyRecord, CredentialKind, PartnerKeyRecord, Store } from '../../db/store.js';
import { sessionCredential } from './console-sessions.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Caller } from './caller.js';
import { hashesEqual, hashKey, PARTNER_KEY_PREFIX, USER_KEY_PREFIX } from './key-material.js';
import type { OAuthService } from './oauth.js';
import { partnerKeyScopes } from './scopes.js';

/** After leaving Expert, keys are suspended for this long, then revoked for good (spec §3). */
export const KEY_GRACE_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;

/** Keys longer than this cannot be ours; refusing them early keeps hashing cost bounded. */
const MAX_KEY_LENGTH = 256;

export interface Credentials {
  /** The X-API-Key value (or the Bearer token), as sent. */
  apiKey: string | undefined;
  /** X-Porch-Account: the account a partner key acts for, as sent (blank included: it is refused, never the owner). */
  actingAccountId?: string | undefined;
  /**
   * Why X-Porch-Account cannot be read although it was sent (the header repeated): refused as a
   * malformed value is, once the key is known good, never one of its values used.
   */
  actingAccountProblem?: string | undefined;
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
 * X-Porch-Account, when sent, must be one account id, whichever key came with it: a user key has
 * no use for it, but the OpenAPI document declares it a uuid for every keyed operation, and a
 * malformed one accepted here would make the server and the document disagree. A blank value is
 * refused too, not read as "no header" (regression: a partner whose code sent an empty value for
 * a missing user acted for the organisation's owner and spent the owner's credits); only an
 * absent header means the owner. Checked only once the key is known good, so a bad key is
 * refused the same way with or without the header.
 */
function actingAccountRefusal(actingAccountId: string | undefined, problem: string | undefined): PorchError | null {
  if (problem !== undefined) return new PorchError('VALIDATION_ERROR', problem);
  if (actingAccountId === undefined || isUuid(actingAccountId)) return null;
  if (actingAccountId.trim() === '') {
    return new PorchError(
      'VALIDATION_ERROR',
      "X-Porch-Account is empty; send an account id (a uuid), or leave the header out to act for the organisation's owner.",
    );
  }
  return new PorchError('VALIDATION_ERROR', 'X-Porch-Account must be an account id (a uuid).');
}

/**
 * A key that is good, refused only for the account it would act for (X-Porch-Account malformed,
 * outside its organisation, not on Expert): the key's credential comes with the refusal, so the
 * request is counted against the key's limits and its answer reports them, as every answer to an
 * authenticated key does (DECISIONS.md, Headers, limits, small rules).
 */
export interface AccountRefusal {
  refusal: PorchError;
  credential: Caller['credential'];
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
    scopes: partnerKeyScopes(key.scopes),
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
  /** The caller the credentials present; throws the refusal, whether of the key or of the account it names. */
  authenticate(credentials: Credentials): Promise<Caller>;
  /**
   * `authenticate`, answering a refusal of the account a good key names as a value that carries
   * the key's credential; a refusal of the key itself (missing, unknown, revoked) is still thrown.
   */
  authenticateKey(credentials: Credentials): Promise<Caller | AccountRefusal>;
  /**
   * The caller a queued run acts as, checked again when the run starts, as a request would be:
   * a key revoked or expired since, or an account no longer on Expert, refuses the run.
   */
  resume(identity: RunIdentity): Promise<Caller>;
}

export function createAuthenticator(store: Store, clock: Clock, oauthAuthentication?: OAuthAuthentication): Authenticator {
  /**
   * The plan rule of spec §3: a key works only while its account is on Expert. Inside the grace
   * period after a downgrade the keys are suspended; once it ends they are revoked for good, so a
   * key of the account is refused as one (thrown). A partner key acting for it is not the
   * account's and stays valid: it is told the account is not on Expert, as during the grace
   * period. Answers that refusal, or null when the account is on Expert.
   */
  async function planRefusal(account: AccountRecord, now: number, credential: 'own' | 'partner' = 'own'): Promise<PorchError | null> {
    if (account.plan === 'expert') return null;
    if (account.downgradedAt !== null && now >= account.downgradedAt + KEY_GRACE_PERIOD_MS) {
      await store.apiKeys.revokeAllForAccount({ accountId: account.id, at: now });
      if (credential === 'own') throw invalidKey();
    }
    return new PorchError('API_EXPERT_ONLY', 'The API is available on the Expert plan only; this account is not on Expert.');
  }

  async function checkPlan(account: AccountRecord, now: number, credential: 'own' | 'partner' = 'own'): Promise<void> {
    const refusal = await planRefusal(account, now, credential);
    if (refusal) throw refusal;
  }

  /** The caller of a good key of the account, or the refusal of the X-Porch-Account it came with. */
  function ownKeyCaller(
    account: AccountRecord,
    credential: Caller['credential'],
    actingAccountId: string | undefined,
    problem: string | undefined,
  ): Caller | AccountRefusal {
    const refusal = actingAccountRefusal(actingAccountId, problem);
    return refusal ? { refusal, credential } : { account, credential };
  }

  async function authenticateKey({
    apiKey,
    actingAccountId: sentAccountId,
    actingAccountProblem,
    resource,
    problem,
  }: Credentials): Promise<Caller | AccountRefusal> {
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
      // From here the key is good: what is refused is the account it would act for.
      const credential = partnerKeyCredential(key);
      const malformed = actingAccountRefusal(actingAccountId, actingAccountProblem);
      if (malformed) return { refusal: malformed, credential };
      const organisation = await store.organisations.findById(key.organisationId);
      const accountId = actingAccountId ?? organisation?.ownerAccountId ?? null;
      const account = accountId ? await store.accounts.findById(accountId) : null;
      if (!account || account.organisationId !== key.organisationId) {
        return { refusal: new PorchError('ACCESS_DENIED', "The account in X-Porch-Account is not in this partner key's organisation."), credential };
      }
      const refusal = await planRefusal(account, now, 'partner');
      return refusal ? { refusal, credential } : { account, credential };
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
      await checkPlan(account, now);
      return ownKeyCaller(account, apiKeyCredential(found.key), actingAccountId, actingAccountProblem);
    }

    // Revoked and expired keys are filtered out by the query itself: reading their row and
    // deciding here made them measurably slower to refuse than unknown keys.
    const found = await store.apiKeys.findUsableByHash({ hash, now });
    if (!found || !candidate.startsWith(USER_KEY_PREFIX) || !hashesEqual(found.key.hash, hash)) throw invalidKey();
    const { key, account } = found;
    await checkPlan(account, now);
    return ownKeyCaller(account, apiKeyCredential(key), actingAccountId, actingAccountProblem);
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

    authenticateKey,

    async authenticate(credentials) {
      const authenticated = await authenticateKey(credentials);
      if ('refusal' in authenticated) throw authenticated.refusal;
      return authenticated;
    },
  };
}
