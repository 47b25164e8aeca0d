/**
 * Where the OAuth authorization server lives, and what the composition root and the console see
 * of it; kept apart from authorization-server.ts so neither loads oidc-provider to know them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { type ConsentRequest, PROTECTED_RESOURCE_METADATA_PATH } from '../core/access/oauth.js';

/** Where oidc-provider's endpoints live on the site. */
export const OAUTH_PATHS = {
  prefix: '/oauth',
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  endSession: '/oauth/end-session',
  /** The console page of an interaction (sign-in, then consent). */
  consent: '/console/connect',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  protectedResourceMetadata: PROTECTED_RESOURCE_METADATA_PATH,
} as const;

/** The paths the composition root mounts the server's handler at. */
export const OAUTH_MOUNT_PATHS = [
  OAUTH_PATHS.prefix,
  OAUTH_PATHS.authorizationServerMetadata,
  OAUTH_PATHS.openidConfiguration,
  OAUTH_PATHS.protectedResourceMetadata,
] as const;

export interface ConsentPort {
  /** The pending request of this browser's interaction `uid`; 404 RESOURCE_NOT_FOUND when there is none (expired, another browser). */
  details(req: IncomingMessage, res: ServerResponse, uid: string): Promise<ConsentRequest>;
  /**
   * Approves the app for the account with the chosen scopes (the connection is made when the app
   * exchanges the code); the URL to send the browser to.
   */
  approve(req: IncomingMessage, res: ServerResponse, request: { uid: string; accountId: string; scopes: readonly string[] }): Promise<string>;
  /** Refuses the request (access_denied to the host); the URL to send the browser to. */
  deny(req: IncomingMessage, res: ServerResponse, uid: string): Promise<string>;
}

export interface AuthorizationServer {
  /** Mounted at each of OAUTH_MOUNT_PATHS by the composition root. */
  handler: RequestHandler;
  consent: ConsentPort;
}
