/**
 * Porch as the OAuth 2.1 authorization server of its MCP endpoint, so an MCP host (a chat
 * product's connector, an IDE) connects after the user signs in once in the browser and picks
 * scopes. The protocol is oidc-provider's (certified; authorization code with PKCE S256 only,
 * dynamic client registration RFC 7591, resource indicators RFC 8707, refresh-token rotation,
 * revocation RFC 7009, metadata RFC 8414); this file configures it and mounts it in the HTTP app:
 *
 * - issuer: the public URL; endpoints under `/oauth/`; metadata at
 *   `/.well-known/oauth-authorization-server` and `/.well-known/openid-configuration`;
 * - every access token is opaque, bound to `{public_url}/api/public/mcp` and lives an hour;
 *   refresh tokens 30 days, replaced on each use; the grant lives as long as its newest refresh
 *   token (each token response moves its expiry), so a connection in use never ends by itself;
 * - a connection (core's record of an approved app) is made when its first tokens are issued,
 *   at the code exchange, not at the approval: an approval undone on the consent page, or whose
 *   code is never exchanged, leaves the app's earlier connection as it was;
 * - storage: core's OAuth objects (sha256 of every id; client secrets hashed too);
 * - the interaction (sign-in and consent) is the console's: `/console/connect/<uid>`, signed in
 *   with the console's session. `consentPort` is what that page calls.
 */
import { createHmac, createPrivateKey, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import Provider, { type Adapter, type AdapterPayload, type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { ACCESS_TOKEN_TTL_SECONDS, MCP_RESOURCE_PATH, mcpResourceUrl, protectedResourceMetadata, REFRESH_TOKEN_TTL_SECONDS } from '../core/access/oauth.js';
import { hashKey } from '../core/access/key-material.js';
import { ALL_SCOPES } from '../core/access/scopes.js';
import type { Core } from '../core/core.js';
import { isPorchError, PorchError } from '../core/errors.js';
import { logFieldsOf, type RequestScope } from '../core/telemetry/telemetry.js';
import { checkWebhookUrl } from '../core/webhooks/url-guard.js';
import { type AuthorizationServer, type ConsentPort, OAUTH_PATHS } from './paths.js';

/** OpenID scopes a host may ask for besides Porch's: `offline_access` is how some ask for a refresh token. */
const OIDC_SCOPES = ['openid', 'offline_access'] as const;

/** A code is exchanged by the host within seconds of the redirect. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** Time for a person to sign in and decide on the consent page. */
const INTERACTION_TTL_SECONDS = 30 * 60;
/**
 * oidc-provider's own sign-in session: short, because the console's session is the one that
 * counts; a host starting another connection later goes through the console again.
 */
const SESSION_TTL_SECONDS = 10 * 60;
/** How long a browser may keep a preflight's answer (oidc-provider's, for its other endpoints). */
const CORS_MAX_AGE_SECONDS = 3600;
/** The largest body oidc-provider reads (its own limit). */
const MAX_BODY_KIB = 56;
/** Client secrets are stored as this prefix and the sha256 of the secret. */
const HASHED_SECRET_PREFIX = 'sha256:';

/** A key derived from the server's secret for one purpose, so every process derives the same. */
function derivedKey(secretKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secretKey).update(`porch oauth ${purpose}`).digest();
}

/**
 * The signing key oidc-provider requires (ID tokens, for hosts that ask for `openid`): an Ed25519
 * key derived from the server secret, so all processes share it without storing another secret.
 */
function signingKey(secretKey: Buffer) {
  const seed = derivedKey(secretKey, 'signing key');
  // PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410).
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return { ...jwk, kid: hashKey(String(jwk.x)).slice(0, 16), use: 'sig', alg: 'EdDSA' };
}

function hashedSecret(secret: string): string {
  return HASHED_SECRET_PREFIX + hashKey(secret);
}

/** oidc-provider's storage over core's OAuth objects, one adapter per model. */
function adapterClass(core: Core): new (model: string) => Adapter {
  const objects = core.oauth.objects;
  const toPayload = (found: { payload: Record<string, unknown>; consumedAt: number | null } | null): AdapterPayload | undefined =>
    found ? ({ ...found.payload, ...(found.consumedAt === null ? {} : { consumed: Math.floor(found.consumedAt / 1000) }) } as AdapterPayload) : undefined;
  return class PorchOAuthAdapter implements Adapter {
    constructor(private readonly model: string) {}
    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      // A confidential client's secret is kept as a hash; comparisons hash what is presented.
      const stored =
        this.model === 'Client' && typeof payload.client_secret === 'string' && !payload.client_secret.startsWith(HASHED_SECRET_PREFIX)
          ? { ...payload, client_secret: hashedSecret(payload.client_secret) }
          : payload;
      await objects.save(this.model, id, stored as Record<string, unknown>, expiresIn);
    }
    async find(id: string) {
      return toPayload(await objects.find(this.model, id));
    }
    async findByUid(uid: string) {
      return toPayload(await objects.findByUid(this.model, uid));
    }
    async findByUserCode() {
      // The device flow is not enabled: there are no user codes.
      return undefined;
    }
    async consume(id: string) {
      // Lost to a concurrent use of the same code or refresh token: refused as the reuse it is.
      if (!(await objects.consume(this.model, id))) throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`);
    }
    async destroy(id: string) {
      await objects.destroy(this.model, id);
    }
    async revokeByGrantId(grantId: string) {
      await objects.revokeByGrantId(this.model, grantId);
    }
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The MCP authorization spec: every redirect URI is a localhost URL or uses HTTPS. oidc-provider
 * lets a web client register `http://` on any host, where the authorization code would travel in
 * clear, and a native client (`application_type: native`) any custom scheme (`com.example.app:/cb`,
 * `ms-settings:x`), which any app on the device may claim (regression: both accepted, and the
 * flow completed). Malformed values are left to oidc-provider's checks.
 */
function requireSecureRedirects(redirectUris: unknown): void {
  if (!Array.isArray(redirectUris)) return;
  for (const uri of redirectUris) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    if (parsed === null || parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) continue;
    throw new errors.InvalidClientMetadata('redirect_uris must use https, or http only on localhost');
  }
}

/**
 * The longest a registration's text may be, per field (in characters), and how many entries its
 * lists may hold. Registration is open to anyone and a client is kept a month, so what one may
 * store is bounded (regression: 500 clients named with 50,000 characters each were kept). A name
 * is shown on the consent page and under Connected apps; a URL as long as browsers commonly take.
 */
const MAX_CLIENT_NAME_LENGTH = 200;
const MAX_SOFTWARE_FIELD_LENGTH = 200;
const MAX_URI_LENGTH = 2_048;
const MAX_LIST_ENTRIES = 10;
const METADATA_LENGTH_LIMITS: Readonly<Record<string, number>> = {
  client_name: MAX_CLIENT_NAME_LENGTH,
  software_id: MAX_SOFTWARE_FIELD_LENGTH,
  software_version: MAX_SOFTWARE_FIELD_LENGTH,
};

/**
 * Refuses a registration whose text is longer than its field allows: every string (URIs and the
 * rest at most MAX_URI_LENGTH, names less), and every list of strings (redirect URIs, contacts,
 * ...) at most MAX_LIST_ENTRIES entries of as many characters. RFC 7591's invalid_client_metadata
 * (invalid_redirect_uri for redirect_uris) names the field. Types are left to oidc-provider's checks.
 */
function requireBoundedMetadata(metadata: Readonly<Record<string, unknown>>): void {
  for (const [field, value] of Object.entries(metadata)) {
    const maxLength = METADATA_LENGTH_LIMITS[field] ?? MAX_URI_LENGTH;
    if (typeof value === 'string' && value.length > maxLength) {
      throw new errors.InvalidClientMetadata(`${field} must be at most ${maxLength} characters long`);
    }
    if (!Array.isArray(value)) continue;
    if (value.length > MAX_LIST_ENTRIES) throw new errors.InvalidClientMetadata(`${field} must have at most ${MAX_LIST_ENTRIES} entries`);
    if (value.some((entry) => typeof entry === 'string' && entry.length > maxLength)) {
      throw new errors.InvalidClientMetadata(`${field} entries must be at most ${maxLength} characters long`);
    }
  }
}

/**
 * Characters a client's name may not hold: control characters (line breaks, escapes) and the
 * invisible bidirectional marks and overrides (U+202E and its kin), which reorder the text shown
 * after them, so a name could turn the consent page's account and return host around.
 */
const UNSHOWABLE_NAME_CHARACTERS = /[\p{Cc}\p{Bidi_Control}]/gu;

function withoutUnshowableCharacters(name: string): string {
  return name.replaceAll(UNSHOWABLE_NAME_CHARACTERS, '');
}

/** A registered name must read as what it is wherever Porch shows it (RFC 7591's invalid_client_metadata otherwise). */
function requireShowableName(clientName: unknown): void {
  if (typeof clientName === 'string' && withoutUnshowableCharacters(clientName) !== clientName) {
    throw new errors.InvalidClientMetadata('client_name must not contain control characters or bidirectional formatting characters (such as U+202E)');
  }
}

/**
 * Porch's rules for a client's metadata, beyond oidc-provider's: bounded text, secure redirect
 * URIs, a showable name. Checked where a client comes in (a registration, a client ID metadata
 * document), never on a client read back from storage, so a rule added later leaves the
 * clients registered before it working.
 */
function requireAcceptableMetadata(metadata: Readonly<Record<string, unknown>>): void {
  requireBoundedMetadata(metadata);
  requireSecureRedirects(metadata.redirect_uris);
  requireShowableName(metadata.client_name);
}

/**
 * The name the consent page and Connected apps show for a client: its registered name, else its
 * id. Registration and metadata documents refuse names with unshowable characters; a client
 * registered before that rule has them dropped here.
 */
function displayName(client: { clientId: string; clientName?: unknown }): string {
  const name = typeof client.clientName === 'string' ? withoutUnshowableCharacters(client.clientName) : '';
  return name.trim() !== '' ? name : client.clientId;
}

/** The resource as sent, without a trailing slash, so `.../mcp/` and `.../mcp` are one resource. */
function normalisedResource(value: string): string {
  return value.replace(/\/+$/, '');
}

/** oidc-provider's error page for a person (a bad authorization request), and Porch's for a failed one. */
async function renderError(ctx: KoaContextWithOIDC, out: { error?: string | undefined; error_description?: string | undefined }): Promise<void> {
  ctx.type = 'html';
  ctx.body = errorPage(out.error ?? 'error', out.error_description ?? 'The authorization request could not be completed.');
}

export function createAuthorizationServer({ core, secretKey }: { core: Core; secretKey: Buffer }): AuthorizationServer {
  const siteUrl = core.settings.siteUrl.replace(/\/+$/, '');
  const mcpResource = mcpResourceUrl(siteUrl);
  const publicUrl = new URL(siteUrl);

  /**
   * Counts a metadata document's fetch as a registration from the request's client address
   * (Express's, which oidc-provider's context carries); refused beyond the limit with OAuth's
   * `temporarily_unavailable` and 429, which the error page shows. A fetch outside oidc-provider's
   * routes has no context: the consent page's, after the document it holds lapsed (30 s without
   * `Cache-Control`), for an authorization that counted it already; it is not counted (review:
   * reading the address of no request answered the consent page 500).
   */
  async function countDocumentFetch(ctx: KoaContextWithOIDC | undefined): Promise<void> {
    if (ctx === undefined) return;
    try {
      await core.oauth.countRegistration((ctx.req as Request).ip ?? 'unknown');
    } catch (err) {
      if (!isPorchError(err) || err.code !== 'RATE_LIMITED') throw err;
      const refused = new errors.TemporarilyUnavailable(err.message);
      refused.status = 429;
      refused.statusCode = 429;
      throw refused;
    }
  }

  const configuration: Configuration = {
    adapter: adapterClass(core),
    clients: [],
    // Porch's scopes are the MCP resource's (getResourceServerInfo below). They are listed here
    // too because a host may name them in its registration (`scope`, as the MCP SDK does), which
    // oidc-provider checks against this list; the consent page therefore grants them both ways.
    scopes: [...OIDC_SCOPES, ...ALL_SCOPES],
    claims: { openid: ['sub'] },
    async findAccount(_ctx, sub) {
      const account = await core.oauth.findAccount(sub);
      return account ? { accountId: account.id, claims: () => ({ sub: account.id }) } : undefined;
    },
    interactions: { url: (_ctx, interaction) => `${OAUTH_PATHS.consent}/${interaction.uid}` },
    routes: {
      authorization: OAUTH_PATHS.authorization,
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.registration,
      revocation: OAUTH_PATHS.revocation,
      jwks: OAUTH_PATHS.jwks,
      userinfo: OAUTH_PATHS.userinfo,
      end_session: OAUTH_PATHS.endSession,
    },
    pkce: { required: () => true },
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    // No symmetric algorithms: a client secret is stored hashed, so it cannot key an HMAC.
    enabledJWA: {
      idTokenSigningAlgValues: ['EdDSA'],
      clientAuthSigningAlgValues: ['EdDSA', 'ES256', 'RS256', 'PS256'],
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // RFC 7591's software metadata, kept and answered instead of dropped. Their validator is also
    // where a registration is checked as a whole, as oidc-provider offers no other hook for it.
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator(ctx, key, value, metadata) {
        if (value !== undefined && typeof value !== 'string') throw new errors.InvalidClientMetadata(`${key} must be a string`);
        // Only a registration has a request here: a client read back from storage is not checked
        // again, and one built from a metadata document (no request either) is checked by the
        // document feature's allowClient below.
        if (ctx !== undefined && key === 'software_id') requireAcceptableMetadata(metadata);
      },
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      // A host may also name itself by the https URL of its metadata (client ID metadata
      // documents, the MCP spec's preferred registration). oidc-provider 9 implements the draft
      // as an experiment; the server fetches that URL, so only https URLs resolving to public
      // addresses are fetched (the webhooks' rule), never the loopback or internal network.
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // A fetched document registers a client as POST /oauth/register does, so it counts
        // toward the same limit per address (oidc-provider keeps a fetched document for a while
        // and asks again only when it has none): each new URL would otherwise be a request of
        // Porch's to any public host, made for anyone.
        allowFetch: async (ctx, clientId) => {
          const check = await checkWebhookUrl(clientId, []);
          if (!check.ok || check.url.protocol !== 'https:') return false;
          await countDocumentFetch(ctx);
          return true;
        },
        // A document is a registration by other means and meets the same rules (regression: a
        // native app's `com.evil:/cb`, a web app's plain-http redirect URI and a bidirectional
        // name were all accepted, as oidc-provider builds these clients without a request).
        // oidc-provider asks this about every such client before its use, from its cache too, so
        // a refused document is refused each time, with the error naming the rule.
        allowClient: (_ctx, client) => {
          requireAcceptableMetadata(client.metadata());
          return true;
        },
      },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      // Off, not advertised: the MCP endpoint accepts bearer tokens only, so a DPoP-bound token
      // would work there without its proof (RFC 9449 says it must not), and pushed authorization
      // requests would need a route of their own under /oauth (both were advertised, neither held).
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // A host that names no resource gets a token for the only one there is.
        defaultResource: () => mcpResource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, resourceIndicator) {
          if (normalisedResource(resourceIndicator) !== mcpResource) {
            throw new errors.InvalidTarget(`Porch issues tokens only for its MCP endpoint, ${mcpResource}.`);
          }
          return {
            scope: ALL_SCOPES.join(' '),
            audience: mcpResource,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    // Only the grant the consent page just made: every authorization is approved on that page,
    // even from a browser that approved the same app before (its connection, once the code is
    // exchanged, replaces the earlier one), so an app never gets a grant silently.
    loadExistingGrant: async (ctx) => {
      const consent: unknown = ctx.oidc.result?.consent;
      const grantId = typeof consent === 'object' && consent !== null && 'grantId' in consent ? consent.grantId : undefined;
      return typeof grantId === 'string' ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // Every host that may refresh gets a refresh token (not only those asking for offline_access).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A connection outlives the sign-in that approved it (a session of ten minutes): its tokens end
    // when they expire, or when the app is disconnected or its grant revoked. oidc-provider's
    // default binds tokens issued without `offline_access` (which MCP hosts do not ask for) to the
    // session, so every refresh after the session ended was refused and the host had to reconnect.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      // At its creation; each token response then extends it (extendGrant below).
      Grant: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
      IdToken: ACCESS_TOKEN_TTL_SECONDS,
    },
    cookies: {
      keys: [derivedKey(secretKey, 'cookies').toString('base64url')],
      long: { sameSite: 'lax', httpOnly: true },
      short: { sameSite: 'lax', httpOnly: true },
    },
    jwks: { keys: [signingKey(secretKey)] },
    renderError,
  };

  const provider = new Provider(siteUrl, configuration);
  /**
   * Each request's scope, as its opening left it on Express's response, by the Node request
   * oidc-provider's Koa context wraps: the lines it logs carry the request's fields, as every
   * line written while a request is served does.
   */
  const requestScopes = new WeakMap<IncomingMessage, RequestScope>();
  const logFieldsOfRequest = (ctx: { req: IncomingMessage }) => logFieldsOf(requestScopes.get(ctx.req));
  // Every URL the server writes (metadata, redirects) derives from the public URL, also behind a
  // proxy: the wrapper below states the public origin in the forwarded headers, and only it.
  provider.proxy = true;
  const compareClientSecret = provider.Client.prototype.compareClientSecret;
  provider.Client.prototype.compareClientSecret = function compareHashed(this: InstanceType<typeof provider.Client>, actual: string) {
    const stored = this.clientSecret;
    if (typeof stored !== 'string' || !stored.startsWith(HASHED_SECRET_PREFIX)) return compareClientSecret.call(this, actual);
    const expected = Buffer.from(stored);
    const presented = Buffer.from(hashedSecret(actual));
    return Promise.resolve(expected.length === presented.length && timingSafeEqual(expected, presented));
  };
  // A client reading its registration (RFC 7592) would get the stored hash as its secret, and a
  // client that keeps what it reads would then fail to authenticate; the secret is left out, as
  // RFC 7591's client information response allows.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== 'client' || typeof ctx.body !== 'object' || ctx.body === null) return;
    const body = ctx.body as Record<string, unknown>;
    if (typeof body.client_secret === 'string' && body.client_secret.startsWith(HASHED_SECRET_PREFIX)) {
      delete body.client_secret;
      delete body.client_secret_expires_at;
    }
  });
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => core.logger.error({ err, ...logFieldsOfRequest(ctx) }, 'the OAuth server failed'));

  /**
   * An authorization request that fails before anyone signed in and approved it is answered with
   * Porch's own error page, never sent on to the redirect URI it names. Any site may register a
   * client with its own redirect URI, so redirecting there on an error would make Porch an open
   * redirector to it (RFC 9700 §4.11.2; regression: PKCE plain, prompt=none and a foreign resource
   * all answered 303 to the registered site). After the consent page (the `resume` route), a
   * denial still returns to the app, as the person who denied expects.
   * oidc-provider reports each failure just before it answers it: the last one reported is the
   * one answered (a redirect URI the client never registered replaces the error it found).
   */
  const failedAuthorizations = new WeakMap<KoaContextWithOIDC, Error>();
  provider.on('authorization.error', (ctx: KoaContextWithOIDC, err: Error) => failedAuthorizations.set(ctx, err));
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
    if (ctx.oidc?.route === 'authorization') failedAuthorizations.set(ctx, err);
  });
  provider.use(async (ctx, next) => {
    await next();
    const failure = failedAuthorizations.get(ctx as KoaContextWithOIDC);
    if (failure === undefined || ctx.oidc?.route !== 'authorization') return;
    const shown = failure instanceof errors.OIDCProviderError && failure.expose ? failure : new errors.OIDCProviderError(500, 'server_error');
    ctx.remove('Location');
    // prompt=none's errors carry 303, the status of the redirect they were meant for.
    ctx.status = Math.max(400, shown.statusCode);
    await renderError(ctx as KoaContextWithOIDC, { error: shown.message, error_description: shown.error_description });
  });

  // form_post answers with a page that posts the code to the app's site, which the page's own
  // Content-Security-Policy (form-action 'self', on every page) forbids, so in a browser the app
  // never got its code; MCP hosts use query. It is neither advertised nor accepted (a request
  // asking for it gets the error page above).
  const responseModeAllowed = provider.Client.prototype.responseModeAllowed;
  provider.Client.prototype.responseModeAllowed = function withoutFormPost(
    this: InstanceType<typeof provider.Client>,
    ...args: Parameters<typeof responseModeAllowed>
  ) {
    // The mode is undefined at run time when the request names none (the response type's default, query).
    const [mode = ''] = args;
    return !mode.startsWith('form_post') && responseModeAllowed.apply(this, args);
  };
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== 'discovery' || typeof ctx.body !== 'object' || ctx.body === null) return;
    const body = ctx.body as Record<string, unknown>;
    if (Array.isArray(body.response_modes_supported)) {
      body.response_modes_supported = body.response_modes_supported.filter((mode) => typeof mode === 'string' && !mode.startsWith('form_post'));
    }
  });

  // Every token response (the code exchanged, a refresh): the first makes the app's connection,
  // and each moves the grant's expiry to its new refresh token's. oidc-provider sets a grant's
  // expiry once, when it is made, and refuses a refresh once it passed ("grant is expired"), so a
  // fixed ttl.Grant cut off an app refreshing daily 30 days after its approval.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    const grantType = ctx.oidc.params?.grant_type;
    const grant = ctx.oidc.entities.Grant;
    if ((grantType !== 'authorization_code' && grantType !== 'refresh_token') || grant?.jti === undefined) return;
    if (grantType === 'authorization_code' && !(await connectOnExchange(ctx as KoaContextWithOIDC, grant))) return;
    try {
      await extendGrant(grant.jti);
    } catch (err) {
      // The tokens were issued; the grant keeps its earlier expiry until the next refresh.
      core.logger.error({ err, ...logFieldsOfRequest(ctx) }, 'extending an OAuth grant failed');
    }
  });

  /**
   * The app's connection, made as its first tokens are issued (and replacing its earlier one);
   * false, with the grant revoked and the token response turned into `invalid_grant`, when the
   * account may no longer connect apps (its plan changed since the approval).
   */
  async function connectOnExchange(ctx: KoaContextWithOIDC, grant: InstanceType<typeof provider.Grant>): Promise<boolean> {
    const grantId = String(grant.jti);
    try {
      const account = grant.accountId === undefined ? null : await core.oauth.findAccount(grant.accountId);
      if (!account) throw new PorchError('RESOURCE_NOT_FOUND', 'The account that approved the app no longer exists.');
      const client = ctx.oidc.client;
      const granted = new Set(grant.getResourceScope(mcpResource).split(' '));
      const scopes = ALL_SCOPES.filter((scope) => granted.has(scope));
      await core.oauth.connect({
        account,
        clientId: client?.clientId ?? String(grant.clientId),
        clientName: client ? displayName(client) : String(grant.clientId),
        grantId,
        scopes,
      });
      return true;
    } catch (err) {
      if (!(err instanceof PorchError)) core.logger.error({ err, ...logFieldsOfRequest(ctx) }, 'connecting an OAuth app failed');
      await core.oauth.objects.destroy('Grant', grantId);
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: err instanceof PorchError ? err.message : 'The app could not be connected; connect it again.' };
      return false;
    }
  }

  /** The grant lives as long as the refresh token just issued: each use of the connection renews it. */
  async function extendGrant(grantId: string): Promise<void> {
    const stored = await core.oauth.objects.find('Grant', grantId);
    if (!stored) return;
    // oidc-provider's own clock (epoch seconds) for what it reads, the core's for the storage expiry.
    const exp = Math.floor(Date.now() / 1000) + REFRESH_TOKEN_TTL_SECONDS;
    await core.oauth.objects.update('Grant', grantId, { ...stored.payload, exp }, REFRESH_TOKEN_TTL_SECONDS);
  }

  // Registration answers browsers as the token and revocation endpoints do (oidc-provider gives
  // those CORS, not this one): a browser-based MCP client registers before it has a client id.
  // Registration is open and uses no cookie, so every origin may call it, as every server may.
  provider.use(async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (ctx.path !== OAUTH_PATHS.registration || origin === '') return next();
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', 'POST');
      const asked = ctx.get('Access-Control-Request-Headers');
      if (asked !== '') ctx.set('Access-Control-Allow-Headers', asked);
      ctx.set('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    if (ctx.method === 'POST') ctx.set('Access-Control-Allow-Origin', origin);
    return next();
  });

  // oidc-provider reads at most 56 KiB of a body and answers a larger one 400 "failed to parse the
  // request body"; it is the 413 it is. The error events fire after the answer is set, before it is sent.
  const tooLarge = (ctx: KoaContextWithOIDC, err: Error) => {
    if (!(err.cause instanceof Error) || err.cause.message !== 'request entity too large') return;
    ctx.status = 413;
    if (typeof ctx.body === 'object' && ctx.body !== null) {
      ctx.body = { error: 'invalid_request', error_description: `The request body is larger than ${MAX_BODY_KIB} KiB.` };
    }
  };
  provider.on('registration_create.error', tooLarge);
  provider.on('grant.error', tooLarge);
  provider.on('revocation.error', tooLarge);

  const callback = provider.callback();
  const handler: RequestHandler = (req, res, next) => {
    // Express strips the mount path; oidc-provider routes on the full path.
    req.url = req.originalUrl;
    if (req.path === OAUTH_PATHS.authorizationServerMetadata || req.path.startsWith(`${OAUTH_PATHS.authorizationServerMetadata}/`)) {
      // RFC 8414 metadata is the OpenID discovery document (a superset); oidc-provider serves only the latter.
      req.url = OAUTH_PATHS.openidConfiguration;
    }
    // oidc-provider derives its mount path from these (the difference of the URLs, else Express's
    // baseUrl): it is mounted at the root, whatever path Express matched.
    req.baseUrl = '';
    req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
    req.headers['x-forwarded-host'] = publicUrl.host;
    if (res.locals.scope !== undefined) requestScopes.set(req, res.locals.scope);
    prepare(req, res).then(
      () => {
        req.originalUrl = req.url;
        void callback(req, res);
      },
      (err: unknown) => next(err),
    );
  };

  /** What Porch does before oidc-provider sees a request: counts a registration, defaults an authorization's scopes. */
  async function prepare(req: Request, res: Response): Promise<void> {
    if (req.method === 'POST' && req.path === OAUTH_PATHS.registration) {
      // Its refusal (429) is read by the browser-based clients the registration answers too.
      const origin = req.get('Origin');
      if (origin !== undefined) res.setHeader('Access-Control-Allow-Origin', origin);
      // Express's client address: behind the proxies PORCH_TRUSTED_PROXIES names, the one they forwarded.
      await core.oauth.countRegistration(req.ip ?? 'unknown');
    }
    if (req.method === 'GET' && req.path === OAUTH_PATHS.authorization) await askForDefaultScopesWhenNoneNamed(req);
  }

  /**
   * A request that names none of Porch's scopes (many MCP hosts name none; some only `openid` or
   * `offline_access`) asks for the default: the Porch scopes the client registered (RFC 6749
   * 3.3), else every Porch scope, of which the consent page ticks a new key's defaults. Without
   * it the consent page offered no scope to approve, or an app registered with a narrower
   * `scope` got invalid_scope; oidc-provider grants only scopes that were asked for.
   */
  async function askForDefaultScopesWhenNoneNamed(req: IncomingMessage): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://porch.invalid');
    const named = requestedScopesOf(url.searchParams.get('scope'));
    if (named.some((scope) => (ALL_SCOPES as readonly string[]).includes(scope))) return;
    const clientId = url.searchParams.get('client_id');
    // Read from storage only (a client ID metadata document is not fetched twice): a client
    // unknown there is left to oidc-provider, which registers or refuses it.
    const client = clientId === null || clientId === '' ? null : await core.oauth.objects.find('Client', clientId);
    const registered = requestedScopesOf(client?.payload.scope);
    const defaults = ALL_SCOPES.filter((scope) => registered.includes(scope));
    url.searchParams.set('scope', [...named, ...(defaults.length > 0 ? defaults : ALL_SCOPES)].join(' '));
    req.url = url.pathname + url.search;
  }

  const metadataHandler: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
    if (req.path !== '/' && req.path !== MCP_RESOURCE_PATH) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    // A browser-based MCP client sends MCP-Protocol-Version, so it asks first (CORS preflight).
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
      const asked = req.headers['access-control-request-headers'];
      if (typeof asked === 'string') res.setHeader('Access-Control-Allow-Headers', asked);
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(protectedResourceMetadata(siteUrl));
  };

  async function interactionOf(req: IncomingMessage, res: ServerResponse, uid: string) {
    const interaction = await provider.interactionDetails(req, res).catch(() => null);
    if (!interaction || interaction.uid !== uid) {
      throw new PorchError('RESOURCE_NOT_FOUND', 'This connection request has expired or was started in another browser; start connecting again from the app.');
    }
    return interaction;
  }

  function requestedScopesOf(scope: unknown): string[] {
    return typeof scope === 'string' ? scope.split(' ').filter((value) => value !== '') : [];
  }

  /**
   * The grant an earlier decision on a still-pending interaction saved: no code was issued for it
   * (the authorization endpoint ends the interaction when it resumes), so nothing uses it.
   */
  async function forgetUnusedGrant(result: unknown): Promise<void> {
    const decided = typeof result === 'object' && result !== null && 'consent' in result ? result.consent : undefined;
    const grantId = typeof decided === 'object' && decided !== null && 'grantId' in decided ? decided.grantId : undefined;
    if (typeof grantId === 'string') await core.oauth.objects.destroy('Grant', grantId);
  }

  const consent: ConsentPort = {
    async details(req, res, uid) {
      const interaction = await interactionOf(req, res, uid);
      const clientId = String(interaction.params.client_id);
      const client = await provider.Client.find(clientId);
      if (!client) throw new PorchError('RESOURCE_NOT_FOUND', 'The app that asked to connect is no longer registered; start connecting again from the app.');
      const redirectUri = String(interaction.params.redirect_uri ?? client.redirectUris?.[0] ?? '');
      let redirectHost = redirectUri;
      let redirectSource = '';
      try {
        const parsed = new URL(redirectUri);
        redirectHost = parsed.host || redirectUri;
        redirectSource = parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : parsed.protocol;
      } catch {
        // Not a URL oidc-provider would have accepted; shown as registered, allowed nowhere.
      }
      return {
        uid,
        clientId,
        clientName: displayName(client),
        redirectHost,
        redirectSource,
        requestedScopes: requestedScopesOf(interaction.params.scope).filter((scope) => (ALL_SCOPES as readonly string[]).includes(scope)),
      };
    },
    async approve(req, res, { uid, accountId, scopes: ticked }) {
      const interaction = await interactionOf(req, res, uid);
      const account = await core.oauth.findAccount(accountId);
      if (!account) throw new PorchError('MISSING_API_KEY', 'Your session has ended; sign in again.');
      const details = await consent.details(req, res, uid);
      const requested = requestedScopesOf(interaction.params.scope);
      // Only what the app asked for can be granted: its tokens carry no other scope, and the
      // connection must not hold more than they do (regression: a box ticked beyond the request).
      const scopes = ticked.filter((scope) => requested.includes(scope));
      // Checked now so the page answers at once; the connection itself is made when the code is
      // exchanged (connectOnExchange below), which checks again.
      core.oauth.checkConnectable(account, scopes);
      await forgetUnusedGrant(interaction.result);
      const grant = new provider.Grant({ accountId, clientId: details.clientId });
      const oidcRequested = requested.filter((scope) => (OIDC_SCOPES as readonly string[]).includes(scope));
      if (oidcRequested.length + scopes.length > 0) grant.addOIDCScope([...oidcRequested, ...scopes].join(' '));
      // Under the resource as the app wrote it too: `.../mcp/` is the MCP resource, but
      // oidc-provider looks the grant up by the indicator it was sent (regression: a trailing
      // slash asked for consent again, then answered 500).
      const asked = [interaction.params.resource].flat().filter((resource): resource is string => typeof resource === 'string');
      const resources = [...new Set([mcpResource, ...asked.filter((resource) => normalisedResource(resource) === mcpResource)])];
      if (scopes.length > 0) for (const resource of resources) grant.addResourceScope(resource, scopes.join(' '));
      // Asked for and not granted: recorded as refused, so oidc-provider does not ask again.
      const refused = requested.filter((scope) => (ALL_SCOPES as readonly string[]).includes(scope) && !scopes.includes(scope));
      if (refused.length > 0) {
        grant.rejectOIDCScope(refused.join(' '));
        for (const resource of resources) grant.rejectResourceScope(resource, refused.join(' '));
      }
      const grantId = await grant.save();
      return provider.interactionResult(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
    },
    async deny(req, res, uid) {
      const interaction = await interactionOf(req, res, uid);
      // Denied after an approval on the same page (the back button, a second tab): the approval's
      // grant never led to a code, as the interaction would be gone; it goes (regression: the
      // refused app stayed connected, and its earlier connection had been ended by the approval).
      await forgetUnusedGrant(interaction.result);
      return provider.interactionResult(
        req,
        res,
        { error: 'access_denied', error_description: 'The user declined to connect the app.' },
        { mergeWithLastSubmission: false },
      );
    },
  };

  return {
    handler: (req, res, next) => (req.baseUrl === OAUTH_PATHS.protectedResourceMetadata ? metadataHandler(req, res, next) : handler(req, res, next)),
    consent,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** oidc-provider's error page for a person (a bad authorization request): plain, no script. */
function errorPage(code: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connection failed</title></head><body><main><h1>The app could not connect</h1><p>${escapeHtml(description)}</p><p><code>${escapeHtml(code)}</code></p></main></body></html>`;
}
