import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, byokKeySchema, ORGANISATION_ADMIN_ONLY, organisationScopes, organisationTag } from './organisation-schemas.js';

export const listByokKeys = defineKeyedOperation({
  name: 'list_byok_keys',
  title: "List the organisation's BYOK keys",
  description: `Lists the organisation's own provider keys (bring your own key), revoked ones included: provider, the key's last characters, status and dates. Never the keys themselves. Also the providers a key may be stored for. ${ADMIN_ONLY}`,
  method: 'GET',
  path: '/organisation/byok-keys',
  tag: organisationTag,
  effect: 'read',
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  output: z
    .object({
      items: z.array(byokKeySchema).describe('The BYOK keys, oldest first.'),
      count: z.number().int().min(0).describe('Number of items in `items`.'),
      providers: z.array(z.string()).describe('The configured providers a key may be stored for.'),
    })
    .describe("The organisation's BYOK keys."),
  run: (_input, { core, caller }) => core.organisationAdmin.listByokKeys(caller),
});
