/**
 * The four executable kinds as the run pages see them: listing every resource (for pickers and
 * to name a run's resource), one resource's runnable shape (its versions, labels and the inputs
 * its definition declares), and executing it, each through the kind's own operations.
 */
import { defaultVersion } from '../../../core/catalog/versions.js';
import { templateReferences } from '../../../core/engine/template.js';
import type { PorchError } from '../../../core/errors.js';
import { compositionLifecycle, personaLifecycle, skillLifecycle, workflowLifecycle } from '../../../operations/catalog-lifecycle.js';
import { executeComposition } from '../../../operations/execute-composition.js';
import { executePersona } from '../../../operations/execute-persona.js';
import { executeSkill } from '../../../operations/execute-skill.js';
import { executeWorkflow } from '../../../operations/execute-workflow.js';
import { listCompositions } from '../../../operations/list-compositions.js';
import { listPersonas } from '../../../operations/list-personas.js';
import { listSkills } from '../../../operations/list-skills.js';
import { listWorkflows } from '../../../operations/list-workflows.js';
import type { OperationOutput } from '../../../operations/operation.js';
import type { RunKind } from '../../../db/store.js';
import type { CallResult, OperationCaller } from '../../call-operation.js';

export const KIND_LABELS: Record<RunKind, string> = { composition: 'Composition', skill: 'Skill', persona: 'Persona', workflow: 'Workflow' };
export const KINDS: readonly RunKind[] = ['composition', 'skill', 'persona', 'workflow'];

export interface ResourceChoice {
  kind: RunKind;
  id: string;
  name: string;
}

/** Every resource of the four kinds, by kind (a kind the session cannot list is left out). */
export async function listResources(api: OperationCaller): Promise<ResourceChoice[]> {
  const [compositions, skills, personas, workflows] = await Promise.all([
    api.call(listCompositions),
    api.call(listSkills),
    api.call(listPersonas),
    api.call(listWorkflows),
  ]);
  const named = (kind: RunKind, result: CallResult<{ items: Array<{ id: string; name: string }> }>): ResourceChoice[] =>
    result.ok ? result.data.items.map((item) => ({ kind, id: item.id, name: item.name })) : [];
  return [...named('composition', compositions), ...named('skill', skills), ...named('persona', personas), ...named('workflow', workflows)];
}

/**
 * One resource's name with a single call (its kind's get), for a page that polls: listing all
 * four kinds would cost four calls of the session's rate limit each time. Undefined when it is
 * gone (deleted) or cannot be read.
 */
export async function resourceName(api: OperationCaller, kind: RunKind, id: string): Promise<string | undefined> {
  const lifecycle = { composition: compositionLifecycle, skill: skillLifecycle, persona: personaLifecycle, workflow: workflowLifecycle }[kind];
  const found = await api.call(lifecycle.get, { id });
  return found.ok ? found.data.name : undefined;
}

/** `composition:<id>`: how a picker names one resource. */
export function resourceRef(choice: { kind: RunKind; id: string }): string {
  return `${choice.kind}:${choice.id}`;
}

export function parseResourceRef(ref: string | undefined): { kind: RunKind; id: string } | null {
  if (!ref) return null;
  const separator = ref.indexOf(':');
  const kind = ref.slice(0, separator);
  const id = ref.slice(separator + 1);
  return (KINDS as readonly string[]).includes(kind) && id.length > 0 ? { kind: kind as RunKind, id } : null;
}

/** One input the playground asks for: a variable, or a skill's or persona's text. */
export interface InputField {
  name: string;
  required: boolean;
  description?: string | undefined;
  defaultValue?: string | undefined;
}

/** What the playground needs to run one resource. */
export interface Runnable {
  kind: RunKind;
  id: string;
  name: string;
  description: string;
  /** Label -> version (`latest` included). */
  labels: Record<string, number>;
  versions: number[];
  /** The version whose declared inputs the form shows: the one the selector runs. */
  shownVersion: number;
  variables: InputField[];
  /** Skills and personas take a text (`input`); personas also an optional `context`. */
  takesInput: boolean;
  takesContext: boolean;
}

type Declared = Array<{ name: string; required: boolean; default?: string | number | boolean | undefined; description?: string | undefined }>;

function declaredFields(declared: Declared, template: string | null): InputField[] {
  const fields: InputField[] = declared.map((variable) => ({
    name: variable.name,
    required: variable.required,
    description: variable.description,
    defaultValue: variable.default === undefined ? undefined : String(variable.default),
  }));
  // A placeholder the author did not declare is required (the bundle format's rule); it still gets a field.
  const known = new Set(fields.map((field) => field.name));
  for (const name of template === null ? [] : templateReferences(template)) if (!known.has(name)) fields.push({ name, required: true });
  return fields;
}

/**
 * The version an execution with this selector runs, as core resolves it: a label names its
 * version, `version:N` itself, and no selector `production` when it is set, else the newest.
 * A label or version the resource does not have answers the default, the choice its select falls
 * back to, so the form is the one a run from it gets (the playground says that the selector names
 * nothing; a run naming it is refused by the API with its own message).
 */
export function selectedVersion(labels: Record<string, number>, newest: number, versions: readonly number[], selector: string | undefined): number {
  const asked = selectorInput(selector);
  if (asked.version !== undefined && versions.includes(asked.version)) return asked.version;
  if (asked.label !== undefined && Object.hasOwn(labels, asked.label)) return labels[asked.label] ?? newest;
  return defaultVersion(
    newest,
    Object.entries(labels).map(([label, version]) => ({ label, version })),
  );
}

/**
 * The definition at the version the form is for: the newest one came with the resource, an older
 * one (a label such as `production` left on it, or a version picked by number) is read, since its
 * variables may differ (regression: the form showed the newest version's, and a run of
 * `production` was refused for a variable the form never offered).
 */
async function definitionAt<Definition>(
  newest: Definition & { version: number },
  version: number,
  readVersion: (version: number) => Promise<CallResult<{ definition: Definition }>>,
): Promise<Definition> {
  if (version === newest.version) return newest;
  const older = await readVersion(version);
  return older.ok ? older.data.definition : newest;
}

/**
 * Loads a resource with its versions, its form built from the version `selector` runs; the error
 * is the API's (404 for another account's id).
 */
export async function loadRunnable(
  api: OperationCaller,
  kind: RunKind,
  id: string,
  selector?: string,
): Promise<{ ok: true; runnable: Runnable } | { ok: false; error: PorchError }> {
  const common = (
    detail: { id: string; name: string; description: string; labels: Record<string, number>; version: number },
    versions: CallResult<{ items: Array<{ version: number }> }>,
  ) => {
    const numbers = versions.ok ? versions.data.items.map((item) => item.version) : [];
    return {
      kind,
      id: detail.id,
      name: detail.name,
      description: detail.description,
      labels: detail.labels,
      versions: numbers,
      shownVersion: selectedVersion(detail.labels, detail.version, numbers, selector),
    };
  };
  switch (kind) {
    case 'composition': {
      const lifecycle = compositionLifecycle;
      const [detail, versions] = await Promise.all([api.call(lifecycle.get, { id }), api.call(lifecycle.listVersions, { id })]);
      if (!detail.ok) return detail;
      const shared = common(detail.data, versions);
      const definition = await definitionAt(detail.data, shared.shownVersion, (version) => api.call(lifecycle.getVersion, { id, version }));
      return {
        ok: true,
        runnable: { ...shared, variables: declaredFields(definition.variables, definition.template), takesInput: false, takesContext: false },
      };
    }
    case 'workflow': {
      const lifecycle = workflowLifecycle;
      const [detail, versions] = await Promise.all([api.call(lifecycle.get, { id }), api.call(lifecycle.listVersions, { id })]);
      if (!detail.ok) return detail;
      const shared = common(detail.data, versions);
      const definition = await definitionAt(detail.data, shared.shownVersion, (version) => api.call(lifecycle.getVersion, { id, version }));
      return { ok: true, runnable: { ...shared, variables: declaredFields(definition.variables, null), takesInput: false, takesContext: false } };
    }
    case 'skill': {
      const lifecycle = skillLifecycle;
      const [detail, versions] = await Promise.all([api.call(lifecycle.get, { id }), api.call(lifecycle.listVersions, { id })]);
      if (!detail.ok) return detail;
      const shared = common(detail.data, versions);
      const definition = await definitionAt(detail.data, shared.shownVersion, (version) => api.call(lifecycle.getVersion, { id, version }));
      // A skill declares no variables: every placeholder of its instructions must have a value, as
      // the renderer refuses a missing one (regression: they were shown as optional).
      const variables = templateReferences(definition.instructions).map((name) => ({ name, required: true }));
      return { ok: true, runnable: { ...shared, variables, takesInput: true, takesContext: false } };
    }
    case 'persona': {
      const [detail, versions] = await Promise.all([api.call(personaLifecycle.get, { id }), api.call(personaLifecycle.listVersions, { id })]);
      if (!detail.ok) return detail;
      return { ok: true, runnable: { ...common(detail.data, versions), variables: [], takesInput: true, takesContext: true } };
    }
  }
}

/** Which version runs: `label:production`, `version:3`, or empty for the API's default. */
export function selectorInput(selector: string | undefined): { version?: number; label?: string } {
  if (!selector) return {};
  if (selector.startsWith('label:')) return { label: selector.slice('label:'.length) };
  if (selector.startsWith('version:')) {
    const version = Number(selector.slice('version:'.length));
    return Number.isInteger(version) ? { version } : {};
  }
  return {};
}

export type ExecutionOutput =
  | { kind: 'composition'; data: OperationOutput<typeof executeComposition> }
  | { kind: 'skill'; data: OperationOutput<typeof executeSkill> }
  | { kind: 'persona'; data: OperationOutput<typeof executePersona> }
  | { kind: 'workflow'; data: OperationOutput<typeof executeWorkflow> };

export interface ExecutionRequest {
  selector: string | undefined;
  variables: Record<string, string>;
  input: string | undefined;
  context: string | undefined;
}

/** Executes the resource with the form's values; fields left empty are not sent (defaults apply, required ones are refused by the API). */
export async function execute(
  api: OperationCaller,
  runnable: Pick<Runnable, 'kind' | 'id'>,
  request: ExecutionRequest,
): Promise<{ ok: true; output: ExecutionOutput; creditsRemaining: number | null } | { ok: false; error: PorchError }> {
  const base = { id: runnable.id, ...selectorInput(request.selector) };
  const variables = Object.keys(request.variables).length > 0 ? { variables: request.variables } : {};
  switch (runnable.kind) {
    case 'composition': {
      const result = await api.call(executeComposition, { ...base, ...variables });
      return result.ok ? { ok: true, output: { kind: 'composition', data: result.data }, creditsRemaining: result.meta.creditsRemaining } : result;
    }
    case 'skill': {
      const result = await api.call(executeSkill, { ...base, ...variables, input: request.input ?? '' });
      return result.ok ? { ok: true, output: { kind: 'skill', data: result.data }, creditsRemaining: result.meta.creditsRemaining } : result;
    }
    case 'persona': {
      const result = await api.call(executePersona, { ...base, input: request.input ?? '', ...(request.context ? { context: request.context } : {}) });
      return result.ok ? { ok: true, output: { kind: 'persona', data: result.data }, creditsRemaining: result.meta.creditsRemaining } : result;
    }
    case 'workflow': {
      const result = await api.call(executeWorkflow, { ...base, ...variables, include_trace: true });
      return result.ok ? { ok: true, output: { kind: 'workflow', data: result.data }, creditsRemaining: result.meta.creditsRemaining } : result;
    }
  }
}
