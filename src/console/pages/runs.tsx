/**
 * Runs: every execution of the account, filtered as list_runs filters (kind, status, resource)
 * and paged with its cursor; a run's detail with its inputs, its result or a workflow's node
 * trace, and a cancel button while it is queued or running.
 */
import type { JSX } from 'preact';
import type { z } from 'zod';
import { ERROR_TABLE, PorchError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import { RUN_KINDS, RUN_STATUSES } from '../../db/store.js';
import { cancelRun } from '../../operations/cancel-run.js';
import { getRun } from '../../operations/get-run.js';
import { listRuns } from '../../operations/list-runs.js';
import type { runDetailSchema, runSchema } from '../../operations/self-service-schemas.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import type { PageContext, PageRegistrar } from '../console-pages.js';
import { dateTime, wholeNumber } from './format.js';
import { Notice, PostForm, TableWrap } from './layout.js';
import { KIND_LABELS, listResources, type ResourceChoice, resourceName, resourceRef } from './run/resources.js';
import { asText, breakableAfterUnderscores, creditsText, Facts, NodeTrace, nodeResultsOf, StatusBadge, tokensText } from './run/results.js';

const PATH = `${CONSOLE_PATHS.root}/runs`;
const PAGE_SIZES = [25, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 25;

type Run = z.output<typeof runSchema>;
type RunDetail = z.output<typeof runDetailSchema>;

interface Filters {
  kind?: string | undefined;
  status?: string | undefined;
  resource_id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A run's duration; none yet while it is queued or running (regression: "0 ms"). */
function durationText(run: { status: string; duration_ms: number }): string {
  return run.status === 'queued' || run.status === 'running' ? '—' : `${wholeNumber(run.duration_ms)} ms`;
}

function queryString(filters: Partial<Filters>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}

function filtersFrom(query: PageContext['req']['query']): Filters {
  const text = (name: string) => {
    const value = query[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const limit = Number(text('limit') ?? DEFAULT_PAGE_SIZE);
  return {
    kind: text('kind'),
    status: text('status'),
    resource_id: text('resource_id'),
    // Any whole number is passed on: list_runs itself refuses one out of range, with its message.
    limit: Number.isInteger(limit) ? limit : DEFAULT_PAGE_SIZE,
    cursor: text('cursor'),
  };
}

function FilterForm({ filters, resources }: { filters: Filters; resources: ResourceChoice[] }): JSX.Element {
  return (
    <form method="get" action={PATH} class="filters panel" aria-label="Filter runs">
      <div class="field">
        <label for="filter-kind">Kind</label>
        <select id="filter-kind" name="kind">
          <option value="">Any kind</option>
          {RUN_KINDS.map((kind) => (
            <option value={kind} selected={filters.kind === kind} key={kind}>
              {KIND_LABELS[kind]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" name="status">
          <option value="">Any status</option>
          {RUN_STATUSES.map((status) => (
            <option value={status} selected={filters.status === status} key={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-resource">Resource</label>
        <select id="filter-resource" name="resource_id">
          <option value="">Any resource</option>
          {resources.map((resource) => (
            <option value={resource.id} selected={filters.resource_id === resource.id} key={resourceRef(resource)}>
              {KIND_LABELS[resource.kind]}: {resource.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-limit">Per page</label>
        <select id="filter-limit" name="limit">
          {PAGE_SIZES.map((size) => (
            <option value={String(size)} selected={filters.limit === size} key={size}>
              {size}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Filter
        </button>
        <a href={PATH}>Clear</a>
      </div>
    </form>
  );
}

/** Runs, newest first, each linked to its detail page (also the overview's recent runs). */
export function RunsTable({
  runs,
  names,
  caption = 'Runs, newest recorded first',
}: {
  runs: Run[];
  names: Map<string, string>;
  caption?: string;
}): JSX.Element {
  return (
    <TableWrap label="Runs">
      <table>
        <caption class="muted table-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Kind</th>
            <th scope="col">Resource</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
            <th scope="col" class="number">
              Tokens
            </th>
            <th scope="col" class="number">
              Credits
            </th>
            <th scope="col" class="number">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td class="nowrap">
                <a href={`${PATH}/${run.id}`}>{dateTime(run.created_at)}</a>
              </td>
              <td>{run.kind}</td>
              <td class="name">
                {names.get(run.resource_id) ?? <code>{run.resource_id.slice(0, 8)}</code>}
                {run.version === null ? null : <span class="muted"> v{run.version}</span>}
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td class="name">{run.model ?? '—'}</td>
              <td class="number">{wholeNumber(run.token_usage.total_tokens)}</td>
              <td class="number">{creditsText(run.credits_charged)}</td>
              <td class="number">{durationText(run)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** A failed run keeps its error as its result. */
function errorOf(result: unknown): { code: string; message: string } | null {
  if (typeof result !== 'object' || result === null || !('error' in result)) return null;
  const error = result.error;
  if (typeof error !== 'object' || error === null || !('message' in error) || typeof error.message !== 'string') return null;
  return { code: 'code' in error && typeof error.code === 'string' ? error.code : 'ERROR', message: error.message };
}

/** A workflow's named outputs. */
function outputsOf(result: unknown): Record<string, unknown> | null {
  if (typeof result !== 'object' || result === null || !('outputs' in result)) return null;
  const outputs = result.outputs;
  return typeof outputs === 'object' && outputs !== null && Object.keys(outputs).length > 0 ? (outputs as Record<string, unknown>) : null;
}

function contentOf(result: unknown): string | null {
  return typeof result === 'object' && result !== null && 'content' in result && typeof result.content === 'string' ? result.content : null;
}

function RunDetailBody({
  run,
  name,
  csrfToken,
  notice,
}: {
  run: RunDetail;
  name: string | undefined;
  csrfToken: string;
  notice?: JSX.Element | null;
}): JSX.Element {
  const trace = nodeResultsOf(run.result);
  const error = errorOf(run.result);
  const content = contentOf(run.result);
  const outputs = outputsOf(run.result);
  const cancellable = run.status === 'queued' || run.status === 'running';
  const self = `${PATH}/${run.id}`;
  // While the run has not ended, htmx asks for the page again and swaps this section: the polling stops with the run.
  const polling = cancellable ? { 'hx-get': self, 'hx-trigger': 'every 2s', 'hx-select': '#run-detail', 'hx-swap': 'outerHTML' } : {};
  return (
    <section id="run-detail" {...polling}>
      <p>
        <a href={PATH}>← All runs</a>
      </p>
      <h1>
        Run of {KIND_LABELS[run.kind].toLowerCase()} {name ?? run.resource_id}
      </h1>
      {notice}
      <Facts
        items={[
          ['Status', <StatusBadge status={run.status} key="status" />],
          ['Run id', <code key="id">{run.id}</code>],
          ['Version', run.version === null ? '—' : String(run.version)],
          ['Model', run.model ?? (run.kind === 'workflow' ? 'per node' : '—')],
          ['Tokens', tokensText(run.token_usage)],
          ['Credits', creditsText(run.credits_charged)],
          ['Duration', durationText(run)],
          ['Created', dateTime(run.created_at)],
          ['Finished', run.finished_at ? dateTime(run.finished_at) : '—'],
          ['Operation', <code key="operation">{breakableAfterUnderscores(run.operation)}</code>],
        ]}
      />
      {cancellable ? (
        <PostForm action={`${PATH}/${run.id}/cancel`} csrfToken={csrfToken} class="actions">
          {run.cancel_requested ? <p class="hint">Cancelling: the process running it stops it within about a second.</p> : null}
          {/* An id, so htmx gives the focus back to it when the poll below replaces the section (regression: lost every 2 s). */}
          <button type="submit" id="cancel-run" class="danger" data-confirm="Cancel this run?">
            Cancel run
          </button>
        </PostForm>
      ) : null}
      {run.payload_available ? null : <Notice kind="info">The inputs and result of this run were removed by retention.</Notice>}
      <h2>Inputs</h2>
      {run.inputs === null || run.inputs === undefined ? <p class="empty">None kept.</p> : <pre class="output">{asText(run.inputs)}</pre>}
      <h2>Result</h2>
      {error ? (
        <Notice kind="error">
          <strong>{error.code}</strong>: {error.message}
        </Notice>
      ) : null}
      {content !== null ? <pre class="output">{content}</pre> : null}
      {outputs ? (
        <>
          <h3>Outputs</h3>
          {Object.entries(outputs).map(([output, value]) => (
            <div key={output}>
              <h4>
                <code>{output}</code>
              </h4>
              <pre class="output">{asText(value)}</pre>
            </div>
          ))}
        </>
      ) : null}
      {trace ? (
        <>
          <h3>Trace</h3>
          <NodeTrace nodes={trace} />
        </>
      ) : null}
      {!error && content === null && !trace && !outputs ? (
        run.result === null || run.result === undefined ? (
          <p class="empty">{cancellable ? 'Not finished yet.' : 'None kept.'}</p>
        ) : (
          <pre class="output">{asText(run.result)}</pre>
        )
      ) : null}
    </section>
  );
}

async function showRun(ctx: PageContext, run: RunDetail, notice?: { error?: PorchError; done?: string }): Promise<void> {
  const name = await resourceName(ctx.api, run.kind, run.resource_id);
  ctx.render({
    title: `Run ${run.id.slice(0, 8)}`,
    active: 'runs',
    status: notice?.error ? ERROR_TABLE[notice.error.code].status : undefined,
    // The run's own address, also after a cancel: a reload must not send the cancel again.
    address: `${PATH}/${run.id}`,
    body: (
      <RunDetailBody
        run={run}
        name={name}
        csrfToken={ctx.signedIn.csrfToken}
        notice={notice?.error ? <Notice kind="error">{notice.error.message}</Notice> : notice?.done ? <Notice kind="success">{notice.done}</Notice> : null}
      />
    ),
  });
}

export function registerRunsPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, async (ctx) => {
    const filters = filtersFrom(ctx.req.query);
    const [runs, resources] = await Promise.all([ctx.api.call(listRuns, { ...filters }), listResources(ctx.api)]);
    const names = new Map(resources.map((resource) => [resource.id, resource.name]));
    const { cursor: _cursor, ...withoutCursor } = filters;
    ctx.render({
      title: 'Runs',
      active: 'runs',
      status: runs.ok ? undefined : ERROR_TABLE[runs.error.code].status,
      body: (
        <section>
          <h1>Runs</h1>
          <p class="lead">
            Every execution of your compositions, skills, personas and workflows, the newest recorded first (a run is recorded when it ends, or when it is
            queued).
          </p>
          <FilterForm filters={filters} resources={resources} />
          {runs.ok ? (
            runs.data.items.length === 0 ? (
              <p class="empty">{filters.cursor ? 'No more runs.' : 'No runs match.'}</p>
            ) : (
              <RunsTable runs={runs.data.items} names={names} />
            )
          ) : (
            <Notice kind="error">{runs.error.message}</Notice>
          )}
          <nav class="pager" aria-label="Pages of runs">
            {filters.cursor ? <a href={`${PATH}${queryString(withoutCursor)}`}>← Newest runs</a> : null}
            {runs.ok && runs.data.next_cursor ? (
              <a href={`${PATH}${queryString({ ...withoutCursor, cursor: runs.data.next_cursor })}`} rel="next">
                Older runs →
              </a>
            ) : null}
          </nav>
        </section>
      ),
    });
  });

  pages.page('GET', `${PATH}/:id`, async (ctx) => {
    const id = String(ctx.req.params.id);
    // An address that cannot name a run is a page that does not exist, not a bad request.
    if (!isUuid(id)) throw new PorchError('RESOURCE_NOT_FOUND', 'There is no run at this address.');
    const run = await ctx.api.call(getRun, { id });
    if (!run.ok) throw run.error;
    const done = ctx.req.query.cancelled === '1' ? 'Cancellation requested.' : undefined;
    await showRun(ctx, run.data, { done });
  });

  pages.page('POST', `${PATH}/:id/cancel`, async (ctx) => {
    const id = String(ctx.req.params.id);
    const cancelled = await ctx.api.call(cancelRun, { id });
    if (cancelled.ok) return ctx.redirect(`${PATH}/${cancelled.data.id}?cancelled=1`);
    // A run that already ended (409) is still shown, with the reason; an unknown one is the 404 page.
    const run = await ctx.api.call(getRun, { id });
    if (!run.ok) throw cancelled.error;
    await showRun(ctx, run.data, { error: cancelled.error });
  });
}
