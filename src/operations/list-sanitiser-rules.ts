import { z } from 'zod';
import { defineKeyedOperation } from './operation.js';
import {
  ADMIN_ONLY,
  builtInRuleStateSchema,
  ORGANISATION_ADMIN_ONLY,
  organisationScopes,
  organisationTag,
  sanitiserRuleSchema,
} from './organisation-schemas.js';

export const listSanitiserRules = defineKeyedOperation({
  name: 'list_sanitiser_rules',
  title: "List the organisation's sanitiser rules",
  description: `Lists the organisation's custom sanitiser rules and its overrides of built-in rules, and every built-in rule with the severity and state it has for the organisation. ${ADMIN_ONLY}`,
  method: 'GET',
  path: '/organisation/sanitiser-rules',
  tag: organisationTag,
  effect: 'read',
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  output: z
    .object({
      items: z.array(sanitiserRuleSchema).describe('The custom rules and overrides, in rule id order.'),
      count: z.number().int().min(0).describe('Number of items in `items`.'),
      built_in_rules: z.array(builtInRuleStateSchema).describe('Every built-in rule, as it applies to the organisation.'),
    })
    .describe("The organisation's sanitiser rules."),
  run: (_input, { core, caller }) => core.organisationAdmin.listSanitiserRules(caller),
});
