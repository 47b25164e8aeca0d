import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, ORGANISATION_ADMIN_ONLY, organisationSchema, organisationScopes, organisationTag } from './organisation-schemas.js';

export const getOrganisation = defineKeyedOperation({
  name: 'get_organisation',
  title: 'Get the organisation',
  description: `Reads the caller's organisation: name, owner, policies (EU-only models, strict BYOK, guardrails) and members with their plans and which one is the admin. ${ADMIN_ONLY}`,
  method: 'GET',
  path: '/organisation',
  tag: organisationTag,
  effect: 'read',
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  output: organisationSchema,
  run: (_input, { core, caller }) => core.organisationAdmin.get(caller),
});
