import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { ACCOUNT_HOLDER_ONLY, keyScopes, ownKeySchema } from './self-service-schemas.js';

export const revokeKey = defineKeyedOperation({
  name: 'revoke_key',
  title: 'Revoke an API key',
  description:
    "Revokes one of the account's API keys for good; it is refused from the next request on. A key may revoke itself (this request still completes). Revoking a revoked key changes nothing.",
  method: 'POST',
  path: '/keys/{id}/revoke',
  tag: 'Keys',
  effect: 'destructive',
  successStatus: 200,
  scopes: keyScopes,
  refuses: ACCOUNT_HOLDER_ONLY,
  params: idParams,
  output: ownKeySchema,
  run: ({ id }, { core, caller }) => core.selfService.revokeKey(caller, id),
});
