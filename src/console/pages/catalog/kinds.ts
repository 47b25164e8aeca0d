/**
 * The four versioned catalog kinds as the console shows them: which operations list, read and
 * write each one, which fields its editor has, and how a form becomes the operation's input.
 * Every rule about what is valid stays in the operations; this file only maps fields.
 */
import { stringify } from 'yaml';
import { compositionLifecycle, personaLifecycle, skillLifecycle, workflowLifecycle } from '../../../operations/catalog-lifecycle.js';
import { listCompositions } from '../../../operations/list-compositions.js';
import { listPersonas } from '../../../operations/list-personas.js';
import { listSkills } from '../../../operations/list-skills.js';
import { listWorkflows } from '../../../operations/list-workflows.js';
import { CONSOLE_PATHS } from '../../../operations/site-paths.js';
import { type FormBody, formValue, type PageContext } from '../../console-pages.js';
import { tagsOf } from './form-parts.js';

/** A simple field of an editor: a line of text or a textarea, named as the operation names it. */
export interface FieldSpec {
  name: string;
  label: string;
  rows?: number;
  code?: boolean;
  hint?: string;
  required?: boolean;
  /** Comma-separated in the form, a list in the operation. */
  tags?: boolean;
  /**
   * An optional field left empty: not sent on create (the definition's default applies), and sent
   * as this on update, putting the field back: `null` removes it (`model`: the default model
   * again), a string is its default (`category`: "general").
   */
  emptyMeans?: string | null;
}

/** One declared (or detected) variable of a composition, as its editor row holds it. */
export interface VariableRow {
  name: string;
  required: boolean;
  default: string;
  description: string;
  /** A value for the preview only; never saved. */
  sample: string;
  /** Found in the template but not declared yet. */
  detected?: boolean;
  /** Declared, but the template no longer uses it: required, it would still be asked for. */
  unused?: boolean;
}

export interface EditorState {
  values: Record<string, string>;
  variables: VariableRow[];
}

type Lifecycle = typeof compositionLifecycle | typeof skillLifecycle | typeof personaLifecycle | typeof workflowLifecycle;
type ListOperation = typeof listCompositions | typeof listSkills | typeof listPersonas | typeof listWorkflows;

export interface CatalogKind {
  section: 'compositions' | 'skills' | 'personas' | 'workflows';
  title: string;
  noun: string;
  path: string;
  lifecycle: Lifecycle;
  list: ListOperation;
  /** The list's third column: what tells items apart besides name and description. */
  column: { label: string; value(item: Record<string, unknown>): string };
  fields: readonly FieldSpec[];
  /** The editor part beyond the simple fields. */
  special: 'composition' | 'workflow' | null;
  lead: string;
}

const NAME: FieldSpec = { name: 'name', label: 'Name', required: true };
const DESCRIPTION: FieldSpec = { name: 'description', label: 'Description', rows: 2 };
const MODEL: FieldSpec = { name: 'model', label: 'Model (optional)', hint: '<provider>/<model_name>; empty uses the default model.', emptyMeans: null };
const CATEGORY: FieldSpec = { name: 'category', label: 'Category', hint: 'For grouping; "general" when empty.', emptyMeans: 'general' };

const listText = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : '');

export const CATALOG_KINDS: readonly CatalogKind[] = [
  {
    section: 'compositions',
    title: 'Compositions',
    noun: 'composition',
    path: `${CONSOLE_PATHS.root}/compositions`,
    lifecycle: compositionLifecycle,
    list: listCompositions,
    column: { label: 'Tags', value: (item) => listText(item.tags) },
    fields: [
      NAME,
      DESCRIPTION,
      { name: 'tags', label: 'Tags', hint: 'Comma-separated.', tags: true },
      MODEL,
      { name: 'template', label: 'Template', rows: 10, code: true, required: true, hint: 'Placeholders are written {{name}}; \\{{ is a literal {{.' },
    ],
    special: 'composition',
    lead: 'Prompt templates with {{variables}}. Saving a change writes a new version; labels such as production choose the version executions run.',
  },
  {
    section: 'skills',
    title: 'Skills',
    noun: 'skill',
    path: `${CONSOLE_PATHS.root}/skills`,
    lifecycle: skillLifecycle,
    list: listSkills,
    column: { label: 'Category', value: (item) => listText(item.category) },
    fields: [
      NAME,
      DESCRIPTION,
      CATEGORY,
      MODEL,
      {
        name: 'instructions',
        label: 'Instructions',
        rows: 12,
        code: true,
        required: true,
        hint: 'The system prompt applied to an input; may hold {{variables}}.',
      },
    ],
    special: null,
    lead: 'Reusable instructions applied to an input. Saving a change writes a new version.',
  },
  {
    section: 'personas',
    title: 'Personas',
    noun: 'persona',
    path: `${CONSOLE_PATHS.root}/personas`,
    lifecycle: personaLifecycle,
    list: listPersonas,
    column: { label: 'Emoji', value: (item) => listText(item.emoji) },
    fields: [
      NAME,
      DESCRIPTION,
      { name: 'emoji', label: 'Emoji (optional)' },
      { name: 'tags', label: 'Tags', hint: 'Comma-separated.', tags: true },
      { name: 'content', label: 'System prompt', rows: 12, required: true },
    ],
    special: null,
    lead: 'System prompts with a name and a face. Saving a change writes a new version.',
  },
  {
    section: 'workflows',
    title: 'Workflows',
    noun: 'workflow',
    path: `${CONSOLE_PATHS.root}/workflows`,
    lifecycle: workflowLifecycle,
    list: listWorkflows,
    column: { label: 'Category', value: (item) => listText(item.category) },
    fields: [NAME, DESCRIPTION, CATEGORY],
    special: 'workflow',
    lead: 'Multi-step DAGs of model calls. A node reads variables and other nodes through {{references}}; those are its edges.',
  },
];

/** The YAML an author edits for a workflow: everything but its name, description and category. */
export const DEFINITION_FIELD = 'definition';
export const WORKFLOW_DEFINITION_KEYS = ['variables', 'nodes', 'outputs'] as const;

export const STARTER_WORKFLOW = `variables:
  - name: topic
    required: true
nodes:
  - id: outline
    kind: template
    template: "Outline an article about {{topic}}."
`;

/** What the editor shows for a saved item (or a version's definition). */
export function editorStateOf(kind: CatalogKind, item: Record<string, unknown>): EditorState {
  const values: Record<string, string> = {};
  for (const field of kind.fields) {
    const value = item[field.name];
    values[field.name] = field.tags ? listText(value) : typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  }
  if (kind.special === 'workflow') {
    const definition = Object.fromEntries(WORKFLOW_DEFINITION_KEYS.filter((key) => item[key] !== undefined).map((key) => [key, item[key]]));
    values[DEFINITION_FIELD] = stringify(definition, { lineWidth: 0 });
  }
  const variables: VariableRow[] = [];
  if (kind.special === 'composition' && Array.isArray(item.variables)) {
    for (const variable of item.variables as Array<Record<string, unknown>>) {
      variables.push({
        name: String(variable.name ?? ''),
        required: variable.required === true,
        default: variable.default === undefined ? '' : String(variable.default),
        description: typeof variable.description === 'string' ? variable.description : '',
        sample: '',
      });
    }
  }
  return { values, variables };
}

/**
 * A field as typed. Browsers send a textarea's line breaks as CRLF (HTML's form encoding); the
 * catalog stores LF, so a saved template does not gain a `\r` on every line.
 */
export function textOf(body: FormBody, name: string): string {
  return (formValue(body, name) ?? '').replace(/\r\n?/g, '\n');
}

/** The editor as the author left it: every field as sent, the variable rows in order. */
export function editorStateFromForm(kind: CatalogKind, body: FormBody): EditorState {
  const values: Record<string, string> = {};
  for (const field of kind.fields) values[field.name] = textOf(body, field.name);
  if (kind.special === 'workflow') values[DEFINITION_FIELD] = textOf(body, DEFINITION_FIELD);
  const variables: VariableRow[] = [];
  const rowIndices = Object.keys(body)
    .map((key) => /^variables\[(\d+)\]\.name$/.exec(key)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  for (const index of rowIndices) {
    const at = (part: string) => textOf(body, `variables[${index}].${part}`);
    const name = at('name').trim();
    if (name === '') continue;
    variables.push({ name, required: at('required') !== '', default: at('default'), description: at('description'), sample: at('sample') });
  }
  return { values, variables };
}

/** The operation input of a create or update. The workflow YAML is parsed by the caller. */
export function definitionInput(kind: CatalogKind, state: EditorState, purpose: 'create' | 'update'): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of kind.fields) {
    const value = state.values[field.name] ?? '';
    if (field.tags) input[field.name] = tagsOf(value);
    else if (field.emptyMeans !== undefined && value.trim() === '') {
      if (purpose === 'update') input[field.name] = field.emptyMeans;
    }
    // Sent as typed, empty included, so the operation names an empty required field.
    else input[field.name] = value;
  }
  if (kind.special === 'composition') {
    input.variables = state.variables.map((row) => ({
      name: row.name,
      required: row.required,
      ...(row.default === '' ? {} : { default: row.default }),
      ...(row.description === '' ? {} : { description: row.description }),
    }));
  }
  return input;
}

export function kindOfSection(section: string): CatalogKind | undefined {
  return CATALOG_KINDS.find((kind) => kind.section === section);
}

/** A route parameter as one string (Express types a repeated one as a list). */
export function param(ctx: PageContext, name: string): string {
  const value = ctx.req.params[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}
