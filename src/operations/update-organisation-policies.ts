import { z } from 'zod';
import { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES } from '../core/sanitiser/guardrails.js';
import { defineKeyedOperation } from './operation.js';
import { ADMIN_ONLY, ORGANISATION_ADMIN_ONLY, organisationSchema, organisationScopes, organisationTag } from './organisation-schemas.js';

export const updateOrganisationPolicies = defineKeyedOperation({
  name: 'update_organisation_policies',
  title: "Change the organisation's policies",
  description: `Changes the organisation's policies for every member: EU-only models, strict BYOK, and the guardrails every model call passes. Only the fields sent change; at least one must be. Answers the organisation. ${ADMIN_ONLY}`,
  method: 'PATCH',
  path: '/organisation/policies',
  tag: organisationTag,
  effect: 'write',
  idempotent: true,
  successStatus: 200,
  scopes: organisationScopes,
  refuses: ORGANISATION_ADMIN_ONLY,
  body: z.strictObject({
    eu_only_models: z.boolean().optional().describe('Only models hosted in the EU may be used.'),
    strict_byok: z.boolean().optional().describe("Model calls must use the organisation's own provider keys."),
    guardrails: z
      .strictObject({
        inputs: z.enum(GUARDRAIL_MODES).optional().describe('What model calls do with findings in what they send: off, report, redact or block.'),
        outputs: z.enum(GUARDRAIL_MODES).optional().describe("What model calls do with findings in the model's answer: off, report, redact or block."),
        min_severity: z.enum(GUARDRAIL_SEVERITIES).optional().describe('The lowest finding severity the guardrails act on: info, warn or block.'),
      })
      .optional()
      .describe('The guardrails; only the fields sent change.'),
  }),
  output: organisationSchema,
  run: (input, { core, caller }) => core.organisationAdmin.updatePolicies(caller, input),
});
