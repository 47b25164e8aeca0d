import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { listOf, MAX_PAGE_LIMIT, pageQuery } from './schemas.js';
import { balanceSchema, ledgerEntrySchema, usageScopes } from './self-service-schemas.js';

/** Entries a ledger page holds when the caller names no limit. */
export const DEFAULT_LEDGER_PAGE = 100;

export const listCreditLedger = defineKeyedOperation({
  name: 'list_credit_ledger',
  title: 'List the credits ledger',
  description: `The account's current credits and its ledger, newest first: grants, charges and adjustments, each with the balance after it. The ledger grows with every charge, so it is always paged: ${DEFAULT_LEDGER_PAGE} entries unless limit says otherwise (at most ${MAX_PAGE_LIMIT}); next_cursor reads on.`,
  method: 'GET',
  path: '/credits/ledger',
  tag: 'Usage',
  effect: 'read',
  successStatus: 200,
  scopes: usageScopes,
  query: pageQuery.extend({ limit: pageQuery.shape.limit.describe(`Optional page size (1-${MAX_PAGE_LIMIT}); default ${DEFAULT_LEDGER_PAGE}.`) }),
  output: listOf(ledgerEntrySchema, 'ledger entries')
    .extend({
      balance: balanceSchema,
      next_cursor: z.uuid().nullable().describe('The cursor of the next page, or null on the last page.'),
    })
    .describe('The balance and a page of ledger entries.'),
  run: async ({ limit, cursor }, { core, caller }) => {
    const ledger = await core.usage.ledger(caller.account.id, { limit: limit ?? DEFAULT_LEDGER_PAGE, ...(cursor === undefined ? {} : { cursor }) });
    return { ...ledger, next_cursor: ledger.next_cursor ?? null };
  },
});
