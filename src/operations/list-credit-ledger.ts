import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery } from './schemas.js';
import { balanceSchema, ledgerEntrySchema, usageScopes } from './self-service-schemas.js';

export const listCreditLedger = defineKeyedOperation({
  name: 'list_credit_ledger',
  title: 'List the credits ledger',
  description:
    "The account's current credits and its ledger, newest first: grants, charges and adjustments, each with the balance after it. Page with limit and cursor.",
  method: 'GET',
  path: '/credits/ledger',
  tag: 'Usage',
  effect: 'read',
  successStatus: 200,
  scopes: usageScopes,
  query: pageQuery,
  output: listOf(ledgerEntrySchema, 'ledger entries').extend({ balance: balanceSchema }).describe('The balance and ledger entries.'),
  run: (input, { core, caller }) => core.usage.ledger(caller.account.id, input),
});
