/**
 * OAuth 2.1 for MCP hosts, the domain side: what the MCP endpoint publishes as a protected
 * resource (RFC 9728) and answers in its Bearer challenge, the authorization server's objects in
 * storage (by the sha256 of their ids, so the database never holds a usable token or code), and
 * connected apps. Connecting an app (its approval's code exchanged for tokens) creates a key-like
 * credential of the account (an `oauth` key holding the granted scopes); every token of the
 * connection authenticates as that key, so scopes, rate limits, in-flight slots, credits and usage
 * rows work as for any key.
 *
 * The protocol itself (authorization code + PKCE, registration, refresh rotation, revocation) is
 * oidc-provider's, wired in src/oauth/.
 */
import type { AccountRecord, ApiKeyRecord, OAuthRecord, Store } from '../../db/store.js';
import type { Clock } from '../clock.js';
import { PorchError } from '../errors.js';
import { newId } from '../ids.js';
import { DEFAULT_REQUESTS_PER_DAY, DEFAULT_REQUESTS_PER_MINUTE } from '../accounts/accounts.js';
import { createAttemptWindows } from './attempt-windows.js';
import { hashKey } from './key-material.js';
import { ALL_SCOPES, DEFAULT_KEY_SCOPES, parseScopes, type Scope } from './scopes.js';

/** Where the MCP endpoint lives; the resource every access token is bound to (RFC 8707). */
export const MCP_RESOURCE_PATH = '/api/public/mcp';
/** RFC 9728 §3: the metadata of a resource with a path lives at the well-known path plus that path. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Access tokens are short-lived: revocation is immediate anyway (each request looks the token up). */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** Refresh tokens last a month, and each use replaces the one used (rotation). */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

const DAY_SECONDS = 24 * 60 * 60;

/**
 * A registered client (anyone may register one, RFC 7591) is kept while it is used: a use pushes
 * its expiry this far ahead, and the maintenance sweep deletes clients past it. A client unused
 * for longer than a refresh token lives holds no token that still works, so nothing is lost, and
 * registrations that never led anywhere no longer pile up.
 */
export const CLIENT_IDLE_TTL_SECONDS = REFRESH_TOKEN_TTL_SECONDS + DAY_SECONDS;
/** A client's expiry moves at most once a day, so looking a client up is not a write each time. */
const CLIENT_TOUCH_INTERVAL_MS = DAY_SECONDS * 1000;
const CLIENT_MODEL = 'Client';

/**
 * Registrations (RFC 7591 is open: anyone may register) counted per client address, an IPv6
 * address by its /64 as sign-in counts it (attempt-windows.ts), in the rate limiter's shared
 * windows, so the limit holds across processes. An MCP host registers once per connection it
 * sets up, so a person, or an office behind one address, stays far below it; a script filling
 * the database with clients (each kept a month) is stopped within seconds.
 */
export const REGISTRATION_LIMITS = { perAddress: { requestsPerMinute: 10, requestsPerDay: 200 } } as const;

function origin(siteUrl: string): string {
  return siteUrl.replace(/\/+$/, '');
}

/** `{public_url}/api/public/mcp`: the audience of every access token. */
export function mcpResourceUrl(siteUrl: string): string {
  return `${origin(siteUrl)}${MCP_RESOURCE_PATH}`;
}

/** Where an MCP host reads the MCP endpoint's protected-resource metadata. */
export function protectedResourceMetadataUrl(siteUrl: string): string {
  return `${origin(siteUrl)}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_RESOURCE_PATH}`;
}

/** The RFC 9728 document of the MCP endpoint. */
export function protectedResourceMetadata(siteUrl: string) {
  return {
    resource: mcpResourceUrl(siteUrl),
    authorization_servers: [origin(siteUrl)],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Porch MCP server',
    resource_documentation: `${origin(siteUrl)}/docs/mcp`,
  };
}

/** RFC 6750 §3: a quoted value holds visible ASCII other than `"` and `\`; anything else becomes a space. */
function quoted(text: string): string {
  return `"${text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;
}

export interface BearerChallengeOptions {
  siteUrl: string;
  /** `invalid_token` when a token was sent and does not work; `insufficient_scope` on a 403. Absent when no token was sent. */
  error?: 'invalid_token' | 'insufficient_scope';
  errorDescription?: string;
  /** The scopes the request needs (with `insufficient_scope`), or that a host should ask for. */
  scopes?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of the MCP endpoint's 401 (and 403 insufficient_scope), as the MCP
 * authorization spec asks: `Bearer resource_metadata="<url>"`, so a host that gets it finds the
 * authorization server and starts the OAuth flow (RFC 9728 §5.1).
 */
export function bearerChallenge({ siteUrl, error, errorDescription, scopes }: BearerChallengeOptions): string {
  const parts = [`realm="porch"`, `resource_metadata=${quoted(protectedResourceMetadataUrl(siteUrl))}`];
  if (error !== undefined) parts.push(`error=${quoted(error)}`);
  if (error !== undefined && errorDescription !== undefined) parts.push(`error_description=${quoted(errorDescription)}`);
  if (scopes !== undefined && scopes.length > 0) parts.push(`scope=${quoted(scopes.join(' '))}`);
  return `Bearer ${parts.join(', ')}`;
}

/** What the consent page may offer an account: the rule of creating a key in the console. */
export interface ConsentBounds {
  /** False when the account's plan cannot hold keys; `reason` says why. */
  allowed: boolean;
  reason: string | null;
  /** Scopes the account may grant (an account holder may give a key any scope). */
  scopes: readonly Scope[];
  /** Checked when the app asked for none it may have: a new key's defaults. */
  defaultScopes: readonly Scope[];
}

/**
 * A pending authorization request as the consent page shows and decides it (the authorization
 * server in src/oauth produces it; the console's page reads it).
 */
export interface ConsentRequest {
  uid: string;
  clientId: string;
  clientName: string;
  /** The host the browser returns to (the redirect URI's), shown so the user knows where the code goes. */
  redirectHost: string;
  /** A CSP source for the redirect URI (its origin, or `scheme:` for a native app's custom scheme). */
  redirectSource: string;
  /** Porch scopes the host asked for (possibly none). */
  requestedScopes: string[];
}

export interface ConnectedApp {
  keyId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  connectedAt: number;
  /** When a token of the connection last made a request (minute precision); null if never. */
  lastUsedAt: number | null;
}

/** The credential an OAuth access token authenticates as, and the resource it was issued for. */
export interface AccessTokenCredential {
  key: ApiKeyRecord;
  audience: string | null;
}

/** An oidc-provider object as stored: its payload, its consumption (codes, refresh tokens). */
export interface StoredObject {
  payload: Record<string, unknown>;
  consumedAt: number | null;
}

function parsePayload(record: OAuthRecord): Record<string, unknown> {
  const parsed: unknown = JSON.parse(record.payload);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

function audienceOf(payload: Record<string, unknown>): string | null {
  const aud = payload.aud;
  if (typeof aud === 'string') return aud;
  if (Array.isArray(aud) && aud.length === 1 && typeof aud[0] === 'string') return aud[0];
  return null;
}

export function createOAuthService(store: Store, clock: Clock) {
  const hash = (id: string) => hashKey(id);
  const attempts = createAttemptWindows(store.rateLimits, clock);

  function consentBounds(account: AccountRecord): ConsentBounds {
    if (account.plan !== 'expert') {
      return {
        allowed: false,
        reason: `Apps connect to Porch as an API key would, and only Expert accounts may use keys; this account is on the ${account.plan} plan.`,
        scopes: [],
        defaultScopes: [],
      };
    }
    return { allowed: true, reason: null, scopes: ALL_SCOPES, defaultScopes: DEFAULT_KEY_SCOPES };
  }

  /** The scopes a connection of the account may hold, parsed; refuses an account that cannot hold keys, and no scope at all. */
  function checkConnectable(account: AccountRecord, requested: readonly string[]): Scope[] {
    const bounds = consentBounds(account);
    if (!bounds.allowed) throw new PorchError('API_EXPERT_ONLY', bounds.reason ?? 'This account cannot hold keys.');
    if (requested.length === 0) throw new PorchError('VALIDATION_ERROR', 'Choose at least one scope for the app.');
    return parseScopes(requested);
  }

  async function listConnectedApps(accountId: string): Promise<ConnectedApp[]> {
    const connections = await store.oauth.listConnections({ accountId, now: clock.now() });
    const lastCounted = await store.rateLimits.lastCounted(connections.map((connection) => connection.keyId));
    return connections.map((connection) => {
      const lastMinute = lastCounted.get(connection.keyId);
      return {
        keyId: connection.keyId,
        clientId: connection.clientId,
        clientName: connection.clientName,
        scopes: connection.scopes,
        connectedAt: connection.createdAt,
        lastUsedAt: lastMinute === undefined ? null : lastMinute * 1000,
      };
    });
  }

  return {
    /** Counts a registration from the client address; 429 RATE_LIMITED beyond REGISTRATION_LIMITS. */
    countRegistration(address: string): Promise<void> {
      return attempts.countFromAddress(
        'oauth-registration',
        address,
        REGISTRATION_LIMITS.perAddress,
        'Too many app registrations from this address; wait and try again.',
      );
    },
    /**
     * oidc-provider's storage (its Adapter, per model). Ids are stored as their sha256 and the
     * payload's own copy of the id (`jti`) is left out and put back on read, so no stored column
     * or JSON holds a token, code, session or interaction id. A Session's `uid` is not a secret
     * (interactions carry it); it is kept, and indexed by its hash.
     */
    objects: {
      async save(model: string, id: string, payload: Record<string, unknown>, expiresInSeconds: number | undefined): Promise<void> {
        const { jti: _jti, ...rest } = payload;
        const grantId = typeof payload.grantId === 'string' ? payload.grantId : model === 'Grant' ? id : null;
        // oidc-provider gives a client no expiry of its own: it gets the idle one.
        const lifetimeSeconds = expiresInSeconds ?? (model === CLIENT_MODEL ? CLIENT_IDLE_TTL_SECONDS : undefined);
        await store.oauth.upsert({
          model,
          idHash: hash(id),
          payload: JSON.stringify(rest),
          grantId,
          uidHash: typeof payload.uid === 'string' ? hash(payload.uid) : null,
          expiresAt: lifetimeSeconds === undefined ? null : clock.now() + lifetimeSeconds * 1000,
        });
      },
      async find(model: string, id: string): Promise<StoredObject | null> {
        const now = clock.now();
        const record = await store.oauth.find({ model, idHash: hash(id), now });
        if (record === null) return null;
        // A client is looked up on each authorization and token request: that is its use.
        const idleUntil = now + CLIENT_IDLE_TTL_SECONDS * 1000;
        if (model === CLIENT_MODEL && (record.expiresAt === null || record.expiresAt < idleUntil - CLIENT_TOUCH_INTERVAL_MS)) {
          const { consumedAt: _consumedAt, ...kept } = record;
          await store.oauth.upsert({ ...kept, expiresAt: idleUntil });
        }
        return { payload: { ...parsePayload(record), jti: id }, consumedAt: record.consumedAt };
      },
      /**
       * Replaces an object that still exists, with a new payload and lifetime: a grant extended
       * as its tokens are issued. False (nothing written) when it is gone, revoked meanwhile.
       */
      async update(model: string, id: string, payload: Record<string, unknown>, expiresInSeconds: number): Promise<boolean> {
        const { jti: _jti, ...rest } = payload;
        return store.oauth.update({ model, idHash: hash(id), payload: JSON.stringify(rest), expiresAt: clock.now() + expiresInSeconds * 1000 });
      },
      /**
       * A Session by its uid (oidc-provider checks an interaction's session this way). Its id is
       * not known here, so the payload comes back without `jti`: it is read, never saved again.
       */
      async findByUid(model: string, uid: string): Promise<StoredObject | null> {
        const record = await store.oauth.findByUid({ model, uidHash: hash(uid), now: clock.now() });
        return record && { payload: parsePayload(record), consumedAt: record.consumedAt };
      },
      /**
       * Marks a code or refresh token used; false when another request used it first. oidc-provider
       * reads, checks and then consumes, so concurrent uses all pass its check (on PostgreSQL, or
       * with several processes): the loser is a reuse, and reuse revokes the grant, as
       * oidc-provider does when it sees one (RFC 9700, 4.14.2).
       */
      async consume(model: string, id: string): Promise<boolean> {
        const idHash = hash(id);
        const at = clock.now();
        if (await store.oauth.consume({ model, idHash, at })) return true;
        const record = await store.oauth.find({ model, idHash, now: at });
        if (record?.grantId) await store.oauth.revokeGrant({ grantId: record.grantId, at });
        return false;
      },
      /** Deleting a grant (oidc-provider revoking it) ends the app's connection with it. */
      async destroy(model: string, id: string): Promise<void> {
        if (model === 'Grant') await store.oauth.revokeGrant({ grantId: id, at: clock.now() });
        else await store.oauth.destroy({ model, idHash: hash(id) });
      },
      /**
       * oidc-provider revokes a grant's tokens model by model when a token is revoked (RFC 7009)
       * or a code or refresh token reused; the app is left with nothing that works, so the whole
       * grant goes and its connection ends, and Connected apps no longer lists it.
       */
      async revokeByGrantId(_model: string, grantId: string): Promise<void> {
        await store.oauth.revokeGrant({ grantId, at: clock.now() });
      },
    },

    /** The account a grant names (oidc-provider's `sub`). */
    async findAccount(accountId: string): Promise<AccountRecord | null> {
      return store.accounts.findById(accountId);
    },

    consentBounds,

    checkConnectable,

    /**
     * A connection whose first tokens were just issued (the authorization code exchanged): the
     * key-like credential its tokens act as, holding the granted scopes. It replaces the app's
     * earlier connection only now, so an approval that never yields tokens (denied afterwards on
     * the same consent page, a code never exchanged) changes nothing.
     */
    async connect(request: { account: AccountRecord; clientId: string; clientName: string; grantId: string; scopes: readonly string[] }): Promise<string> {
      const scopes = checkConnectable(request.account, request.scopes);
      const now = clock.now();
      const keyId = newId();
      // Never presented by anyone: the tokens authenticate through the connection. A random
      // value keeps the column's uniqueness and can match no key a client could send.
      const unusable = hash(`oauth:${newId()}:${newId()}`);
      const connected = await store.oauth.connect({
        key: {
          id: keyId,
          accountId: request.account.id,
          kind: 'oauth',
          name: request.clientName,
          prefix: 'oauth',
          hash: unusable,
          scopes,
          requestsPerMinute: DEFAULT_REQUESTS_PER_MINUTE,
          requestsPerDay: DEFAULT_REQUESTS_PER_DAY,
          createdAt: now,
          expiresAt: null,
          revokedAt: null,
          replacedBy: null,
        },
        connection: {
          keyId,
          accountId: request.account.id,
          clientId: request.clientId,
          clientName: request.clientName,
          grantId: request.grantId,
          createdAt: now,
          revokedAt: null,
        },
      });
      // The grant was revoked between the code's exchange and now: the other exchange of a code
      // sent twice found the reuse. Nothing is connected, and the earlier connection stays.
      if (!connected) throw new PorchError('RESOURCE_NOT_FOUND', 'The authorization was revoked (its code was used twice); connect the app again.');
      // Connecting the same app again (its tokens lost, scopes changed) replaces the earlier
      // connection rather than leaving a second credential behind it.
      for (const earlier of await store.oauth.listConnections({ accountId: request.account.id, now })) {
        if (earlier.clientId === request.clientId && earlier.keyId !== keyId) {
          await store.oauth.revokeConnection({ keyId: earlier.keyId, accountId: request.account.id, at: now });
        }
      }
      return keyId;
    },

    listConnectedApps,

    /** Revokes the grant, its tokens and its credential at once; another account's app reads as missing. */
    async revokeConnectedApp(accountId: string, keyId: string): Promise<ConnectedApp> {
      const [app] = (await listConnectedApps(accountId)).filter((connection) => connection.keyId === keyId);
      const revoked = await store.oauth.revokeConnection({ keyId, accountId, at: clock.now() });
      if (!app || !revoked) throw new PorchError('RESOURCE_NOT_FOUND', `No connected app with id ${keyId}.`);
      return app;
    },

    /**
     * The credential of an unexpired access token whose connection is active; null otherwise. It
     * holds the connection's scopes that the token itself was issued with: a token refreshed with
     * a narrower scope is narrower (RFC 6749, 6), whatever its connection holds.
     */
    async findAccessToken(token: string): Promise<AccessTokenCredential | null> {
      const found = await store.oauth.findAccessToken({ idHash: hash(token), now: clock.now() });
      if (!found) return null;
      const payload = parsePayload(found.record);
      const issued = typeof payload.scope === 'string' ? new Set(payload.scope.split(' ')) : new Set<string>();
      return { key: { ...found.key, scopes: found.key.scopes.filter((scope) => issued.has(scope)) }, audience: audienceOf(payload) };
    },

    /**
     * Deletes the objects that expired more than a day ago (a day's margin, as for sessions); a
     * connection whose grant is among them ends with it.
     */
    async pruneExpired(): Promise<number> {
      return store.oauth.pruneExpired(clock.now() - 24 * 60 * 60 * 1000);
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
