import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, byokKeySchema, ORGANISATION_ADMIN_ONLY, organisationScopes, organisationTag } from './organisation-schemas.js';
import { idParams } from './schemas.js';

export const revokeByokKey = defineKeyedOperation({
  name: 'revoke_byok_key',
  title: 'Revoke a BYOK key',
  description: `Stops using one of the organisation's BYOK keys, from the next call on: calls to its provider go through the shared gateway again (metered), unless the organisation is strict BYOK. Revoking a revoked key changes nothing. ${ADMIN_ONLY}`,
  method: 'POST',
  path: '/organisation/byok-keys/{id}/revoke',
  tag: organisationTag,
  effect: 'destructive',
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  params: idParams,
  output: byokKeySchema,
  run: ({ id }, { core, caller }) => core.organisationAdmin.revokeByokKey(caller, id),
});
