import { pageOfOrdered } from '../core/pages.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery } from './schemas.js';
import { ACCOUNT_HOLDER_ONLY, keyScopes, ownKeySchema } from './self-service-schemas.js';

export const listKeys = defineKeyedOperation({
  name: 'list_keys',
  title: 'List API keys',
  description:
    "Lists the account's API keys, revoked and expired ones included, oldest first: prefix, name, scopes, limits, status, creation, last use (minute precision) and expiry. Never the keys themselves. Page with limit and cursor.",
  method: 'GET',
  path: '/keys',
  tag: 'Keys',
  effect: 'read',
  successStatus: 200,
  scopes: keyScopes,
  refuses: ACCOUNT_HOLDER_ONLY,
  query: pageQuery,
  output: listOf(ownKeySchema, 'keys', 'oldest first'),
  run: async (query, { core, caller }) => pageOfOrdered(await core.selfService.listKeys(caller), query),
});
