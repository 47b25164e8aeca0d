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
  };
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
