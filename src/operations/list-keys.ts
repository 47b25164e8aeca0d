import { defineKeyedOperation } from './operation.js';
import { listOf } from './schemas.js';
import { ACCOUNT_HOLDER_ONLY, keyScopes, ownKeySchema } from './self-service-schemas.js';

export const listKeys = defineKeyedOperation({
  name: 'list_keys',
  title: 'List API keys',
  description:
    "Lists the account's API keys, revoked and expired ones included, oldest first: prefix, name, scopes, limits, status, creation, last use (minute precision) and expiry. Never the keys themselves.",
  method: 'GET',
  path: '/keys',
  tag: 'Keys',
  effect: 'read',
  successStatus: 200,
  scopes: keyScopes,
  refuses: ACCOUNT_HOLDER_ONLY,
  output: listOf(ownKeySchema, 'keys', 'oldest first'),
  run: async (_input, { core, caller }) => {
    const items = await core.selfService.listKeys(caller);
    return { items, count: items.length };
  },
});
