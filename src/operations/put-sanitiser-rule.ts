import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, ORGANISATION_ADMIN_ONLY, organisationScopes, organisationTag, sanitiserRuleBody, sanitiserRuleSchema } from './organisation-schemas.js';

export const putSanitiserRule = defineKeyedOperation({
  name: 'put_sanitiser_rule',
  title: 'Add or replace a sanitiser rule',
  description: `Adds or replaces, by rule_id, one of the organisation's sanitiser rules. "custom.<slug>" is a custom rule: its whole definition (label, severity, and a regex pattern in RE2 syntax, which runs in linear time, or a keyword list). A built-in rule id stores an override: enabled and/or severity. The organisation's next scan applies it, in every process. ${ADMIN_ONLY}`,
  method: 'POST',
  path: '/organisation/sanitiser-rules',
  tag: organisationTag,
  effect: 'write',
  idempotent: true,
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  body: sanitiserRuleBody,
  output: sanitiserRuleSchema,
  run: (input, { core, caller }) => core.organisationAdmin.putSanitiserRule(caller, input),
});
