import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, ORGANISATION_ADMIN_ONLY, organisationScopes, organisationTag, ruleIdParams } from './organisation-schemas.js';

export const deleteSanitiserRule = defineKeyedOperation({
  name: 'delete_sanitiser_rule',
  title: 'Remove a sanitiser rule',
  description: `Removes one of the organisation's custom rules, or its override of a built-in rule (the built-in default applies again). Answers 204 with no body. ${ADMIN_ONLY}`,
  method: 'DELETE',
  path: '/organisation/sanitiser-rules/{rule_id}',
  tag: organisationTag,
  effect: 'destructive',
  successStatus: 204,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  params: ruleIdParams,
  output: null,
  run: ({ rule_id }, { core, caller }) => core.organisationAdmin.deleteSanitiserRule(caller, rule_id),
});
