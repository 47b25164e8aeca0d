/**
 * What an organisation's admin manages for everyone in it: its policies (EU-only models, strict
 * BYOK, guardrails), its sanitiser rules and overrides, its BYOK provider keys, and who its
 * members are. The rule of who may is here, in core, so REST, MCP and the console agree:
 *
 * - The admin is the organisation's owner account (OrganisationRecord.ownerAccountId): the account
 *   the organisation was created with. Every other member is refused with 403 ACCESS_DENIED, even
 *   with a key that holds `manage:organisation` and even signed in to the console (a console
 *   session holds every scope, so scopes alone cannot be the rule).
 * - A key acts for the admin only if it is one of the owner's own keys and holds
 *   `manage:organisation` (checked by the operations, granted only explicitly). Partner keys are
 *   refused: they act for an account on behalf of a partner product, not as the person who
 *   administers the organisation.
 */
import type { ByokKeyRecord, GuardrailMode, GuardrailSeverity, OrganisationRecord, Store } from '../../db/store.js';
import type { Plan } from '../domain/plans.js';
import type { Caller } from '../access/caller.js';
import type { ByokService, ByokKeyView } from '../byok/byok.js';
import { PorchError } from '../errors.js';
import { BUILT_IN_RULES } from '../sanitiser/rule-catalog.js';
import type { SanitiserRuleView, SanitiserService } from '../sanitiser/sanitiser-service.js';
import type { BuiltInRuleInfo, FindingSeverity, RuleOverride } from '../sanitiser/types.js';
import { toIsoTimestamp } from '../views.js';

export interface OrganisationPoliciesView {
  eu_only_models: boolean;
  strict_byok: boolean;
  guardrails: { inputs: GuardrailMode; outputs: GuardrailMode; min_severity: GuardrailSeverity };
}

export interface OrganisationMemberView {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  /** Whether this member is the organisation's admin (its owner). */
  admin: boolean;
  created_at: string;
}

export interface OrganisationView {
  id: string;
  name: string;
  owner_account_id: string | null;
  policies: OrganisationPoliciesView;
  members: OrganisationMemberView[];
  created_at: string;
}

export interface PolicyChanges {
  eu_only_models?: boolean | undefined;
  strict_byok?: boolean | undefined;
  guardrails?: { inputs?: GuardrailMode | undefined; outputs?: GuardrailMode | undefined; min_severity?: GuardrailSeverity | undefined } | undefined;
}

/** A built-in rule as the organisation has it: its default, and what the organisation's override makes of it. */
export interface BuiltInRuleStateView extends BuiltInRuleInfo {
  default_severity: FindingSeverity;
  enabled: boolean;
  overridden: boolean;
}

export interface SanitiserRulesView {
  items: SanitiserRuleView[];
  count: number;
  built_in_rules: BuiltInRuleStateView[];
}

/** An organisation's BYOK key as its admin sees it: never the key, only its last characters. */
export type OrganisationByokKeyView = Omit<ByokKeyView, 'account_id' | 'organisation_id'>;

export interface OrganisationByokKeysView {
  items: OrganisationByokKeyView[];
  count: number;
  /** Providers a key may be stored for: the configured ones (the offline echo provider needs none). */
  providers: string[];
}

export interface OrganisationAdminDependencies {
  store: Store;
  sanitiser: Pick<SanitiserService, 'listRules' | 'addCustomRule' | 'setOverride' | 'removeRule'>;
  byok: ByokService;
  providers: () => readonly string[];
}

/** The policies an organisation applies to its members' calls, as its admin and its members read them. */
export function policiesOf(organisation: OrganisationRecord): OrganisationPoliciesView {
  return {
    eu_only_models: organisation.euOnlyModels,
    strict_byok: organisation.strictByok,
    guardrails: { inputs: organisation.guardrailInputs, outputs: organisation.guardrailOutputs, min_severity: organisation.guardrailMinSeverity },
  };
}

function byokView({ account_id: _account, organisation_id: _organisation, ...view }: ByokKeyView): OrganisationByokKeyView {
  return view;
}

export function createOrganisationAdmin({ store, sanitiser, byok, providers }: OrganisationAdminDependencies) {
  /** The caller's organisation, when the caller is its admin; ACCESS_DENIED (with what to do) otherwise. */
  async function requireAdmin(caller: Caller): Promise<OrganisationRecord> {
    const organisation = await store.organisations.findById(caller.account.organisationId);
    if (!organisation) throw new PorchError('INTERNAL_ERROR', 'The account has no organisation.');
    if (caller.credential.kind === 'partner_key') {
      throw new PorchError(
        'ACCESS_DENIED',
        'Partner keys cannot manage the organisation; its admin does, in the console or with one of their own keys holding manage:organisation.',
      );
    }
    if (organisation.ownerAccountId !== caller.account.id) {
      throw new PorchError(
        'ACCESS_DENIED',
        "Only the organisation's admin (the account that owns it) can manage its policies, sanitiser rules, BYOK keys and members; ask them to make the change.",
      );
    }
    return organisation;
  }

  async function view(organisation: OrganisationRecord): Promise<OrganisationView> {
    const members = await store.accounts.listByOrganisation(organisation.id);
    return {
      id: organisation.id,
      name: organisation.name,
      owner_account_id: organisation.ownerAccountId,
      policies: policiesOf(organisation),
      members: members.map((member) => ({
        id: member.id,
        email: member.email,
        name: member.name,
        plan: member.plan,
        admin: member.id === organisation.ownerAccountId,
        created_at: toIsoTimestamp(member.createdAt),
      })),
      created_at: toIsoTimestamp(organisation.createdAt),
    };
  }

  /** Another organisation's BYOK key reads exactly as a missing one. */
  async function requireOwnByokKey(organisation: OrganisationRecord, id: string): Promise<ByokKeyRecord> {
    const found = (await store.byokKeys.list({ organisationId: organisation.id })).find((record) => record.id === id);
    if (!found) throw new PorchError('RESOURCE_NOT_FOUND', `No BYOK key with id ${id}.`);
    return found;
  }

  return {
    requireAdmin,

    async get(caller: Caller): Promise<OrganisationView> {
      return view(await requireAdmin(caller));
    },

    /** Only the policies given change; at least one must be (the operation's schema says so too). */
    async updatePolicies(caller: Caller, changes: PolicyChanges): Promise<OrganisationView> {
      const organisation = await requireAdmin(caller);
      const guardrails = changes.guardrails ?? {};
      const record: Partial<Pick<OrganisationRecord, 'euOnlyModels' | 'strictByok' | 'guardrailInputs' | 'guardrailOutputs' | 'guardrailMinSeverity'>> = {
        ...(changes.eu_only_models === undefined ? {} : { euOnlyModels: changes.eu_only_models }),
        ...(changes.strict_byok === undefined ? {} : { strictByok: changes.strict_byok }),
        ...(guardrails.inputs === undefined ? {} : { guardrailInputs: guardrails.inputs }),
        ...(guardrails.outputs === undefined ? {} : { guardrailOutputs: guardrails.outputs }),
        ...(guardrails.min_severity === undefined ? {} : { guardrailMinSeverity: guardrails.min_severity }),
      };
      if (Object.keys(record).length === 0) {
        throw new PorchError(
          'VALIDATION_ERROR',
          'Invalid request: give at least one of eu_only_models, strict_byok, guardrails.inputs, guardrails.outputs, guardrails.min_severity.',
        );
      }
      const updated = await store.organisations.update({ id: organisation.id, changes: record });
      if (!updated) throw new PorchError('INTERNAL_ERROR', 'The organisation disappeared while its policies were changed.');
      return view(updated);
    },

    async listSanitiserRules(caller: Caller): Promise<SanitiserRulesView> {
      const organisation = await requireAdmin(caller);
      const items = await sanitiser.listRules(organisation.id);
      const overrides = new Map(items.filter((item) => item.kind === 'override').map((item) => [item.rule_id, item.definition as RuleOverride]));
      const builtInRules = BUILT_IN_RULES.map((rule) => {
        const override = overrides.get(rule.rule_id);
        return {
          ...rule,
          default_severity: rule.severity,
          severity: override?.severity ?? rule.severity,
          enabled: override?.enabled ?? true,
          overridden: override !== undefined,
        };
      });
      return { items, count: items.length, built_in_rules: builtInRules };
    },

    /**
     * Adds or replaces a rule by its id: `custom.<slug>` is one of the organisation's own rules
     * (its whole definition, checked before it is stored); a built-in rule's id stores an override.
     */
    async putSanitiserRule(caller: Caller, input: Record<string, unknown> & { rule_id: string }): Promise<SanitiserRuleView> {
      const organisation = await requireAdmin(caller);
      const definition = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
      if (input.rule_id.startsWith('custom.')) return sanitiser.addCustomRule(organisation.id, definition);
      return sanitiser.setOverride(organisation.id, definition);
    },

    /** Removes a custom rule, or an override (the built-in default applies again). */
    async deleteSanitiserRule(caller: Caller, ruleId: string): Promise<void> {
      const organisation = await requireAdmin(caller);
      await sanitiser.removeRule(organisation.id, ruleId);
    },

    async listByokKeys(caller: Caller): Promise<OrganisationByokKeysView> {
      const organisation = await requireAdmin(caller);
      const items = (await byok.list({ organisationId: organisation.id })).map(byokView);
      return { items, count: items.length, providers: [...providers()] };
    },

    /** Stores the key encrypted (replacing the provider's active key); the answer never holds it. */
    async putByokKey(caller: Caller, provider: string, key: string): Promise<OrganisationByokKeyView> {
      const organisation = await requireAdmin(caller);
      return byokView(await byok.set({ organisationId: organisation.id }, provider, key));
    },

    async revokeByokKey(caller: Caller, id: string): Promise<OrganisationByokKeyView> {
      const organisation = await requireAdmin(caller);
      await requireOwnByokKey(organisation, id);
      return byokView(await byok.revoke(id));
    },
  };
}

export type OrganisationAdmin = ReturnType<typeof createOrganisationAdmin>;
