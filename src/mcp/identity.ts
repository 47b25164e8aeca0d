/**
 * Who an MCP connection acts for. Tool calls go through the shared invocation path: over HTTP
 * with the caller authenticated once for that request, over a long-lived connection with the
 * credentials authenticated again on every call, so a revoked key stops on its next request.
 */
import type { Credentials } from '../core/access/authenticator.js';
import type { Caller } from '../core/access/caller.js';
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';

export interface McpIdentity {
  /** The key as the client sent it (X-API-Key, Bearer or PORCH_API_KEY) and X-Porch-Account. */
  readonly credentials: Credentials;
  /**
   * The caller behind the credentials, or null when no key was sent (public tools only).
   * Rejects with the authenticator's PorchError when the key does not work (any more).
   */
  currentCaller(): Promise<Caller | null>;
  /**
   * The caller fixed for the whole of one HTTP request, passed to the invocation path so a tool
   * call does not authenticate the same key twice; undefined for long-lived connections, whose
   * every call authenticates again.
   */
  readonly requestCaller: Caller | undefined;
}

/** A key that is blank counts as no key: the connection is public, not refused. */
export function hasApiKey(credentials: Credentials): boolean {
  return credentials.apiKey !== undefined && credentials.apiKey.trim() !== '';
}

/**
 * The identity of one HTTP request: the door authenticated it before creating the server (and
 * answered 401 if that failed), so listings reuse that caller instead of authenticating again.
 */
export function requestIdentity(credentials: Credentials, caller: Caller | null): McpIdentity {
  return { credentials, currentCaller: () => Promise.resolve(caller), requestCaller: caller ?? undefined };
}

/**
 * The identity of a long-lived connection (stdio, in-process clients): every listing
 * authenticates again, so revocation and plan changes show up without reconnecting.
 */
export function liveIdentity(core: Core, credentials: Credentials): McpIdentity {
  return {
    credentials,
    currentCaller: () => (hasApiKey(credentials) ? core.authenticator.authenticate(credentials) : Promise.resolve(null)),
    requestCaller: undefined,
  };
}

/**
 * The refusal of an OAuth access token (a connected app's) whose scopes do not grant the
 * operation: worded for the token, whatever the MCP request (regression: resources/read said
 * "This key lacks the scope", tools/call "This token"), as its holder never had a key.
 */
export function tokenScopeRefusal(operationName: string, scopes: readonly string[]): PorchError {
  return new PorchError('INSUFFICIENT_PERMISSIONS', `This token lacks the scope for ${operationName}; it needs one of: ${scopes.join(', ')}.`);
}
