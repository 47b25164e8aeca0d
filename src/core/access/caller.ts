import type { AccountRecord } from '../../db/store.js';

/** Who is calling: the authenticated key and the account it acts for. Built once per request. */
export interface Caller {
  account: AccountRecord;
  credential: {
    kind: 'api_key' | 'partner_key';
    id: string;
    scopes: readonly string[];
    requestsPerMinute: number;
    requestsPerDay: number;
  };
}
