/**
 * The playground: pick any composition, skill, persona or workflow and a version or label, fill
 * the form its definition declares, run it, and read the answer with its model, tokens, credits,
 * duration and (for workflows) every node's trace. It calls the execute operations an API client
 * calls, so a refused run shows the API's own message.
 */
import type { JSX } from 'preact';
import { describePersonaVersions, describeVersions, LATEST_LABEL } from '../../core/catalog/versions.js';
import { ERROR_TABLE, PorchError } from '../../core/errors.js';
import { getRun } from '../../operations/get-run.js';
import { listRuns } from '../../operations/list-runs.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, type PageContext, type PageRegistrar } from '../console-pages.js';
import { dateTime, textareaContent, wholeNumber } from './format.js';
import { Notice, PostForm } from './layout.js';
import {
  type ExecutionOutput,
  type ExecutionRequest,
  execute,
  KIND_LABELS,
  KINDS,
  listResources,
  loadRunnable,
  parseResourceRef,
  type ResourceChoice,
  type Runnable,
  resourceRef,
  selectorInput,
} from './run/resources.js';
import { asText, creditsText, Facts, NodeTrace, StatusBadge, tokensText, typedText } from './run/results.js';

const PATH = `${CONSOLE_PATHS.root}/playground`;
const RUNS_PATH = `${CONSOLE_PATHS.root}/runs`;
/** Form fields of variables carry this prefix, so a variable may be named like any other field. */
const VARIABLE_PREFIX = 'var.';
/** The names of the variables the form was built with, so a run of a version that takes others is not sent half-filled. */
const SHOWN_FIELDS = 'shown_variables';

interface Ran {
  output: ExecutionOutput;
  creditsRemaining: number | null;
  /** The run the execution recorded, as list_runs shows it: its id and the credits it was charged. */
  run: { id: string; credits_charged: number; created_at: string } | null;
}

function ResourcePicker({ choices, selected }: { choices: ResourceChoice[]; selected: string | undefined }): JSX.Element {
  if (choices.length === 0) return <p class="empty">Nothing to run yet: create a composition, skill, persona or workflow first.</p>;
  return (
    <form method="get" action={PATH} class="stack panel">
      <div class="field">
        <label for="resource">Resource</label>
        <select id="resource" name="resource">
          {KINDS.map((kind) => {
            const ofKind = choices.filter((choice) => choice.kind === kind);
            return ofKind.length === 0 ? null : (
              <optgroup label={`${KIND_LABELS[kind]}s`} key={kind}>
                {ofKind.map((choice) => (
                  <option value={resourceRef(choice)} selected={resourceRef(choice) === selected} key={choice.id}>
                    {choice.name}
                  </option>
                ))}
              </optgroup>
            );
          })}
        </select>
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Open
        </button>
      </div>
    </form>
  );
}

/** What runs when no version or label is picked: `production (version 5)`, else `latest (version 7)`. */
function defaultChoice(runnable: Runnable): string {
  return runnable.labels.production === undefined ? `latest (version ${runnable.labels.latest ?? '?'})` : `production (version ${runnable.labels.production})`;
}

function selectorChoices(runnable: Runnable): Array<{ value: string; label: string }> {
  const labels = Object.entries(runnable.labels)
    .filter(([label]) => label !== 'latest')
    .map(([label, version]) => ({ value: `label:${label}`, label: `${label} (version ${version})` }));
  return [
    { value: '', label: `Default: ${defaultChoice(runnable)}` },
    { value: 'label:latest', label: `latest (version ${runnable.labels.latest ?? '?'})` },
    ...labels,
    ...runnable.versions.map((version) => ({ value: `version:${version}`, label: `Version ${version}` })),
  ];
}

/** The longest part of a selector from the address a notice quotes: a label's longest name, with room to spare. */
const QUOTED_SELECTOR_LENGTH = 40;

/**
 * What a selector from the address names that the resource does not have (a label removed or
 * mistyped, a version it never had), said as the API says it when such a run is refused, and what
 * the form shows instead; undefined when the resource has it (regression: `selector=label:nope`
 * silently preselected the default).
 */
function missingSelectorNotice(runnable: Runnable, selector: string): string | undefined {
  const asked = selectorInput(selector);
  const quoted = (text: string) => `“${text.length > QUOTED_SELECTOR_LENGTH ? `${text.slice(0, QUOTED_SELECTOR_LENGTH)}…` : text}”`;
  const resource = `${KIND_LABELS[runnable.kind]} “${runnable.name}”`;
  let missing: string;
  if (asked.label !== undefined) {
    if (Object.hasOwn(runnable.labels, asked.label)) return undefined;
    // `latest` first, as the API lists them.
    const entries = Object.entries(runnable.labels);
    const labels = [...entries.filter(([label]) => label === LATEST_LABEL), ...entries.filter(([label]) => label !== LATEST_LABEL)];
    missing = `${resource} has no label ${quoted(asked.label)}; its labels are ${labels.map(([label, version]) => `${label} (version ${version})`).join(', ')}.`;
  } else if (asked.version !== undefined) {
    if (runnable.versions.includes(asked.version)) return undefined;
    const held = runnable.kind === 'persona' ? describePersonaVersions(runnable.versions) : describeVersions(Math.max(1, ...runnable.versions));
    missing = `${resource} has no version ${asked.version}; ${held}.`;
  } else {
    missing = `${quoted(selector)} names no version or label (label:<name> or version:<number>).`;
  }
  return `${missing} The form below runs the default, ${defaultChoice(runnable)}.`;
}

function RunForm({ runnable, request, csrfToken }: { runnable: Runnable; request: ExecutionRequest; csrfToken: string }): JSX.Element {
  return (
    <PostForm action={PATH} csrfToken={csrfToken} class="stack panel">
      <h2>
        {KIND_LABELS[runnable.kind]}: {runnable.name}
      </h2>
      {runnable.description ? <p class="hint flush">{runnable.description}</p> : null}
      <input type="hidden" name="resource" value={resourceRef(runnable)} />
      <input type="hidden" name={SHOWN_FIELDS} value={variableNames(runnable)} />
      <div class="field">
        <label for="selector">Version or label</label>
        <select id="selector" name="selector" aria-describedby="selector-hint">
          {selectorChoices(runnable).map((choice) => (
            <option value={choice.value} selected={choice.value === (request.selector ?? '')} key={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        <p class="hint" id="selector-hint">
          The form below is version {runnable.shownVersion}’s. Pick another version and run: if it takes other inputs, its form opens first.
        </p>
      </div>
      {runnable.takesInput ? (
        <div class="field">
          <label for="input">{runnable.kind === 'persona' ? 'Message' : 'Input'} (required)</label>
          <textarea id="input" name="input" rows={5} required>
            {textareaContent(request.input ?? '')}
          </textarea>
        </div>
      ) : null}
      {runnable.takesContext ? (
        <div class="field">
          <label for="context">Context (optional)</label>
          <textarea id="context" name="context" rows={3}>
            {textareaContent(request.context ?? '')}
          </textarea>
        </div>
      ) : null}
      {runnable.variables.length > 0 ? (
        <fieldset>
          <legend>Variables</legend>
          {runnable.variables.map((variable) => {
            const id = `variable-${variable.name}`;
            const hint = [variable.description, variable.defaultValue === undefined ? undefined : `Default: ${variable.defaultValue}`]
              .filter(Boolean)
              .join(' · ');
            return (
              <div class="field" key={variable.name}>
                <label for={id}>
                  <code>{variable.name}</code> {variable.required ? '(required)' : '(optional)'}
                </label>
                {/* Not `required` in the browser: the API's own message says what is missing. */}
                <textarea
                  class="compact"
                  id={id}
                  name={`${VARIABLE_PREFIX}${variable.name}`}
                  rows={2}
                  placeholder={variable.defaultValue}
                  aria-describedby={hint ? `${id}-hint` : undefined}
                >
                  {textareaContent(request.variables[variable.name] ?? '')}
                </textarea>
                {hint ? (
                  <p class="hint" id={`${id}-hint`}>
                    {hint}
                  </p>
                ) : null}
              </div>
            );
          })}
        </fieldset>
      ) : runnable.takesInput ? null : (
        <p class="hint">This {runnable.kind} declares no variables.</p>
      )}
      <div class="actions">
        <button type="submit">Run</button>
      </div>
    </PostForm>
  );
}

/**
 * The result's heading takes the focus when the page loads: on a phone the result sits below the
 * form, out of sight, and a screen reader would not hear that the run ended (as a refused run's
 * message takes it). The page only ever shows a result as the answer to a run.
 */
function ResultHeading(): JSX.Element {
  return (
    // biome-ignore lint/a11y/noAutofocus: moving to the result of the action just taken is the point, as with an error notice.
    <h2 id="result-heading" tabIndex={-1} autoFocus>
      Result
    </h2>
  );
}

function Result({ ran }: { ran: Ran }): JSX.Element {
  const { output, run } = ran;
  const runLink = run ? <a href={`${RUNS_PATH}/${run.id}`}>Open the run</a> : null;
  const credits = run ? creditsText(run.credits_charged) : '—';
  const remaining = ran.creditsRemaining === null ? null : `${wholeNumber(ran.creditsRemaining)} credits left`;
  if (output.kind === 'workflow') {
    const data = output.data;
    return (
      <section class="panel result" aria-labelledby="result-heading" id="result">
        <ResultHeading />
        <Facts
          items={[
            ['Status', <StatusBadge status={data.status} key="status" />],
            ['Version', String(data.version)],
            ['Tokens', tokensText(data.token_usage)],
            ['Credits', credits],
            ['Duration', `${wholeNumber(data.duration_ms)} ms`],
            ['Run', runLink ?? '—'],
          ]}
        />
        {remaining ? <p class="hint">{remaining}</p> : null}
        <h3>Outputs</h3>
        {Object.keys(data.outputs).length === 0 ? (
          <p class="empty">No outputs.</p>
        ) : (
          Object.entries(data.outputs).map(([name, value]) => (
            <div key={name}>
              <h4>
                <code>{name}</code>
              </h4>
              <pre class="output">{asText(value)}</pre>
            </div>
          ))
        )}
        <h3>Trace</h3>
        <NodeTrace nodes={data.node_results} />
      </section>
    );
  }
  const data = output.data;
  return (
    <section class="panel result" aria-labelledby="result-heading" id="result">
      <ResultHeading />
      <pre class="output">{data.content}</pre>
      <Facts
        items={[
          ['Model', data.model_used],
          ['Version', String(data.version)],
          ['Tokens', tokensText(data.token_usage)],
          ['Credits', credits],
          ['Duration', `${wholeNumber(data.duration_ms)} ms`],
          ['Run', runLink ?? '—'],
        ]}
      />
      {remaining ? <p class="hint">{remaining}</p> : null}
      {run ? <p class="hint">Ran {dateTime(run.created_at)}.</p> : null}
    </section>
  );
}

/** A form's variable names, in a stable order, as the hidden field carries them. */
function variableNames(runnable: Runnable): string {
  return runnable.variables
    .map((variable) => variable.name)
    .sort()
    .join(' ');
}

/** The page's own address for a resource at a selector, so a reload opens the same form. */
function addressOf(selected: string | undefined, selector: string | undefined): string {
  if (selected === undefined) return PATH;
  const query = new URLSearchParams({ resource: selected, ...(selector ? { selector } : {}) });
  return `${PATH}?${query.toString()}`;
}

function requestFrom(body: ReturnType<typeof formBody>, runnable: Runnable): ExecutionRequest {
  const variables: Record<string, string> = {};
  for (const variable of runnable.variables) {
    const value = formValue(body, `${VARIABLE_PREFIX}${variable.name}`);
    if (value !== undefined) variables[variable.name] = typedText(value);
  }
  const text = (name: string) => {
    const value = formValue(body, name);
    return value === undefined ? undefined : typedText(value);
  };
  return { selector: formValue(body, 'selector'), variables, input: text('input'), context: text('context') };
}

const EMPTY_REQUEST: ExecutionRequest = { selector: undefined, variables: {}, input: undefined, context: undefined };

async function show(
  ctx: PageContext,
  selected: string | undefined,
  state: {
    request?: ExecutionRequest;
    ran?: Ran;
    error?: PorchError;
    runnable?: Runnable | null;
    status?: number;
    reopened?: boolean;
    /** What the address asked for that the resource does not have. */
    missing?: string;
  } = {},
): Promise<void> {
  const choices = await listResources(ctx.api);
  const runnable = state.runnable ?? null;
  ctx.render({
    title: runnable ? `Playground: ${runnable.name}` : 'Playground',
    active: 'playground',
    // A run answers at the page's GET address for its resource, so a reload opens the resource's
    // form again rather than running it again or losing it (regression: the bare playground).
    address: addressOf(selected, state.request?.selector),
    status: state.status,
    body: (
      <section>
        <h1>Playground</h1>
        <p class="lead">Run any composition, skill, persona or workflow, at any version or label. Runs cost credits as they do over the API.</p>
        {state.error ? <Notice kind="error">{state.error.message}</Notice> : null}
        {state.missing ? <Notice kind="error">{state.missing}</Notice> : null}
        {state.reopened && runnable ? (
          <Notice kind="info">Version {runnable.shownVersion} takes other inputs than the form you filled in: check them below and run again.</Notice>
        ) : null}
        <ResourcePicker choices={choices} selected={selected} />
        {runnable ? (
          <div class="playground-grid">
            <RunForm runnable={runnable} request={state.request ?? EMPTY_REQUEST} csrfToken={ctx.signedIn.csrfToken} />
            {state.ran ? <Result ran={state.ran} /> : null}
          </div>
        ) : null}
      </section>
    ),
  });
}

export function registerPlaygroundPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, async (ctx) => {
    const selected = typeof ctx.req.query.resource === 'string' ? ctx.req.query.resource : undefined;
    const selector = typeof ctx.req.query.selector === 'string' && ctx.req.query.selector !== '' ? ctx.req.query.selector : undefined;
    const ref = parseResourceRef(selected);
    if (selected !== undefined && !ref) return show(ctx, selected, { error: notFound(), status: 404 });
    if (!ref) return show(ctx, undefined);
    const loaded = await loadRunnable(ctx.api, ref.kind, ref.id, selector);
    if (!loaded.ok) return show(ctx, selected, { error: loaded.error, status: ERROR_TABLE[loaded.error.code].status });
    const missing = selector === undefined ? undefined : missingSelectorNotice(loaded.runnable, selector);
    // The form then runs the default, which its select shows picked.
    if (missing !== undefined) return show(ctx, selected, { runnable: loaded.runnable, request: EMPTY_REQUEST, missing });
    return show(ctx, selected, { runnable: loaded.runnable, request: { ...EMPTY_REQUEST, selector } });
  });

  pages.page('POST', PATH, async (ctx) => {
    const body = formBody(ctx.req);
    const selected = formValue(body, 'resource');
    const ref = parseResourceRef(selected);
    if (!ref) return show(ctx, selected, { error: notFound(), status: 404 });
    const loaded = await loadRunnable(ctx.api, ref.kind, ref.id, formValue(body, 'selector'));
    if (!loaded.ok) return show(ctx, selected, { error: loaded.error, status: ERROR_TABLE[loaded.error.code].status });
    const request = requestFrom(body, loaded.runnable);
    // The form was filled in for another version whose variables differ: open the selected
    // version's form (keeping the values of the names both share) rather than run it half-filled.
    const shown = body[SHOWN_FIELDS];
    if (typeof shown === 'string' && shown !== variableNames(loaded.runnable)) {
      return show(ctx, selected, { runnable: loaded.runnable, request, reopened: true });
    }
    const result = await execute(ctx.api, loaded.runnable, request);
    if (!result.ok) {
      return show(ctx, selected, { runnable: loaded.runnable, request, error: result.error, status: ERROR_TABLE[result.error.code].status });
    }
    // A workflow's answer names its run; the other kinds' do not, and the resource's newest run is the one just recorded.
    const newest =
      result.output.kind === 'workflow'
        ? await ctx.api.call(getRun, { id: result.output.data.run_id }).then((found) => (found.ok ? found.data : undefined))
        : await ctx.api.call(listRuns, { resource_id: ref.id, limit: 1 }).then((latest) => (latest.ok ? latest.data.items[0] : undefined));
    const run = newest ? { id: newest.id, credits_charged: newest.credits_charged, created_at: newest.created_at } : null;
    return show(ctx, selected, { runnable: loaded.runnable, request, ran: { output: result.output, creditsRemaining: result.creditsRemaining, run } });
  });
}

function notFound(): PorchError {
  return new PorchError('RESOURCE_NOT_FOUND', 'Pick a composition, skill, persona or workflow from the list.');
}
