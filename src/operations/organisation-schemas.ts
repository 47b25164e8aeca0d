/**
 * Schemas of the organisation operations: what an organisation's admin reads and changes. Who
 * may is core's rule (core/accounts/organisation-admin.ts): the organisation's owner only, with a
 * key holding manage:organisation or signed in to the console.
 */
import { z } from 'zod';
import type { CredentialClass } from '../core/access/caller.js';
import type { Scope } from '../core/access/scopes.js';
import { PLANS } from '../core/domain/plans.js';
import { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES } from '../core/sanitiser/guardrails.js';
import { customRuleDefinitionSchema, findingSeveritySchema, ruleOverrideSchema } from '../core/sanitiser/schemas.js';
import { timestampSchema } from './schemas.js';

export const organisationScopes: readonly Scope[] = ['manage:organisation'];
/** The organisation's admin acts through their own credentials, never through a partner key. */
export const ORGANISATION_ADMIN_ONLY: readonly CredentialClass[] = ['partner_key'];
export const organisationTag = 'Organisation';

/** What every organisation operation's description ends with: who may call it. */
export const ADMIN_ONLY =
  "Only the organisation's admin (its owner account) may call it, with a key holding manage:organisation or in the console; other members get 403 ACCESS_DENIED, partner keys too.";

const guardrailModeSchema = z
  .enum(GUARDRAIL_MODES)
  .describe(
    'What model calls do with findings: off (nothing), report (return the findings, without their text, with the result), redact (replace each finding by a placeholder), block (refuse with 422 CONTENT_BLOCKED).',
  );
const guardrailSeveritySchema = z.enum(GUARDRAIL_SEVERITIES).describe('The lowest finding severity the guardrails act on.');

export const organisationPoliciesSchema = z
  .object({
    eu_only_models: z.boolean().describe('Only models hosted in the EU may be used.'),
    strict_byok: z.boolean().describe("Model calls must use the organisation's own provider keys (use_byok: false is refused)."),
    guardrails: z
      .object({
        inputs: guardrailModeSchema,
        outputs: guardrailModeSchema,
        min_severity: guardrailSeveritySchema,
      })
      .describe('The sanitiser applied to every model call of the organisation: to what is sent (inputs) and to what the model answers (outputs).'),
  })
  .describe("The organisation's policies.");

export const organisationSchema = z
  .object({
    id: z.uuid().describe('Organisation id.'),
    name: z.string().describe('Organisation name.'),
    owner_account_id: z.uuid().nullable().describe('The account that owns the organisation: its admin.'),
    policies: organisationPoliciesSchema,
    members: z
      .array(
        z.object({
          id: z.uuid().describe('Account id.'),
          email: z.string().describe('Account email.'),
          name: z.string().nullable().describe('Account name, or null.'),
          plan: z.enum(PLANS).describe("The member's plan."),
          admin: z.boolean().describe("Whether the member is the organisation's admin (its owner)."),
          created_at: timestampSchema,
        }),
      )
      .describe('Every account of the organisation, oldest first.'),
    created_at: timestampSchema,
  })
  .describe('The organisation, its policies and its members.');

export const sanitiserRuleSchema = z
  .object({
    rule_id: z.string().describe('The rule id: "custom.<slug>" for a custom rule, a built-in rule id for an override.'),
    kind: z.enum(['custom', 'override']).describe("custom: one of the organisation's own rules; override: its change to a built-in rule."),
    definition: z.union([customRuleDefinitionSchema, ruleOverrideSchema]).describe('The rule as stored: a custom rule, or an override.'),
    updated_at: timestampSchema,
  })
  .describe("One of the organisation's sanitiser rules or overrides.");

export const builtInRuleStateSchema = z
  .object({
    rule_id: z.string().describe('Built-in rule id, e.g. "pii.email".'),
    label: z.string().describe('What the rule finds.'),
    category: z.string().describe('The kind of data: personal data or secret.'),
    default_severity: findingSeveritySchema.describe('The severity the rule has without an override.'),
    severity: findingSeveritySchema.describe('The severity the rule has for this organisation.'),
    enabled: z.boolean().describe('Whether the rule applies for this organisation.'),
    overridden: z.boolean().describe('Whether the organisation has an override of this rule.'),
  })
  .describe('A built-in rule as it applies to the organisation.');

/** The body of put_sanitiser_rule: a custom rule's whole definition, or an override's fields. */
export const sanitiserRuleBody = z.strictObject({
  rule_id: z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .describe('"custom.<slug>" adds or replaces a custom rule; a built-in rule id (list_sanitiser_rules lists them) stores an override.'),
  label: customRuleDefinitionSchema.shape.label.optional().describe('Custom rules: the name shown on findings.'),
  severity: findingSeveritySchema.optional().describe('info, warn or block. Required for a custom rule; an override may change it.'),
  enabled: z.boolean().optional().describe('false stores the rule switched off (custom), or turns the built-in rule off (override).'),
  kind: customRuleDefinitionSchema.shape.kind.optional().describe('Custom rules: regex (an RE2 pattern) or keywords (whole words).'),
  pattern: customRuleDefinitionSchema.shape.pattern,
  flags: customRuleDefinitionSchema.shape.flags,
  keywords: customRuleDefinitionSchema.shape.keywords,
  case_sensitive: customRuleDefinitionSchema.shape.case_sensitive,
});

export const ruleIdParams = z.object({
  rule_id: z
    .string()
    .min(1)
    .max(100, 'must be at most 100 characters')
    .describe('The rule id: "custom.<slug>", or a built-in rule id whose override to remove.'),
});

export const byokKeySchema = z
  .object({
    id: z.uuid().describe('BYOK key id.'),
    provider: z.string().describe('The provider the key is for (a configured provider id).'),
    key_hint: z.string().describe('The last characters of the key, to recognise it ("...abcd"); the key itself is never shown again.'),
    status: z.enum(['active', 'revoked']).describe('active: calls to the provider use it; revoked: it is no longer used.'),
    created_at: timestampSchema,
    revoked_at: timestampSchema.nullable().describe('When it was revoked, or null.'),
  })
  .describe("One of the organisation's BYOK provider keys, without the key.");
