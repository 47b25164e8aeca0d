import type { AccountRecord } from '../../db/store.js';
import { PorchError } from '../errors.js';

/**
 * Who is calling: the authenticated key (or the console session) and the account it acts for.
 * Built once per request.
 */
export interface Caller {
  account: AccountRecord;
  credential: {
    /** `session`: a person signed in to the web console, acting as their account. */
    kind: 'api_key' | 'partner_key' | 'session';
    id: string;
    scopes: readonly string[];
    requestsPerMinute: number;
    requestsPerDay: number;
    /** An `api_key` that is an OAuth-connected app's credential: its caller holds an access token, not a key. */
    connectedApp?: boolean;
  };
}

/**
 * The credentials some operations refuse whatever their scopes (`refuses` on an operation):
 * partner keys, which act for an account without managing it, and connected apps' tokens.
 */
export type CredentialClass = 'partner_key' | 'connected_app';

export function credentialClassOf(credential: Caller['credential']): CredentialClass | null {
  if (credential.kind === 'partner_key') return 'partner_key';
  return credential.connectedApp === true ? 'connected_app' : null;
}

/**
 * The refusal of a credential an operation refuses whatever its scopes (`refuses`), checked before
 * its scopes so that the answer says who may call it rather than which scope to add (regression: a
 * partner key without manage:keys was told to use a key holding it). `scopes` are those that grant
 * the operation to the account holder's own keys.
 */
export function credentialClassRefusal(credentialClass: CredentialClass, operationName: string, scopes: readonly string[]): PorchError {
  const holderKey = `in the console or with one of their own keys holding ${scopes.join(' or ')}`;
  if (credentialClass === 'connected_app') {
    return new PorchError(
      'ACCESS_DENIED',
      `Connected apps cannot call ${operationName}, whatever their scopes: the key it makes would outlive the app's disconnection. The account holder does, ${holderKey}.`,
    );
  }
  // The organisation is its admin's to manage; everything else a partner key is refused, the account holder's.
  const managesOrganisation = scopes.includes('manage:organisation');
  return new PorchError(
    'ACCESS_DENIED',
    managesOrganisation
      ? `Partner keys cannot manage the organisation (${operationName}), whatever their scopes; its admin does, ${holderKey}.`
      : `Partner keys cannot call ${operationName}, whatever their scopes; the account holder does, ${holderKey}.`,
  );
}

/**
 * Refuses a partner key where only the account holder may act: its keys and connected apps. A
 * partner key acts for an account on behalf of a partner's product; a key it could mint (with any
 * scope it holds, manage:organisation included) would outlive the partner key's revocation.
 */
export function requireAccountHolder(caller: Caller, what: string): void {
  if (caller.credential.kind === 'partner_key') {
    throw new PorchError(
      'ACCESS_DENIED',
      `Partner keys cannot ${what}; the account holder does, in the console or with one of their own keys holding manage:keys.`,
    );
  }
}

/**
 * Refuses an OAuth-connected app where a credential would be minted (creating or rotating a key):
 * the key would outlive the app's disconnection, which ends its tokens and nothing else.
 */
export function refuseConnectedApp(caller: Caller, what: string): void {
  if (caller.credential.connectedApp === true) {
    throw new PorchError(
      'ACCESS_DENIED',
      `Connected apps cannot ${what}: the key would outlive the app's disconnection. The account holder does, in the console or with one of their own keys holding manage:keys.`,
    );
  }
}
