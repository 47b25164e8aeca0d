import type { AccountRecord } from '../../db/store.js';

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
