/**
 * Settings → Organisation, for the organisation's admin: its policies (EU-only models, strict
 * BYOK, guardrails), its sanitiser rules and overrides with a live test box, its BYOK provider
 * keys (write-only: a key is never shown again, not even in a form after an error), and its
 * members. Every action is an operation; who may is core's rule (the owner only), so a member
 * who is not the admin gets the operation's 403 and this page explains it.
 */
import type { JSX } from 'preact';
import type { z } from 'zod';
import { PorchError } from '../../core/errors.js';
import { GUARDRAIL_MODES, GUARDRAIL_SEVERITIES } from '../../core/sanitiser/guardrails.js';
import { findingSpans } from '../../core/sanitiser/overlap.js';
import type { customRuleDefinitionSchema, findingSchema } from '../../core/sanitiser/schemas.js';
import { deleteSanitiserRule } from '../../operations/delete-sanitiser-rule.js';
import { getAccount } from '../../operations/get-account.js';
import { getOrganisation } from '../../operations/get-organisation.js';
import { actionFor, BASE_FIELD, digestsOf, encodeBase, type FieldTexts, mergeEdit, parseBase } from './catalog/edit-base.js';
import { listByokKeys } from '../../operations/list-byok-keys.js';
import { listSanitiserRules } from '../../operations/list-sanitiser-rules.js';
import type { OperationOutput } from '../../operations/operation.js';
import { putByokKey } from '../../operations/put-byok-key.js';
import { putSanitiserRule } from '../../operations/put-sanitiser-rule.js';
import { revokeByokKey } from '../../operations/revoke-byok-key.js';
import { scanText } from '../../operations/scan-text.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { updateOrganisationPolicies } from '../../operations/update-organisation-policies.js';
import { type FormBody, formBody, formValue, type PageContext, type PageRegistrar } from '../console-pages.js';
import { dateTime, textareaContent } from './format.js';
import { Notice, PostForm, TableWrap } from './layout.js';

const PATH = `${CONSOLE_PATHS.root}/settings/organisation`;
const SEVERITIES = ['info', 'warn', 'block'] as const;
/** What the test box shows before anything is typed. */
const TEST_BOX_EXAMPLE = 'Mail ada@example.com the Bluebird roadmap.';

type Organisation = OperationOutput<typeof getOrganisation>;
type SanitiserRules = OperationOutput<typeof listSanitiserRules>;
type SanitiserRule = SanitiserRules['items'][number];
type ByokKeys = OperationOutput<typeof listByokKeys>;
type Finding = z.output<typeof findingSchema>;
type CustomRule = z.output<typeof customRuleDefinitionSchema>;
type ScanResult = OperationOutput<typeof scanText>;

/** The custom rule form's fields, as the admin last typed them (after an error) or as stored (editing). */
interface RuleDraft {
  rule_id?: string | undefined;
  label?: string | undefined;
  severity?: string | undefined;
  kind?: string | undefined;
  pattern?: string | undefined;
  ignore_case?: boolean | undefined;
  keywords?: string | undefined;
  case_sensitive?: boolean | undefined;
  enabled?: boolean | undefined;
  /** Editing a stored rule: the form's fields as opened (edit-base.ts), so a save sends back only what the admin changed. */
  base?: string | undefined;
}

/** What the page shows once after an action. */
interface Outcome {
  success?: string;
  error?: PorchError;
  /** Which form the error belongs to, so its fields keep what was typed. */
  draft?: RuleDraft;
  scan?: { text: string; result: ScanResult | null; error?: PorchError };
}

const GUARDRAIL_MODE_LABELS: Record<(typeof GUARDRAIL_MODES)[number], string> = {
  off: 'Off',
  report: 'Report findings',
  redact: 'Redact findings',
  block: 'Block the call',
};

function Toggle({ name, label, checked, hint }: { name: string; label: string; checked: boolean; hint: string }) {
  // The hidden field sends "off" when the box is unticked; a ticked box's "on" comes after it and wins.
  return (
    <div class="field">
      <input type="hidden" name={name} value="off" />
      <label class="toggle">
        <input type="checkbox" name={name} value="on" checked={checked} /> {label}
      </label>
      <span class="hint">{hint}</span>
    </div>
  );
}

function Select({
  id,
  name,
  label,
  value,
  options,
}: {
  id: string;
  name: string;
  label: string;
  value: string;
  options: ReadonlyArray<{ value: string; label: string }>;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name}>
        {options.map((option) => (
          <option value={option.value} selected={option.value === value} key={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The policies as the form's fields send them, for the merge of a save with what changed since (edit-base.ts). */
function policyTexts(policies: Organisation['policies']): FieldTexts {
  return {
    eu_only_models: policies.eu_only_models ? 'on' : 'off',
    strict_byok: policies.strict_byok ? 'on' : 'off',
    guardrail_inputs: policies.guardrails.inputs,
    guardrail_outputs: policies.guardrails.outputs,
    guardrail_min_severity: policies.guardrails.min_severity,
  };
}

const POLICY_LABELS: Readonly<Record<string, string>> = {
  eu_only_models: 'EU-only models',
  strict_byok: 'Strict BYOK',
  guardrail_inputs: 'What is sent to a model',
  guardrail_outputs: 'What a model answers',
  guardrail_min_severity: 'Act on findings from',
};

function PoliciesForm({ organisation, csrfToken }: { organisation: Organisation; csrfToken: string }) {
  const { policies } = organisation;
  const modes = GUARDRAIL_MODES.map((mode) => ({ value: mode, label: GUARDRAIL_MODE_LABELS[mode] }));
  const policyBase = digestsOf(policyTexts(policies));
  return (
    <section class="panel" id="policies" aria-labelledby="policies-title">
      <h2 id="policies-title">Policies</h2>
      <p class="hint">They apply to every member's model calls, through the API, MCP and the console, from the next call on.</p>
      {/* The base in the action too, so Back never sends typed choices with a newer base (actionFor). */}
      <PostForm action={actionFor(`${PATH}/policies`, policyBase)} csrfToken={csrfToken} class="stack">
        <input type="hidden" name={BASE_FIELD} value={encodeBase(policyBase)} />
        <Toggle
          name="eu_only_models"
          label="EU-only models"
          checked={policies.eu_only_models}
          hint="Only models hosted in the EU may be used; others answer 403 MODEL_ACCESS_DENIED."
        />
        <Toggle
          name="strict_byok"
          label="Strict BYOK"
          checked={policies.strict_byok}
          hint="Model calls must use the organisation's own provider keys: use_byok: false is refused."
        />
        <fieldset>
          <legend>Guardrails (the sanitiser on every model call)</legend>
          <div class="form-grid">
            <Select id="guardrail-inputs" name="guardrail_inputs" label="What is sent to a model" value={policies.guardrails.inputs} options={modes} />
            <Select id="guardrail-outputs" name="guardrail_outputs" label="What a model answers" value={policies.guardrails.outputs} options={modes} />
            <Select
              id="guardrail-severity"
              name="guardrail_min_severity"
              label="Act on findings from"
              value={policies.guardrails.min_severity}
              options={GUARDRAIL_SEVERITIES.map((severity) => ({ value: severity, label: severity }))}
            />
          </div>
        </fieldset>
        <div class="actions">
          <button type="submit">Save policies</button>
        </div>
      </PostForm>
    </section>
  );
}

function SeverityBadge({ severity }: { severity: string }) {
  const kind = severity === 'block' ? 'badge-danger' : severity === 'warn' ? 'badge-warn' : '';
  return <span class={`badge ${kind}`}>{severity}</span>;
}

function ruleSummary(rule: SanitiserRule): JSX.Element {
  const definition = rule.definition;
  if (rule.kind === 'override') {
    const parts = [
      'enabled' in definition && definition.enabled === false ? 'turned off' : null,
      'enabled' in definition && definition.enabled === true ? 'turned on' : null,
      definition.severity ? `severity ${definition.severity}` : null,
    ].filter((part) => part !== null);
    return <span>Built-in rule: {parts.join(', ')}</span>;
  }
  if ('kind' in definition && definition.kind === 'regex') {
    return (
      <span>
        {definition.label}: regex <code>{definition.pattern}</code>
        {definition.flags === 'i' ? ' (any case)' : ''}
      </span>
    );
  }
  if ('kind' in definition) {
    return (
      <span>
        {definition.label}: {(definition.keywords ?? []).join(', ')}
        {definition.case_sensitive ? ' (exact case)' : ''}
      </span>
    );
  }
  return <span />;
}

function RulesTable({ rules, csrfToken }: { rules: SanitiserRules; csrfToken: string }) {
  if (rules.items.length === 0) return <p class="empty">No custom rules or overrides yet: the built-in rules apply as they are.</p>;
  return (
    <TableWrap label="Custom rules and overrides">
      <table>
        <caption class="muted">Custom rules and overrides</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">What it does</th>
            <th scope="col">Severity</th>
            <th scope="col">Status</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rules.items.map((rule) => {
            const enabled = !('enabled' in rule.definition) || rule.definition.enabled !== false;
            const severity = rule.definition.severity ?? rules.built_in_rules.find((builtIn) => builtIn.rule_id === rule.rule_id)?.severity ?? 'warn';
            return (
              <tr key={rule.rule_id}>
                <td>
                  <code>{rule.rule_id}</code>
                </td>
                <td class="wrap">{ruleSummary(rule)}</td>
                <td>
                  <SeverityBadge severity={severity} />
                </td>
                <td>{enabled ? <span class="badge badge-success">on</span> : <span class="badge">off</span>}</td>
                <td>{dateTime(rule.updated_at)}</td>
                <td>
                  <div class="actions">
                    {rule.kind === 'custom' ? (
                      <a class="button secondary" href={`${PATH}?edit=${encodeURIComponent(rule.rule_id)}#rule-form`}>
                        Edit<span class="visually-hidden"> {rule.rule_id}</span>
                      </a>
                    ) : null}
                    <PostForm action={`${PATH}/sanitiser-rules/${encodeURIComponent(rule.rule_id)}/delete`} csrfToken={csrfToken}>
                      <button
                        type="submit"
                        class="danger"
                        data-confirm={
                          rule.kind === 'custom' ? `Delete the rule ${rule.rule_id}?` : `Remove the override? ${rule.rule_id} goes back to its default.`
                        }
                      >
                        {rule.kind === 'custom' ? 'Delete' : 'Reset'}
                        <span class="visually-hidden"> {rule.rule_id}</span>
                      </button>
                    </PostForm>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

function CustomRuleForm({ draft, editing, csrfToken }: { draft: RuleDraft; editing: boolean; csrfToken: string }) {
  const kind = draft.kind ?? 'keywords';
  return (
    // The base in the action too, so Back never sends typed fields with a newer base (actionFor).
    <PostForm action={actionFor(`${PATH}/sanitiser-rules`, parseBase(draft.base))} csrfToken={csrfToken} class="stack">
      <h3 id="rule-form">{editing ? `Edit ${draft.rule_id ?? 'the rule'}` : 'Add a custom rule'}</h3>
      {draft.base === undefined ? null : <input type="hidden" name={BASE_FIELD} value={draft.base} />}
      <div class="form-grid">
        <div class="field">
          <label for="rule-id">Rule id</label>
          <input id="rule-id" name="rule_id" type="text" required maxLength={71} value={draft.rule_id ?? ''} placeholder="custom.project-codenames" />
          <span class="hint">custom. then lower-case letters, digits, - or _. Saving an existing id replaces that rule.</span>
        </div>
        <div class="field">
          <label for="rule-label">Label</label>
          <input id="rule-label" name="label" type="text" required maxLength={100} value={draft.label ?? ''} placeholder="Project codename" />
        </div>
        <Select
          id="rule-severity"
          name="severity"
          label="Severity"
          value={draft.severity ?? 'warn'}
          options={SEVERITIES.map((severity) => ({ value: severity, label: severity }))}
        />
        <Select
          id="rule-kind"
          name="kind"
          label="Matches"
          value={kind}
          options={[
            { value: 'keywords', label: 'Keywords (whole words)' },
            { value: 'regex', label: 'Regular expression (RE2)' },
          ]}
        />
      </div>
      <div class="field">
        <label for="rule-keywords">Keywords</label>
        <textarea id="rule-keywords" name="keywords" class="short" placeholder={'Bluebird\nProject Falcon'}>
          {textareaContent(draft.keywords ?? '')}
        </textarea>
        <span class="hint">For keyword rules: one per line (a comma is part of the keyword), matched as whole words.</span>
        <label class="toggle">
          <input type="checkbox" name="case_sensitive" value="on" checked={draft.case_sensitive === true} /> Match case exactly
        </label>
      </div>
      <div class="field">
        <label for="rule-pattern">Pattern</label>
        {/* A textarea, as a single-line input would drop a line break the pattern holds. */}
        <textarea id="rule-pattern" name="pattern" class="code" rows={2} maxLength={2_000} placeholder="INV-[0-9]{6}">
          {textareaContent(draft.pattern ?? '')}
        </textarea>
        <span class="hint">For regex rules: RE2 syntax, which runs in linear time (no lookaround or backreferences).</span>
        <label class="toggle">
          <input type="checkbox" name="ignore_case" value="on" checked={draft.ignore_case === true} /> Ignore case
        </label>
      </div>
      <Toggle name="enabled" label="Enabled" checked={draft.enabled ?? true} hint="A disabled rule is kept but not applied." />
      <div class="actions">
        <button type="submit">Save rule</button>
        {editing ? (
          <a class="button secondary" href={`${PATH}#sanitiser`}>
            Cancel
          </a>
        ) : null}
      </div>
    </PostForm>
  );
}

function OverrideForm({ rules, csrfToken }: { rules: SanitiserRules; csrfToken: string }) {
  return (
    <PostForm action={`${PATH}/overrides`} csrfToken={csrfToken} class="stack">
      <h3>Change a built-in rule</h3>
      <div class="field">
        <label for="override-rule">Built-in rule</label>
        <select id="override-rule" name="rule_id">
          {rules.built_in_rules.map((rule) => (
            <option value={rule.rule_id} key={rule.rule_id}>
              {rule.label} ({rule.rule_id})
            </option>
          ))}
        </select>
      </div>
      <div class="form-grid">
        <Select
          id="override-enabled"
          name="enabled"
          label="State"
          value=""
          options={[
            { value: '', label: 'Leave as it is' },
            { value: 'on', label: 'On' },
            { value: 'off', label: 'Off' },
          ]}
        />
        <Select
          id="override-severity"
          name="severity"
          label="Severity"
          value=""
          options={[{ value: '', label: 'Leave as it is' }, ...SEVERITIES.map((severity) => ({ value: severity, label: severity }))]}
        />
      </div>
      <div class="actions">
        <button type="submit">Save override</button>
      </div>
    </PostForm>
  );
}

function BuiltInRules({ rules }: { rules: SanitiserRules }) {
  const changed = rules.built_in_rules.filter((rule) => rule.overridden).length;
  return (
    <details class="builtins">
      <summary>
        Built-in rules ({rules.built_in_rules.length}, {changed} changed)
      </summary>
      <TableWrap label="Built-in rules">
        <table>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Finds</th>
              <th scope="col">Severity</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rules.built_in_rules.map((rule) => (
              <tr key={rule.rule_id}>
                <td>
                  <code>{rule.rule_id}</code>
                </td>
                <td>{rule.label}</td>
                <td>
                  <SeverityBadge severity={rule.severity} />
                  {rule.severity !== rule.default_severity ? <span class="hint"> (default {rule.default_severity})</span> : null}
                </td>
                <td>{rule.enabled ? 'on' : <span class="badge">off</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </details>
  );
}

/** The scanned text with each finding marked in place (sorted by start; overlapping ones share one mark). */
function HighlightedText({ text, findings }: { text: string; findings: readonly Finding[] }) {
  const parts: Array<string | JSX.Element> = [];
  let at = 0;
  findingSpans(findings).forEach((span, index) => {
    parts.push(text.slice(at, span.start));
    parts.push(
      <mark class={`finding finding-${span.severity}`} title={span.findings.map((finding) => `${finding.label} (${finding.rule_id})`).join(', ')} key={index}>
        {text.slice(span.start, span.end)}
      </mark>,
    );
    at = span.end;
  });
  parts.push(text.slice(at));
  return <pre class="scanned">{parts}</pre>;
}

function ScanOutcome({ scan }: { scan: NonNullable<Outcome['scan']> }) {
  if (scan.error) return <Notice kind="error">{scan.error.message}</Notice>;
  if (scan.text.trim() === '' || scan.result === null) return <p class="hint">Type or paste text above: what the sanitiser finds is marked here.</p>;
  const { findings, severity } = scan.result;
  return (
    <div>
      <p>
        Overall: <SeverityBadge severity={severity} />{' '}
        {findings.length === 0 ? 'nothing found.' : `${findings.length} finding${findings.length === 1 ? '' : 's'}.`}
      </p>
      <HighlightedText text={scan.text} findings={findings} />
      {findings.length > 0 ? (
        <ul class="findings">
          {findings.map((finding, index) => (
            <li key={index}>
              <SeverityBadge severity={finding.severity} /> {finding.label} <code>{finding.rule_id}</code> at {finding.start}–{finding.end}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function TestBox({ scan, csrfToken }: { scan: NonNullable<Outcome['scan']>; csrfToken: string }) {
  return (
    <PostForm action={`${PATH}/sanitiser-test`} csrfToken={csrfToken} class="stack wide">
      <h3>Test the rules</h3>
      <div class="field">
        <label for="test-text">Text to scan</label>
        <textarea
          id="test-text"
          name="text"
          class="short"
          hx-post={`${PATH}/sanitiser-test`}
          hx-trigger="input changed delay:400ms"
          hx-target="#scan-result"
          hx-swap="innerHTML"
        >
          {textareaContent(scan.text)}
        </textarea>
        <span class="hint">Scanned as you type with the organisation's rules as saved; nothing is stored.</span>
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Scan
        </button>
      </div>
      <div id="scan-result" aria-live="polite">
        <ScanOutcome scan={scan} />
      </div>
    </PostForm>
  );
}

function SanitiserSection({
  rules,
  draft,
  editing,
  scan,
  csrfToken,
}: {
  rules: SanitiserRules;
  draft: RuleDraft;
  editing: boolean;
  scan: NonNullable<Outcome['scan']>;
  csrfToken: string;
}) {
  return (
    <section class="panel" id="sanitiser" aria-labelledby="sanitiser-title">
      <h2 id="sanitiser-title">Sanitiser rules</h2>
      <p class="hint">
        The organisation's own rules and its changes to the built-in ones apply to every scan and to the guardrails, in every Porch process, from the next call
        on.
      </p>
      <RulesTable rules={rules} csrfToken={csrfToken} />
      <BuiltInRules rules={rules} />
      <div class="columns">
        <CustomRuleForm draft={draft} editing={editing} csrfToken={csrfToken} />
        <OverrideForm rules={rules} csrfToken={csrfToken} />
      </div>
      <TestBox scan={scan} csrfToken={csrfToken} />
    </section>
  );
}

function ByokSection({ keys, strictByok, csrfToken }: { keys: ByokKeys; strictByok: boolean; csrfToken: string }) {
  // Under strict BYOK a call without the organisation's own key is refused, not sent through the shared gateway.
  const withoutKey = strictByok ? 'calls to that provider are refused (strict BYOK)' : 'calls go through the shared gateway';
  return (
    <section class="panel" id="byok" aria-labelledby="byok-title">
      <h2 id="byok-title">BYOK keys</h2>
      <p class="hint">
        The organisation's own provider keys: every member's calls to that provider use them and are not metered. Stored encrypted; after saving, only the last
        characters are ever shown.
      </p>
      {keys.items.length === 0 ? (
        <p class="empty">
          No BYOK keys: {strictByok ? 'model calls are refused until one is set (strict BYOK).' : 'model calls go through the shared gateway.'}
        </p>
      ) : (
        <TableWrap label="Stored BYOK keys">
          <table>
            <caption class="muted">BYOK keys</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.items.map((key) => (
                <tr key={key.id}>
                  <td>{key.provider}</td>
                  <td>
                    <code>{key.key_hint}</code>
                  </td>
                  <td>
                    {key.status === 'active' ? (
                      <span class="badge badge-success">active</span>
                    ) : (
                      <span class="badge badge-danger">revoked {key.revoked_at ? dateTime(key.revoked_at) : ''}</span>
                    )}
                  </td>
                  <td>{dateTime(key.created_at)}</td>
                  <td>
                    {key.status === 'active' ? (
                      <PostForm action={`${PATH}/byok-keys/${key.id}/revoke`} csrfToken={csrfToken}>
                        <button type="submit" class="danger" data-confirm={`Revoke the ${key.provider} key ${key.key_hint}? Then ${withoutKey}.`}>
                          Revoke<span class="visually-hidden"> the {key.provider} key</span>
                        </button>
                      </PostForm>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {keys.providers.length === 0 ? (
        <Notice kind="info">
          No model provider is configured besides the offline echo provider, so there is nothing to bring a key for. The operator adds providers in
          porch.config.yaml.
        </Notice>
      ) : (
        <PostForm action={`${PATH}/byok-keys`} csrfToken={csrfToken} class="stack">
          <h3>Add a key</h3>
          <div class="form-grid">
            <Select
              id="byok-provider"
              name="provider"
              label="Provider"
              value={keys.providers[0] ?? ''}
              options={keys.providers.map((provider) => ({ value: provider, label: provider }))}
            />
            <div class="field">
              <label for="byok-key">Key</label>
              {/* Never given a value: the key is not echoed back, not even after an error. */}
              <input id="byok-key" name="key" type="password" required autocomplete="off" spellcheck={false} />
            </div>
          </div>
          <span class="hint">It replaces the provider's active key, if there is one.</span>
          <div class="actions">
            <button type="submit">Save key</button>
          </div>
        </PostForm>
      )}
    </section>
  );
}

function MembersSection({ organisation }: { organisation: Organisation }) {
  return (
    <section class="panel" id="members" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <TableWrap label="Member accounts">
        <table>
          <caption class="muted">Members of {organisation.name}</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Plan</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            {organisation.members.map((member) => (
              <tr key={member.id}>
                <td>{member.email}</td>
                <td>{member.name ?? '—'}</td>
                <td>
                  <span class="badge">{member.plan}</span>
                </td>
                <td>{member.admin ? <span class="badge badge-success">admin</span> : 'member'}</td>
                <td>{dateTime(member.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p class="hint">The operator adds accounts to the organisation (porch account create --organisation).</p>
    </section>
  );
}

/** What a member who is not the admin sees: why, and the policies that apply to them. */
async function renderNotAdmin({ api, render }: PageContext, error: PorchError): Promise<void> {
  const account = await api.call(getAccount);
  const policies = account.ok ? account.data.organisation.policies : null;
  render({
    title: 'Organisation',
    active: 'organisation',
    address: PATH,
    status: error.status,
    body: (
      <section>
        <h1>Organisation</h1>
        <Notice kind="info">{error.message}</Notice>
        {account.ok && policies ? (
          <div class="panel">
            <h2>The policies that apply to your calls</h2>
            <p class="hint">Set by the admin of {account.data.organisation.name}.</p>
            <ul>
              <li>EU-only models: {policies.eu_only_models ? 'on' : 'off'}</li>
              <li>Strict BYOK: {policies.strict_byok ? 'on' : 'off'}</li>
              <li>Guardrails on what is sent to a model: {GUARDRAIL_MODE_LABELS[policies.guardrails.inputs].toLowerCase()}</li>
              <li>Guardrails on what a model answers: {GUARDRAIL_MODE_LABELS[policies.guardrails.outputs].toLowerCase()}</li>
              {policies.guardrails.inputs === 'off' && policies.guardrails.outputs === 'off' ? null : (
                <li>The guardrails act on findings of severity {policies.guardrails.min_severity} and above</li>
              )}
            </ul>
          </div>
        ) : null}
      </section>
    ),
  });
}

async function renderPage(ctx: PageContext, outcome: Outcome = {}): Promise<void> {
  const { api, render, signedIn, req } = ctx;
  const organisation = await api.call(getOrganisation);
  if (!organisation.ok) {
    if (organisation.error.code === 'ACCESS_DENIED') return renderNotAdmin(ctx, organisation.error);
    throw organisation.error;
  }
  const [rules, keys] = await Promise.all([api.call(listSanitiserRules), api.call(listByokKeys)]);
  if (!rules.ok) throw rules.error;
  if (!keys.ok) throw keys.error;

  const editId = typeof req.query.edit === 'string' ? req.query.edit : undefined;
  const edited = customRule(rules.data, editId);
  const draft = outcome.draft ?? (edited ? draftOf(edited) : {});
  const scan = outcome.scan ?? (await scanOf(ctx, TEST_BOX_EXAMPLE));
  const csrfToken = signedIn.csrfToken;
  render({
    title: 'Organisation',
    active: 'organisation',
    address: PATH,
    status: outcome.error?.status ?? 200,
    body: (
      <section>
        <h1>Organisation</h1>
        <p class="lead">
          <strong>{organisation.data.name}</strong>: you are its admin. What you set here applies to all {organisation.data.members.length} member
          {organisation.data.members.length === 1 ? '' : 's'}.
        </p>
        <nav aria-label="On this page" class="page-links">
          <a href="#policies">Policies</a> <a href="#sanitiser">Sanitiser rules</a> <a href="#byok">BYOK keys</a> <a href="#members">Members</a>
        </nav>
        {outcome.error ? <Notice kind="error">{outcome.error.message}</Notice> : null}
        {outcome.success ? <Notice kind="success">{outcome.success}</Notice> : null}
        <PoliciesForm organisation={organisation.data} csrfToken={csrfToken} />
        <SanitiserSection
          rules={rules.data}
          draft={draft}
          editing={rules.data.items.some((rule) => rule.kind === 'custom' && rule.rule_id === draft.rule_id)}
          scan={scan}
          csrfToken={csrfToken}
        />
        <ByokSection keys={keys.data} strictByok={organisation.data.policies.strict_byok} csrfToken={csrfToken} />
        <MembersSection organisation={organisation.data} />
      </section>
    ),
  });
}

/** The custom rule form's fields as text, for the merge of a save with what changed since (edit-base.ts). */
function ruleTexts(draft: RuleDraft): FieldTexts {
  const onOff = (value: boolean | undefined) => (value === true ? 'on' : 'off');
  return {
    rule_id: draft.rule_id ?? '',
    label: draft.label ?? '',
    severity: draft.severity ?? '',
    kind: draft.kind ?? '',
    keywords: draft.keywords ?? '',
    case_sensitive: onOff(draft.case_sensitive),
    pattern: draft.pattern ?? '',
    ignore_case: onOff(draft.ignore_case),
    enabled: onOff(draft.enabled ?? true),
  };
}

const RULE_FIELD_LABELS: Readonly<Record<string, string>> = {
  label: 'Label',
  severity: 'Severity',
  kind: 'Matches',
  keywords: 'Keywords',
  case_sensitive: 'Match case exactly',
  pattern: 'Pattern',
  ignore_case: 'Ignore case',
  enabled: 'Enabled',
};

function draftOf(definition: CustomRule): RuleDraft {
  const draft: RuleDraft = {
    rule_id: definition.rule_id,
    label: definition.label,
    severity: definition.severity,
    kind: definition.kind,
    pattern: definition.pattern,
    ignore_case: definition.flags === 'i',
    // One a line; a keyword holding a line break shows as two lines, but is sent back as it is
    // stored unless the admin edits the box (customRuleChanges).
    keywords: (definition.keywords ?? []).join('\n'),
    case_sensitive: definition.case_sensitive === true,
    enabled: definition.enabled,
  };
  return { ...draft, base: encodeBase(digestsOf(ruleTexts(draft))) };
}

/** The organisation's custom rule of that id, as stored. */
function customRule(rules: SanitiserRules, ruleId: string | undefined): CustomRule | undefined {
  const rule = rules.items.find((item) => item.kind === 'custom' && item.rule_id === ruleId);
  return rule !== undefined && 'kind' in rule.definition ? rule.definition : undefined;
}

async function scanOf({ api }: PageContext, text: string): Promise<NonNullable<Outcome['scan']>> {
  if (text.trim() === '') return { text, result: null };
  const result = await api.call(scanText, { text });
  return result.ok ? { text, result: result.data } : { text, result: null, error: result.error };
}

/** A checkbox sent with its hidden "off" companion: the last value wins. */
function toggleValue(body: FormBody, name: string): boolean | undefined {
  const value = formValue(body, name);
  return value === undefined ? undefined : value === 'on';
}

function ruleDraftFrom(body: FormBody): RuleDraft {
  return {
    rule_id: formValue(body, 'rule_id')?.trim(),
    label: formValue(body, 'label'),
    severity: formValue(body, 'severity'),
    kind: formValue(body, 'kind'),
    pattern: formValue(body, 'pattern'),
    ignore_case: formValue(body, 'ignore_case') === 'on',
    keywords: formValue(body, 'keywords'),
    case_sensitive: formValue(body, 'case_sensitive') === 'on',
    enabled: toggleValue(body, 'enabled') ?? true,
  };
}

/**
 * The keywords box, one keyword a line. A comma is part of a keyword ("Smith, John"), never a
 * separator (regression: a save split such a keyword in two).
 */
function keywordsOf(text: string | undefined): string[] | undefined {
  const keywords = (text ?? '')
    .split(/\r\n?|\n/)
    .map((keyword) => keyword.trim())
    .filter((keyword) => keyword !== '');
  return keywords.length === 0 ? undefined : keywords;
}

/** A pattern as typed: a browser sends a textarea's line breaks as CRLF, which the pattern did not hold. */
function patternOf(text: string | undefined): string | undefined {
  return text?.replace(/\r\n?/g, '\n');
}

/** The operation's input for a custom rule: only the fields of its kind, so the operation's message is about what matters. */
function customRuleInput(draft: RuleDraft): Record<string, unknown> {
  const common = { rule_id: draft.rule_id, label: draft.label, severity: draft.severity, enabled: draft.enabled, kind: draft.kind };
  if (draft.kind === 'regex') return { ...common, pattern: patternOf(draft.pattern), ...(draft.ignore_case ? { flags: 'i' } : {}) };
  return { ...common, keywords: keywordsOf(draft.keywords), case_sensitive: draft.case_sensitive };
}

/**
 * A stored rule with the fields the admin changed (`changed`, named as in ruleTexts) taken from
 * the form, and every other field exactly as stored. put_sanitiser_rule replaces a rule whole,
 * and the form cannot show every stored value as it is (a keyword holding a line break), so a
 * field the admin did not touch is sent as stored, not as the form shows it (regression: saving
 * a new severity split "Smith, John" in two and took the line break out of a pattern).
 */
function customRuleChanges(stored: CustomRule, draft: RuleDraft, changed: readonly string[]): Record<string, unknown> {
  const pick = <Value,>(name: string, mine: Value, kept: Value): Value => (changed.includes(name) ? mine : kept);
  const kind = pick('kind', draft.kind, stored.kind);
  const common = {
    rule_id: stored.rule_id,
    label: pick('label', draft.label, stored.label),
    severity: pick('severity', draft.severity, stored.severity),
    enabled: pick('enabled', draft.enabled, stored.enabled),
    kind,
  };
  if (kind === 'regex') {
    const flags = pick('ignore_case', draft.ignore_case ? 'i' : undefined, stored.flags);
    return { ...common, pattern: pick('pattern', patternOf(draft.pattern), stored.pattern), ...(flags === undefined ? {} : { flags }) };
  }
  return {
    ...common,
    keywords: pick('keywords', keywordsOf(draft.keywords), stored.keywords),
    case_sensitive: pick('case_sensitive', draft.case_sensitive, stored.case_sensitive),
  };
}

/** What a save of the custom rule form does: the input to send, or an outcome to show without sending. */
async function customRuleSave(ctx: PageContext, body: FormBody, draft: RuleDraft): Promise<{ input: Record<string, unknown>; redraft: RuleDraft } | Outcome> {
  const base = parseBase(formValue(body, BASE_FIELD));
  // A new rule, or one saved under another id than it was opened with: the form is the whole definition.
  if (base === null || digestsOf({ rule_id: draft.rule_id ?? '' }).rule_id !== base.rule_id) return { input: customRuleInput(draft), redraft: draft };
  const rules = await ctx.api.call(listSanitiserRules);
  if (!rules.ok) return { error: rules.error, draft };
  const stored = customRule(rules.data, draft.rule_id);
  // Deleted since it was opened: the form puts it back whole.
  if (stored === undefined) return { input: customRuleInput(draft), redraft: draft };
  const current = draftOf(stored);
  const texts = ruleTexts(draft);
  const merge = mergeEdit(base, texts, ruleTexts(current));
  if (merge.kind === 'unchanged') return { success: 'Nothing changed, so nothing was saved.' };
  // After a refused save the form shows the rule as it is now with the admin's changes over it, and
  // that as its base: saving again sends those changes, and keeps what was saved meanwhile.
  const typed = digestsOf(texts);
  const changed = Object.keys(texts).filter((name) => typed[name] !== base[name]);
  const mine: Readonly<Record<string, unknown>> = { ...draft };
  const redraft: RuleDraft = { ...current, ...Object.fromEntries(changed.map((name) => [name, mine[name]])) };
  if (merge.kind === 'conflict') {
    const names = merge.fields.map((name) => RULE_FIELD_LABELS[name] ?? name).join(', ');
    return {
      error: new PorchError('CONFLICT', `Since you opened this rule, ${names} was changed elsewhere. The form keeps your changes; save again to keep them.`),
      draft: redraft,
    };
  }
  return { input: customRuleChanges(stored, draft, merge.fields), redraft };
}

export function registerOrganisationPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, (ctx) => renderPage(ctx));

  pages.page('POST', `${PATH}/policies`, async (ctx) => {
    const body = formBody(ctx.req);
    // Only what the admin changed is sent, so a policy set meanwhile elsewhere (the API, `porch
    // org set`, another tab) stays as it was set (regression: the form sent every field back).
    const base = parseBase(formValue(body, BASE_FIELD));
    const mine = Object.fromEntries(Object.keys(POLICY_LABELS).map((name) => [name, formValue(body, name) ?? ''])) as FieldTexts;
    const organisation = await ctx.api.call(getOrganisation);
    if (!organisation.ok) throw organisation.error;
    const merge = mergeEdit(base, mine, policyTexts(organisation.data.policies));
    if (merge.kind === 'unchanged') return renderPage(ctx, { success: 'Nothing changed, so nothing was saved.' });
    if (merge.kind === 'conflict') {
      const names = merge.fields.map((name) => POLICY_LABELS[name] ?? name).join(', ');
      return renderPage(ctx, {
        error: new PorchError('CONFLICT', `Since you opened this page, ${names} was changed elsewhere; the form now shows it as it is. Choose again and save.`),
      });
    }
    const sent = (name: string) => (merge.fields.includes(name) ? formValue(body, name) : undefined);
    const guardrails = { inputs: sent('guardrail_inputs'), outputs: sent('guardrail_outputs'), min_severity: sent('guardrail_min_severity') };
    const toggle = (name: string) => (merge.fields.includes(name) ? toggleValue(body, name) : undefined);
    const result = await ctx.api.call(updateOrganisationPolicies, {
      eu_only_models: toggle('eu_only_models'),
      strict_byok: toggle('strict_byok'),
      guardrails: Object.values(guardrails).some((value) => value !== undefined) ? guardrails : undefined,
    });
    await renderPage(ctx, result.ok ? { success: 'Saved the policies. They apply from the next call on.' } : { error: result.error });
  });

  pages.page('POST', `${PATH}/sanitiser-rules`, async (ctx) => {
    const body = formBody(ctx.req);
    const save = await customRuleSave(ctx, body, ruleDraftFrom(body));
    if (!('input' in save)) return renderPage(ctx, save);
    const result = await ctx.api.call(putSanitiserRule, save.input);
    await renderPage(ctx, result.ok ? { success: `Saved the rule ${result.data.rule_id}.` } : { error: result.error, draft: save.redraft });
  });

  pages.page('POST', `${PATH}/overrides`, async (ctx) => {
    const body = formBody(ctx.req);
    const ruleId = formValue(body, 'rule_id');
    // put_sanitiser_rule replaces an override whole, so "Leave as it is" sends what is stored
    // (regression: setting the state alone put a rule the organisation blocks back on warn).
    const rules = await ctx.api.call(listSanitiserRules);
    const stored = rules.ok ? rules.data.items.find((item) => item.kind === 'override' && item.rule_id === ruleId)?.definition : undefined;
    const kept = (stored ?? {}) as { enabled?: boolean; severity?: string };
    const result = await ctx.api.call(putSanitiserRule, {
      rule_id: ruleId,
      enabled: toggleValue(body, 'enabled') ?? kept.enabled,
      severity: formValue(body, 'severity') ?? kept.severity,
    });
    await renderPage(ctx, result.ok ? { success: `Saved the override of ${result.data.rule_id}.` } : { error: result.error });
  });

  pages.page('POST', `${PATH}/sanitiser-rules/:ruleId/delete`, async (ctx) => {
    const ruleId = ctx.req.params.ruleId ?? '';
    const result = await ctx.api.call(deleteSanitiserRule, { rule_id: ruleId });
    await renderPage(ctx, result.ok ? { success: `Removed ${ruleId}.` } : { error: result.error });
  });

  pages.page('POST', `${PATH}/sanitiser-test`, async (ctx) => {
    const scan = await scanOf(ctx, formValue(formBody(ctx.req), 'text') ?? '');
    // htmx asks for the result alone, to swap it in under the box; a form post without JavaScript gets the whole page.
    if (ctx.req.get('HX-Request') === 'true') return ctx.fragment(<ScanOutcome scan={scan} />);
    await renderPage(ctx, { scan });
  });

  pages.page('POST', `${PATH}/byok-keys`, async (ctx) => {
    const body = formBody(ctx.req);
    const result = await ctx.api.call(putByokKey, { provider: formValue(body, 'provider'), key: formValue(body, 'key') });
    await renderPage(
      ctx,
      result.ok
        ? {
            success: `Stored the ${result.data.provider} key ${result.data.key_hint}. It is never shown again; calls to ${result.data.provider} use it from now on.`,
          }
        : { error: result.error },
    );
  });

  pages.page('POST', `${PATH}/byok-keys/:id/revoke`, async (ctx) => {
    const result = await ctx.api.call(revokeByokKey, { id: ctx.req.params.id });
    await renderPage(ctx, result.ok ? { success: `Revoked the ${result.data.provider} key ${result.data.key_hint}.` } : { error: result.error });
  });
}
