/**
 * The list and the editor of a versioned catalog kind. Creating calls create_<kind>; saving an
 * existing item calls update_<kind>, which writes a new version. A composition's editor detects
 * the template's variables and previews it with sample values; a workflow's editor takes its
 * nodes as YAML and draws the DAG. Validation messages appear at the field path they name.
 */
import type { JSX } from 'preact';
import { isMap, isNode, isScalar, LineCounter, parse, parseDocument } from 'yaml';
import { describeYamlError } from '../../../core/yaml.js';
import { renderTemplate, templateReferences } from '../../../core/engine/template.js';
import { validateWorkflowDefinition, WorkflowDefinitionError } from '../../../core/engine/workflow-definition.js';
import { PorchError } from '../../../core/errors.js';
import { formatIssues } from '../../../core/validation.js';
import { type FormBody, formBody, formValue, type PageContext } from '../../console-pages.js';
import { dateTime } from '../format.js';
import { Notice, PostForm, TableWrap } from '../layout.js';
import {
  actionFor,
  BASE_FIELD,
  type Digests,
  digestsOf,
  encodeBase,
  type FieldTexts,
  MERGE_ATTEMPTS,
  mergeEdit,
  parseBase,
  savedSinceBase,
  untouchedFields,
} from './edit-base.js';
import { CatalogSearch, errorNoticeText, Field, FieldErrors, type FieldIssue, fieldId, isPathWithin, issuesOf, messagesAt } from './form-parts.js';
import {
  type CatalogKind,
  DEFINITION_FIELD,
  definitionInput,
  type EditorState,
  editorStateFromForm,
  editorStateOf,
  STARTER_WORKFLOW,
  type VariableRow,
  WORKFLOW_DEFINITION_KEYS,
} from './kinds.js';
import { layoutOffThread } from './layout-off-thread.js';
import { WorkflowDag } from './workflow-dag.js';

export function searchMatches(query: string, texts: readonly string[]): boolean {
  const needle = query.trim().toLowerCase();
  return needle === '' || texts.some((text) => text.toLowerCase().includes(needle));
}

/** The list operations have no text filter: the page filters the items they return (every item: no limit is sent). */
export async function renderList(kind: CatalogKind, ctx: PageContext): Promise<void> {
  const query = typeof ctx.req.query.q === 'string' ? ctx.req.query.q : '';
  const listed = await ctx.api.call(kind.list);
  if (!listed.ok) throw listed.error;
  const items = (listed.data.items as Array<Record<string, unknown> & { id: string; name: string; description: string; created_at: string }>).filter((item) =>
    searchMatches(query, [item.name, item.description, kind.column.value(item)]),
  );
  // A flag, never text from the address: a link could otherwise put any words in a success notice.
  const deleted = ctx.req.query.deleted === '1';
  ctx.render({
    title: kind.title,
    active: kind.section,
    body: (
      <section>
        <div class="page-head">
          <h1>{kind.title}</h1>
          <a class="button" href={`${kind.path}/new`}>
            New {kind.noun}
          </a>
        </div>
        <p class="lead">{kind.lead}</p>
        {deleted ? <Notice kind="success">Deleted the {kind.noun}.</Notice> : null}
        <CatalogSearch action={kind.path} label={`Search ${kind.title.toLowerCase()}`} query={query} placeholder="Name, description or tag" />
        {items.length === 0 ? (
          <p class="empty">{query === '' ? `No ${kind.title.toLowerCase()} yet.` : `No ${kind.title.toLowerCase()} match “${query}”.`}</p>
        ) : (
          <TableWrap label={kind.title}>
            <table>
              <caption class="muted">
                {query === '' ? `${items.length} ${items.length === 1 ? kind.noun : kind.title.toLowerCase()}` : `${items.length} matching “${query}”`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">{kind.column.label}</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="visually-hidden">History</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.id}>
                    <td class="name">
                      <a href={`${kind.path}/${item.id}`}>{item.name}</a>
                    </td>
                    <td class="name">{item.description}</td>
                    <td>{kind.column.value(item)}</td>
                    <td class="nowrap">{dateTime(item.created_at)}</td>
                    <td>
                      <a href={`${kind.path}/${item.id}/versions`} aria-label={`Versions of ${item.name}`}>
                        Versions
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    ),
  });
}

/** The navigation between an item's editor and its history. */
export function ItemTabs({ kind, id, current }: { kind: CatalogKind; id: string; current: 'edit' | 'history' }): JSX.Element {
  return (
    <nav class="tabs" aria-label="Item">
      <a href={`${kind.path}/${id}`} aria-current={current === 'edit' ? 'page' : undefined}>
        Edit
      </a>
      <a href={`${kind.path}/${id}/versions`} aria-current={current === 'history' ? 'page' : undefined}>
        Versions and labels
      </a>
    </nav>
  );
}

export function LabelBadges({ labels }: { labels: Record<string, number> }): JSX.Element {
  return (
    <span class="label-badges">
      {Object.entries(labels).map(([label, version]) => (
        <span key={label} class={`badge ${label === 'production' ? 'badge-success' : label === 'latest' ? '' : 'badge-warn'}`}>
          {label} → v{version}
        </span>
      ))}
    </span>
  );
}

/** `nodes[1].prompt` → `['nodes', 1, 'prompt']`. */
function pathSegments(path: string): Array<string | number> {
  return [...path.matchAll(/([A-Za-z_][\w-]*)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : (match[1] ?? '')));
}

/** The line of the YAML text a path points at, or of its closest parent that exists. */
function lineOf(yamlText: string, path: string): number | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter });
  const segments = pathSegments(path);
  for (let length = segments.length; length > 0; length -= 1) {
    const node = document.getIn(segments.slice(0, length), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}

function isDefinitionPath(path: string | null): path is string {
  return WORKFLOW_DEFINITION_KEYS.some((key) => isPathWithin(path, key));
}

/** The parts of a composition's variable row that show their problems (the Required box shows none). */
const VARIABLE_CELLS = ['name', 'default', 'description', 'sample'] as const;
/** A variable name box's width bounds, in characters. */
const MIN_NAME_SIZE = 10;
const MAX_NAME_SIZE = 40;

function VariablesTable({ rows, issues }: { rows: readonly VariableRow[]; issues: readonly FieldIssue[] }): JSX.Element {
  // One empty row to declare another variable without JavaScript.
  const shown = [...rows, { name: '', required: false, default: '', description: '', sample: '' }];
  // The name boxes are as wide as the longest name (within bounds), so a name reads whole; the
  // table scrolls on a phone instead (regression: cut to "customer_na" at 390 px).
  const nameSize = Math.min(Math.max(...shown.map((row) => row.name.length), MIN_NAME_SIZE) + 2, MAX_NAME_SIZE);
  return (
    <fieldset class="variables">
      <legend>Variables</legend>
      <p class="hint">
        Variables found in the template are listed; a row is declared when saved. An undeclared placeholder is required. Detect variables drops the rows the
        template no longer uses. Sample values only feed the preview.
      </p>
      <TableWrap label="Variables">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Required</th>
              <th scope="col">Default</th>
              <th scope="col">Description</th>
              <th scope="col">Sample value</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row, index) => {
              const at = (part: string) => `variables[${index}].${part}`;
              const cell = (part: (typeof VARIABLE_CELLS)[number], label: string) => {
                const messages = messagesAt(issues, at(part));
                return (
                  <td>
                    <input
                      type="text"
                      id={fieldId(at(part))}
                      name={at(part)}
                      value={row[part]}
                      aria-label={`${label} of variable ${index + 1}`}
                      aria-invalid={messages.length > 0 ? 'true' : undefined}
                      aria-describedby={messages.length > 0 ? `${fieldId(at(part))}-errors` : undefined}
                      class={part === 'sample' ? 'sample' : part === 'name' ? 'variable-name' : undefined}
                      size={part === 'name' ? nameSize : undefined}
                    />
                    <FieldErrors id={`${fieldId(at(part))}-errors`} messages={messages} />
                  </td>
                );
              };
              return (
                <tr key={`${index}-${row.name}`}>
                  {cell('name', 'Name')}
                  <td>
                    <input
                      type="checkbox"
                      id={fieldId(at('required'))}
                      name={at('required')}
                      value="on"
                      checked={row.required}
                      aria-label={`Variable ${index + 1} is required`}
                    />
                    {row.detected ? <span class="badge badge-warn">detected</span> : null}
                    {row.unused ? <span class="badge badge-warn">not in the template</span> : null}
                  </td>
                  {cell('default', 'Default')}
                  {cell('description', 'Description')}
                  {cell('sample', 'Sample value')}
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>
    </fieldset>
  );
}

/**
 * Declared rows, those the template no longer uses flagged, plus the template's placeholders that
 * no row declares yet (required, as undeclared ones are).
 */
export function withDetectedVariables(state: EditorState): VariableRow[] {
  const used = new Set(templateReferences(state.values.template ?? ''));
  const declared = new Set(state.variables.map((row) => row.name));
  const detected = [...used]
    .filter((name) => !declared.has(name))
    .map((name) => ({ name, required: true, default: '', description: '', sample: '', detected: true }));
  return [...state.variables.map((row) => (used.has(row.name) ? row : { ...row, unused: true })), ...detected];
}

export function CompositionPreview({ state }: { state: EditorState }): JSX.Element {
  const template = state.values.template ?? '';
  const rows = withDetectedVariables(state);
  const samples = new Map(rows.map((row) => [row.name, row.sample !== '' ? row.sample : row.default !== '' ? row.default : `‹${row.name}›`]));
  let rendered: string;
  let problem: string | undefined;
  try {
    rendered = renderTemplate(template, (name) => samples.get(name) ?? `‹${name}›`);
  } catch (err) {
    rendered = '';
    problem = err instanceof Error ? err.message : String(err);
  }
  const detected = templateReferences(template);
  return (
    <section id="composition-preview" class="panel preview" aria-labelledby="preview-heading" aria-live="polite">
      <h2 id="preview-heading">Preview</h2>
      <p class="hint">Detected variables: {detected.length === 0 ? 'none' : detected.join(', ')}. Placeholders without a sample or default show as ‹name›.</p>
      {problem ? <Notice kind="error">{problem}</Notice> : <pre class="rendered">{rendered}</pre>}
    </section>
  );
}

export interface EditorOptions {
  kind: CatalogKind;
  /** The saved item, or undefined for a new one. */
  item?: { id: string; name: string; version: number; labels: Record<string, number>; updated_at: string };
  state: EditorState;
  /** The digests of the fields as the author's edit started from (edit-base.ts); a saved item's editor has one. */
  base?: Digests | null;
  error?: PorchError;
  notice?: string;
  status?: number;
}

/** A composition's variable as a unit of merging: `variable:<name>` (no field name holds a colon). */
const VARIABLE_UNIT_PREFIX = 'variable:';
/** The text of a variable no row declares: one side removed it, or never had it. */
const ABSENT = '';

const isVariableUnit = (name: string) => name.startsWith(VARIABLE_UNIT_PREFIX);
const variableOfUnit = (name: string) => name.slice(VARIABLE_UNIT_PREFIX.length);

/**
 * The editor's fields as text, as its form sends them: each field, each of a composition's
 * variable rows (as the table shows them, detected ones included) and a workflow's YAML. The
 * unit of merging. Each variable is a unit of its own, so setting one variable's default merges
 * with another tab's change of the template, which makes the server declare a new placeholder
 * (regression: the whole table was one unit, and that save was refused as a conflict of Variables).
 */
export function editorTexts(kind: CatalogKind, state: EditorState): FieldTexts {
  const texts: Record<string, string> = {};
  for (const field of kind.fields) texts[field.name] = state.values[field.name] ?? '';
  if (kind.special === 'composition') {
    // The rows the form holds, not those the template would add: a placeholder typed into the
    // template changes the template, and the server declares it (regression: it counted as a
    // change of Variables, refused beside another tab's change of a default, and saving again
    // undid that change).
    for (const row of state.variables) {
      const unit = `${VARIABLE_UNIT_PREFIX}${row.name}`;
      // A name declared twice is one unit holding both rows, so the operation still sees (and names) the repeat.
      const text = JSON.stringify([row.required, row.default, row.description]);
      texts[unit] = texts[unit] === undefined ? text : `${texts[unit]}\n${text}`;
    }
  }
  if (kind.special === 'workflow') texts[DEFINITION_FIELD] = state.values[DEFINITION_FIELD] ?? '';
  return texts;
}

/**
 * The three sides of a merge over the same units: a variable that one side declares and another
 * does not counts, on that other side, as the text ABSENT (a base from before variables were
 * units of their own counts as declaring none).
 */
function alignedUnits(base: Digests | null, mine: FieldTexts, current: FieldTexts): { base: Digests | null; mine: FieldTexts; current: FieldTexts } {
  const variables = [...new Set([...Object.keys(base ?? {}), ...Object.keys(mine), ...Object.keys(current)].filter(isVariableUnit))];
  const absent = (texts: FieldTexts) => ({ ...Object.fromEntries(variables.map((name) => [name, ABSENT])), ...texts });
  return { base: base === null ? null : { ...digestsOf(absent({})), ...base }, mine: absent(mine), current: absent(current) };
}

/**
 * The variable rows of `mine`, with those named in `fromCurrent` as `current` has them (kept,
 * changed or removed there): current's order, then the rows only `mine` declares.
 */
function mergedVariables(mine: readonly VariableRow[], current: readonly VariableRow[], fromCurrent: (name: string) => boolean): VariableRow[] {
  const rows: VariableRow[] = [];
  const taken = new Set<string>();
  for (const row of [...current, ...mine]) {
    if (taken.has(row.name)) continue;
    taken.add(row.name);
    rows.push(...(fromCurrent(row.name) ? current : mine).filter((candidate) => candidate.name === row.name));
  }
  return rows;
}

/** The operation fields a unit of editorTexts writes, and its name in messages. */
function unitOf(kind: CatalogKind, name: string): { keys: readonly string[]; label: string } {
  if (name === DEFINITION_FIELD) return { keys: WORKFLOW_DEFINITION_KEYS, label: 'Definition' };
  if (isVariableUnit(name)) return { keys: ['variables'], label: `variable ${variableOfUnit(name)}` };
  return { keys: [name], label: kind.fields.find((field) => field.name === name)?.label ?? name };
}

export async function renderEditor(ctx: PageContext, { kind, item, state, base, error, notice, status }: EditorOptions): Promise<void> {
  const issues = issuesOf(error);
  const action = item ? `${kind.path}/${item.id}` : `${kind.path}/new`;
  const title = item ? `${item.name} — ${kind.title}` : `New ${kind.noun}`;
  const definitionIssues = kind.special === 'workflow' ? issues.filter((issue): issue is FieldIssue & { path: string } => isDefinitionPath(issue.path)) : [];
  const yamlMessages = kind.special === 'workflow' ? messagesAt(issues, DEFINITION_FIELD) : [];
  const variableRows = kind.special === 'composition' ? withDetectedVariables(state) : [];
  // The paths the form shows problems at: its fields, a composition's variable cells (the rows
  // shown, plus the empty one), a workflow's definition.
  const fieldPaths = [
    ...kind.fields.map((field) => field.name),
    ...(kind.special === 'composition'
      ? Array.from({ length: variableRows.length + 1 }, (_, index) => VARIABLE_CELLS.map((part) => `variables[${index}].${part}`)).flat()
      : []),
    ...(kind.special === 'workflow' ? [DEFINITION_FIELD] : []),
  ];
  const isShown = (path: string) => (kind.special === 'workflow' && isDefinitionPath(path)) || fieldPaths.some((field) => isPathWithin(path, field));
  const yamlText = state.values[DEFINITION_FIELD] ?? '';
  let parsedDefinition: unknown;
  try {
    parsedDefinition = parse(yamlText);
  } catch {
    parsedDefinition = undefined;
  }
  const layout = kind.special === 'workflow' ? await layoutOffThread(parsedDefinition) : undefined;
  ctx.render({
    title,
    active: kind.section,
    status: status ?? error?.status ?? 200,
    // A form answered here is re-read with GET on reload, never sent again.
    address: action,
    body: (
      <section>
        <p class="breadcrumb">
          <a href={kind.path}>{kind.title}</a>
        </p>
        <h1>{item ? item.name : `New ${kind.noun}`}</h1>
        {item ? (
          <>
            <ItemTabs kind={kind} id={item.id} current="edit" />
            <p class="muted">
              Version {item.version}, saved {dateTime(item.updated_at)}. <LabelBadges labels={item.labels} />
            </p>
          </>
        ) : null}
        {notice ? <Notice kind="success">{notice}</Notice> : null}
        {error ? <Notice kind="error">{errorNoticeText(error.message, issues, isShown)}</Notice> : null}
        <PostForm action={actionFor(action, item ? base : undefined)} csrfToken={ctx.signedIn.csrfToken} class="stack editor">
          {item && base ? <input type="hidden" name={BASE_FIELD} value={encodeBase(base)} /> : null}
          {kind.fields.map((field) => (
            <Field
              key={field.name}
              path={field.name}
              label={field.label}
              value={state.values[field.name] ?? ''}
              issues={issues}
              hint={field.hint}
              required={field.required}
              rows={field.rows}
              code={field.code}
            />
          ))}
          {kind.special === 'composition' ? (
            <>
              <VariablesTable rows={variableRows} issues={issues} />
              <div
                hx-post={`${kind.path}/preview`}
                hx-trigger="input delay:400ms from:closest form"
                hx-include="closest form"
                hx-target="this"
                hx-swap="innerHTML"
              >
                <CompositionPreview state={state} />
              </div>
            </>
          ) : null}
          {kind.special === 'workflow' ? (
            <Field
              path={DEFINITION_FIELD}
              label="Definition (YAML: variables, nodes, outputs)"
              value={yamlText}
              issues={[]}
              invalid={definitionIssues.length + yamlMessages.length > 0}
              describedBy={`${fieldId(DEFINITION_FIELD)}-errors`}
              rows={18}
              code
              required
              hint="Node kinds: model, template, skill, composition, persona, sanitise, judge. A node refers to a skill, composition or persona by id or key."
            >
              {definitionIssues.length > 0 ? (
                <ul class="field-errors" id={`${fieldId(DEFINITION_FIELD)}-errors`}>
                  {definitionIssues.map((issue) => {
                    const line = lineOf(yamlText, issue.path);
                    return (
                      <li key={`${issue.path}:${issue.message}`}>
                        {line === undefined ? '' : `Line ${line}, `}
                        <code>{issue.path}</code>: {issue.message}
                      </li>
                    );
                  })}
                </ul>
              ) : null}
              {yamlMessages.length > 0 ? <FieldErrors id={`${fieldId(DEFINITION_FIELD)}-errors`} messages={yamlMessages} /> : null}
            </Field>
          ) : null}
          <div class="actions">
            <button type="submit" name="intent" value="save">
              {item ? 'Save as a new version' : `Create ${kind.noun}`}
            </button>
            {kind.special === 'composition' ? (
              <button type="submit" name="intent" value="preview" class="secondary" formNoValidate>
                Detect variables and preview
              </button>
            ) : null}
            {kind.special === 'workflow' ? (
              <button type="submit" name="intent" value="preview" class="secondary" formNoValidate>
                Draw the graph
              </button>
            ) : null}
          </div>
        </PostForm>
        {layout ? <WorkflowDag result={layout} name={state.values.name || `the new ${kind.noun}`} /> : null}
      </section>
    ),
  });
}

/** `mine` with the units named in `untouched` (editorTexts' names) taken from `current`. */
function withUntouchedFrom(mine: EditorState, current: EditorState, untouched: ReadonlySet<string>): EditorState {
  const values = { ...mine.values };
  for (const name of Object.keys(values)) if (untouched.has(name)) values[name] = current.values[name] ?? '';
  return { values, variables: mergedVariables(mine.variables, current.variables, (name) => untouched.has(`${VARIABLE_UNIT_PREFIX}${name}`)) };
}

/**
 * The top-level keys of a workflow's YAML that are not part of its definition, each with its
 * line: what the form's own fields hold (name, description, category), or what a workflow does not
 * have. Refused at the Definition field, on create as on update (regression: on create a `name:`
 * line won over the Name field and an unknown key came back as an internal "arguments" message;
 * on update both were dropped without a word).
 */
function keysOutsideDefinition(yamlText: string): Array<{ key: string; line: number | undefined }> {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter });
  if (!isMap(document.contents)) return [];
  const allowed: readonly string[] = WORKFLOW_DEFINITION_KEYS;
  return document.contents.items.flatMap((pair) => {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (allowed.includes(key)) return [];
    const range = isNode(pair.key) ? pair.key.range : undefined;
    return [{ key, line: range ? lineCounter.linePos(range[0]).line : undefined }];
  });
}

/** The YAML of a workflow editor as operation fields, or the error naming the field. */
function workflowFields(kind: CatalogKind, yamlText: string): { ok: true; fields: Record<string, unknown> } | { ok: false; error: PorchError } {
  let parsed: unknown;
  try {
    parsed = parse(yamlText);
  } catch (err) {
    return { ok: false, error: new PorchError('VALIDATION_ERROR', `${DEFINITION_FIELD}: not valid YAML. ${describeYamlError(err)}.`) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: new PorchError('VALIDATION_ERROR', `${DEFINITION_FIELD}: must be a mapping with variables, nodes and outputs.`) };
  }
  const outside = keysOutsideDefinition(yamlText);
  if (outside.length > 0) {
    const problems = outside.map(({ key, line }) => {
      const field = kind.fields.find((candidate) => candidate.name === key);
      const where = line === undefined ? `“${key}”` : `Line ${line}, “${key}”`;
      const labels = kind.fields.map((candidate) => candidate.label);
      const problem = field
        ? `belongs in the ${field.label} field above, not in the definition`
        : `is not part of the definition, which holds only variables, nodes and outputs (${labels.slice(0, -1).join(', ')} and ${labels.at(-1)} have fields above)`;
      return `${DEFINITION_FIELD}: ${where} ${problem}`;
    });
    return { ok: false, error: new PorchError('VALIDATION_ERROR', `Invalid request: ${problems.join('; ')}.`) };
  }
  return { ok: true, fields: parsed as Record<string, unknown> };
}

/**
 * What is wrong with the workflow definition typed, as a save would report it, or undefined: a
 * preview ("Draw the graph") shows each problem at its field and line rather than only saying
 * that the graph needs a valid definition (regression: the errors appeared only on saving).
 */
function definitionProblems(kind: CatalogKind, state: EditorState): PorchError | undefined {
  const fields = workflowFields(kind, state.values[DEFINITION_FIELD] ?? '');
  if (!fields.ok) return fields.error;
  const definition = Object.fromEntries(WORKFLOW_DEFINITION_KEYS.filter((key) => key in fields.fields).map((key) => [key, fields.fields[key]]));
  try {
    validateWorkflowDefinition(definition);
    return undefined;
  } catch (err) {
    if (!(err instanceof WorkflowDefinitionError)) throw err;
    return new PorchError('VALIDATION_ERROR', `Invalid request: ${formatIssues(err.issues)}.`);
  }
}

/** A new item's editor: blank, or the starter workflow. */
export function blankState(kind: CatalogKind): EditorState {
  const state = editorStateOf(kind, {});
  if (kind.special === 'workflow') state.values[DEFINITION_FIELD] = STARTER_WORKFLOW;
  return state;
}

type ItemDetail = Record<string, unknown> & { id: string; name: string; version: number; labels: Record<string, number>; updated_at: string };

/** Detail of an item, or the error page (404 for another account's id, as the API answers). */
export async function fetchItem(kind: CatalogKind, ctx: PageContext, id: string): Promise<ItemDetail> {
  const got = await ctx.api.call(kind.lifecycle.get, { id });
  if (!got.ok) throw got.error;
  return got.data as ItemDetail;
}

/** Detail of an item, or null when the account has none with this id (deleted, or another account's). */
async function findItem(kind: CatalogKind, ctx: PageContext, id: string): Promise<ItemDetail | null> {
  try {
    return await fetchItem(kind, ctx, id);
  } catch (err) {
    if (err instanceof PorchError && err.code === 'RESOURCE_NOT_FOUND') return null;
    throw err;
  }
}

/**
 * The author's edits of an item that is gone (deleted in another tab or by a client since the
 * page was opened): kept, in the new item's editor, so saving creates it again (regression: an
 * error page, and the typed edits lost).
 */
function renderGone(ctx: PageContext, kind: CatalogKind, state: EditorState): Promise<void> {
  const error = new PorchError(
    'RESOURCE_NOT_FOUND',
    `This ${kind.noun} no longer exists: it was deleted since the page was opened (in another tab, or by a client). Your edits are kept below; saving creates it again as a new ${kind.noun}.`,
  );
  return renderEditor(ctx, { kind, state, error });
}

/** Create or update from the editor's form; preview re-renders the editor with what was typed. */
export async function saveFromForm(kind: CatalogKind, ctx: PageContext, id: string | undefined): Promise<void> {
  const body: FormBody = formBody(ctx.req);
  const state = editorStateFromForm(kind, body);
  const base = parseBase(formValue(body, BASE_FIELD));
  let item: ItemDetail | undefined;
  if (id !== undefined) {
    const found = await findItem(kind, ctx, id);
    if (found === null) return renderGone(ctx, kind, state);
    item = found;
  }
  if (formValue(body, 'intent') === 'preview') {
    // What was detected becomes declared rows, so the author can set each one's default and
    // description; a row whose placeholder left the template goes (regression: kept, and still required).
    const rows = withDetectedVariables(state).filter((row) => !row.unused);
    const shown = kind.special === 'composition' ? { ...state, variables: rows.map((row) => ({ ...row, detected: false })) } : state;
    await renderEditor(ctx, { kind, item, state: shown, base, error: kind.special === 'workflow' ? definitionProblems(kind, state) : undefined });
    return;
  }
  const input = definitionInput(kind, state, item === undefined ? 'create' : 'update');
  if (kind.special === 'workflow') {
    const fields = workflowFields(kind, state.values[DEFINITION_FIELD] ?? '');
    if (!fields.ok) return renderEditor(ctx, { kind, item, state, base, error: fields.error });
    Object.assign(input, fields.fields);
  }
  if (item === undefined) {
    const created = await ctx.api.call(kind.lifecycle.create, input);
    if (!created.ok) return renderEditor(ctx, { kind, state, error: created.error });
    ctx.redirect(`${kind.path}/${created.data.id}?created=1`);
    return;
  }
  // Only what the author changed is sent, so a field saved meanwhile by someone else stays.
  for (let attempt = 1, latest = item; ; attempt++, latest = await fetchItem(kind, ctx, item.id)) {
    const currentState = editorStateOf(kind, latest);
    const current = editorTexts(kind, currentState);
    const sides = alignedUnits(base, editorTexts(kind, state), current);
    const merge = mergeEdit(sides.base, sides.mine, sides.current);
    if (merge.kind === 'unchanged') {
      if (!savedSinceBase(sides.base, sides.current)) {
        return renderEditor(ctx, { kind, item: latest, state, base, notice: `Nothing changed since version ${latest.version}, so no version was written.` });
      }
      // Saved meanwhile by someone else, with nothing of the author's left to add: the form shows
      // that version, and is based on it, as the page would open now.
      return renderEditor(ctx, {
        kind,
        item: latest,
        state: currentState,
        base: digestsOf(current),
        notice: `Nothing you changed differs from version ${latest.version}, saved by another edit meanwhile, so no version was written; the form now shows version ${latest.version}.`,
      });
    }
    if (merge.kind === 'conflict') {
      const labels = merge.fields.map((name) => unitOf(kind, name).label);
      const error = new PorchError(
        'CONFLICT',
        `Since you opened this page, version ${latest.version} was saved with another ${labels.join(', ')}; saving yours would undo that change. Your edits are kept below: compare them with version ${latest.version} under Versions, then save again to keep yours.`,
      );
      // The next save is made knowing version `latest.version`: its digests become the base, and
      // the fields the author did not touch show that version's values.
      const shown = withUntouchedFrom(state, currentState, untouchedFields(sides.base, sides.mine));
      return renderEditor(ctx, { kind, item: latest, state: shown, base: digestsOf(current), error });
    }
    const keys = new Set(merge.fields.flatMap((name) => unitOf(kind, name).keys));
    const changes = Object.fromEntries(Object.entries(input).filter(([key]) => keys.has(key)));
    if (keys.has('variables')) {
      // The variables this save changed as typed, the others as saved meanwhile (a placeholder the
      // server declared for another tab's template stays).
      const changed = new Set(merge.fields.filter(isVariableUnit).map(variableOfUnit));
      changes.variables = definitionInput(
        kind,
        { ...state, variables: mergedVariables(state.variables, currentState.variables, (name) => !changed.has(name)) },
        'update',
      ).variables;
    }
    const updated = await ctx.api.call(kind.lifecycle.update, { id: latest.id, ...changes, expected_version: latest.version });
    if (updated.ok) return ctx.redirect(`${kind.path}/${latest.id}/versions?saved=${updated.data.version}`);
    if (updated.error.code === 'RESOURCE_NOT_FOUND') return renderGone(ctx, kind, state);
    // Saved by someone else since the read above: merge again with what they saved.
    if (updated.error.code === 'CONFLICT' && attempt < MERGE_ATTEMPTS) continue;
    return renderEditor(ctx, { kind, item: latest, state, base, error: updated.error });
  }
}
