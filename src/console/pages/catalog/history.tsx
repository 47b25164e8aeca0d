/**
 * An item's versions: the list with the labels naming each, a line diff between two versions
 * (jsdiff over each definition as YAML, shown as a table whose rows say "added" or "removed" in
 * words, not only in colour), setting and moving labels, rolling `production` back to an older
 * version (set_<kind>_label, as the API documents a roll back), and deleting with confirmation.
 */
import { diffLines } from 'diff';
import type { JSX } from 'preact';
import { stringify } from 'yaml';
import type { PorchError } from '../../../core/errors.js';
import { formBody, formValue, type PageContext } from '../../console-pages.js';
import { dateTime } from '../format.js';
import { Notice, PostForm, StackedCell, StackedRow, StackedRowHeader, StackedTable, TableWrap } from '../layout.js';
import { fetchItem, ItemTabs, LabelBadges } from './editor.js';
import type { CatalogKind } from './kinds.js';
import { FieldErrors, issuesOf, messagesAt } from './form-parts.js';

/** The label a roll back moves: executions that name no version run it. */
export const PRODUCTION_LABEL = 'production';
const SUGGESTED_LABELS = ['production', 'staging'] as const;

interface DiffRow {
  change: 'added' | 'removed' | 'same';
  oldLine?: number;
  newLine?: number;
  text: string;
}

export function diffRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    for (const text of lines) {
      if (part.added) rows.push({ change: 'added', newLine: newLine++, text });
      else if (part.removed) rows.push({ change: 'removed', oldLine: oldLine++, text });
      else rows.push({ change: 'same', oldLine: oldLine++, newLine: newLine++, text });
    }
  }
  return rows;
}

const CHANGE_WORDS = { added: 'Added', removed: 'Removed', same: 'Unchanged' } as const;
const CHANGE_MARKS = { added: '+', removed: '−', same: '' } as const;

function DiffTable({ rows, from, to }: { rows: readonly DiffRow[]; from: number; to: number }): JSX.Element {
  const added = rows.filter((row) => row.change === 'added').length;
  const removed = rows.filter((row) => row.change === 'removed').length;
  if (added === 0 && removed === 0)
    return (
      <p class="empty">
        Versions {from} and {to} have the same definition.
      </p>
    );
  return (
    <TableWrap label={`Changes from version ${from} to version ${to}`}>
      <table class="diff">
        <caption>
          Version {from} → version {to}: {added} {added === 1 ? 'line' : 'lines'} added, {removed} removed
        </caption>
        <thead>
          <tr>
            <th scope="col">v{from}</th>
            <th scope="col">v{to}</th>
            <th scope="col">Change</th>
            <th scope="col">Line</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index} class={`diff-${row.change}`}>
              <td class="number">{row.oldLine ?? ''}</td>
              <td class="number">{row.newLine ?? ''}</td>
              <td class="diff-change">
                <span aria-hidden="true">{CHANGE_MARKS[row.change]} </span>
                {row.change === 'same' ? <span class="visually-hidden">{CHANGE_WORDS.same}</span> : CHANGE_WORDS[row.change]}
              </td>
              <td>
                <code class="diff-text">{row.text}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

interface Outcome {
  notice?: string;
  error?: PorchError;
  /** What the label form held when it was refused, shown again with the message at its field. */
  typed?: { label: string; version: string };
}

function queryNumber(value: unknown): number | undefined {
  return typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : undefined;
}

async function definitionYaml(kind: CatalogKind, ctx: PageContext, id: string, version: number): Promise<string> {
  const got = await ctx.api.call(kind.lifecycle.getVersion, { id, version });
  if (!got.ok) throw got.error;
  return stringify(got.data.definition, { lineWidth: 0 });
}

export async function renderHistory(kind: CatalogKind, ctx: PageContext, id: string, outcome: Outcome = {}): Promise<void> {
  const item = await fetchItem(kind, ctx, id);
  const versions = await ctx.api.call(kind.lifecycle.listVersions, { id });
  if (!versions.ok) throw versions.error;
  const saved = queryNumber(ctx.req.query.saved);
  // A version the item does not have (a hand-edited address, a stale link) is named, and the
  // default comparison shown, rather than the whole page answering 404 (regression).
  const asked = (name: 'from' | 'to') => {
    const value = ctx.req.query[name];
    if (value === undefined) return { version: undefined, wrong: undefined };
    const version = queryNumber(value);
    return version !== undefined && version <= item.version ? { version, wrong: undefined } : { version: undefined, wrong: String(value).slice(0, 20) };
  };
  const askedTo = asked('to');
  const askedFrom = asked('from');
  const to = askedTo.version ?? item.version;
  const from = askedFrom.version ?? Math.max(1, to - 1);
  const wrongVersions = [askedFrom.wrong, askedTo.wrong].filter((wrong): wrong is string => wrong !== undefined);
  const csrfToken = ctx.signedIn.csrfToken;
  const rows = from === to ? [] : diffRows(await definitionYaml(kind, ctx, id, from), await definitionYaml(kind, ctx, id, to));
  const numbers = versions.data.items.map((version) => version.version);
  const typed = outcome.typed;
  const labelIssues = typed ? messagesAt(issuesOf(outcome.error), 'label') : [];
  ctx.render({
    title: `Versions of ${item.name}`,
    active: kind.section,
    status: outcome.error?.status ?? 200,
    // An action answered here (a label set, a roll back) is re-read with GET on reload, never sent again.
    address: `${kind.path}/${id}/versions`,
    body: (
      <section>
        <p class="breadcrumb">
          <a href={kind.path}>{kind.title}</a>
        </p>
        <h1>{item.name}</h1>
        <ItemTabs kind={kind} id={id} current="history" />
        {saved !== undefined ? <Notice kind="success">Saved as version {saved}.</Notice> : null}
        {outcome.notice ? <Notice kind="success">{outcome.notice}</Notice> : null}
        {outcome.error ? <Notice kind="error">{outcome.error.message}</Notice> : null}
        <p class="muted">
          Labels: <LabelBadges labels={item.labels} />
        </p>
        <h2>Versions</h2>
        <StackedTable label="Versions" columns={['Version', 'Labels', 'Written', 'Actions']}>
          {versions.data.items.map((version) => (
            <StackedRow key={version.version}>
              <StackedRowHeader>v{version.version}</StackedRowHeader>
              <StackedCell class="badges" label="Labels">
                {version.version === item.version ? <span class="badge">latest</span> : null}
                {version.labels.map((label) => (
                  <span key={label} class={`badge ${label === PRODUCTION_LABEL ? 'badge-success' : 'badge-warn'}`}>
                    {label}
                  </span>
                ))}
              </StackedCell>
              <StackedCell class="nowrap" label="Written">
                {dateTime(version.created_at)}
              </StackedCell>
              <StackedCell>
                <div class="actions">
                  <a href={`${kind.path}/${id}/versions/${version.version}`}>View v{version.version}</a>
                  {version.version > 1 ? (
                    <a href={`${kind.path}/${id}/versions?from=${version.version - 1}&to=${version.version}#diff`}>Changes in v{version.version}</a>
                  ) : null}
                  {item.labels[PRODUCTION_LABEL] !== version.version ? (
                    <PostForm action={`${kind.path}/${id}/rollback`} csrfToken={csrfToken} class="inline">
                      <input type="hidden" name="version" value={String(version.version)} />
                      <button type="submit" class="secondary">
                        {item.labels[PRODUCTION_LABEL] !== undefined && version.version < item.labels[PRODUCTION_LABEL]
                          ? `Roll back production to v${version.version}`
                          : `Promote v${version.version} to production`}
                      </button>
                    </PostForm>
                  ) : null}
                </div>
              </StackedCell>
            </StackedRow>
          ))}
        </StackedTable>

        <div class="cards">
          <PostForm action={`${kind.path}/${id}/labels`} csrfToken={csrfToken} class="stack panel">
            <h2>Set or move a label</h2>
            <div class="field">
              <label for="label-name">Label</label>
              <input
                id="label-name"
                name="label"
                type="text"
                list="label-suggestions"
                required
                placeholder="production"
                value={typed?.label ?? ''}
                {...(labelIssues.length > 0 ? { 'aria-invalid': 'true', 'aria-describedby': 'label-name-errors' } : {})}
              />
              {labelIssues.length > 0 ? <FieldErrors id="label-name-errors" messages={labelIssues} /> : null}
              <datalist id="label-suggestions">
                {SUGGESTED_LABELS.map((label) => (
                  <option key={label} value={label} />
                ))}
              </datalist>
              <p class="hint">Lowercase letters, digits, _ or -. Setting a label that exists moves it.</p>
            </div>
            <div class="field">
              <label for="label-version">Version</label>
              <select id="label-version" name="version">
                {numbers.map((number) => (
                  <option key={number} value={String(number)} selected={typed?.version === String(number)}>
                    v{number}
                  </option>
                ))}
              </select>
            </div>
            <div class="actions">
              <button type="submit">Set label</button>
            </div>
          </PostForm>
          <section class="panel" aria-labelledby="labels-heading">
            <h2 id="labels-heading">Labels set</h2>
            {Object.keys(item.labels).filter((label) => label !== 'latest').length === 0 ? (
              <p class="empty">No label yet: executions run the newest version.</p>
            ) : (
              <ul class="label-list">
                {Object.entries(item.labels)
                  .filter(([label]) => label !== 'latest')
                  .map(([label, version]) => (
                    <li key={label}>
                      <strong>{label}</strong> → v{version}{' '}
                      <PostForm action={`${kind.path}/${id}/labels/${label}/remove`} csrfToken={csrfToken} class="inline">
                        <button type="submit" class="link-button" aria-label={`Remove label ${label}`}>
                          Remove
                        </button>
                      </PostForm>
                    </li>
                  ))}
              </ul>
            )}
            <p>
              <a href={`${kind.path}/${id}/delete`} class="danger-link">
                Delete this {kind.noun}…
              </a>
            </p>
          </section>
        </div>

        <h2 id="diff">Compare versions</h2>
        {wrongVersions.length > 0 ? (
          <Notice kind="error">
            {`There is no version ${wrongVersions.map((wrong) => `“${wrong}”`).join(' or ')} of this ${kind.noun} (versions 1 to ${item.version}); comparing v${from} and v${to} instead.`}
          </Notice>
        ) : null}
        <form method="get" action={`${kind.path}/${id}/versions`} class="compare">
          <div class="field">
            <label for="diff-from">From</label>
            <select id="diff-from" name="from">
              {numbers.map((number) => (
                <option key={number} value={String(number)} selected={number === from}>
                  v{number}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="diff-to">To</label>
            <select id="diff-to" name="to">
              {numbers.map((number) => (
                <option key={number} value={String(number)} selected={number === to}>
                  v{number}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">
            Compare
          </button>
        </form>
        {from !== to ? (
          <DiffTable rows={rows} from={from} to={to} />
        ) : numbers.length <= 1 ? (
          <p class="empty">Only one version to show: save a change to compare.</p>
        ) : (
          <SameVersion path={`${kind.path}/${id}/versions`} version={to} />
        )}
      </section>
    ),
  });
}

/**
 * Both sides name one version, so there is nothing to compare: say so, and offer it beside its
 * neighbour (regression: the page said the item had only one version).
 */
function SameVersion({ path, version }: { path: string; version: number }): JSX.Element {
  // Version 1 has no earlier one: it goes beside version 2 (the page shows this only when there is one).
  const [from, to] = version > 1 ? [version - 1, version] : [version, version + 1];
  return (
    <p class="empty">
      From and To are both v{version}: pick two different versions above, or{' '}
      <a href={`${path}?from=${from}&to=${to}`}>
        compare v{from} with v{to}
      </a>
      .
    </p>
  );
}

export async function setLabel(kind: CatalogKind, ctx: PageContext, id: string): Promise<void> {
  const body = formBody(ctx.req);
  const label = formValue(body, 'label') ?? '';
  const version = queryNumber(formValue(body, 'version')) ?? formValue(body, 'version');
  const result = await ctx.api.call(kind.lifecycle.setLabel, { id, label, version });
  await renderHistory(
    kind,
    ctx,
    id,
    result.ok ? { notice: `${label} now names version ${String(version)}.` } : { error: result.error, typed: { label, version: String(version) } },
  );
}

export async function rollBack(kind: CatalogKind, ctx: PageContext, id: string): Promise<void> {
  const version = queryNumber(formValue(formBody(ctx.req), 'version')) ?? formValue(formBody(ctx.req), 'version');
  const result = await ctx.api.call(kind.lifecycle.setLabel, { id, label: PRODUCTION_LABEL, version });
  await renderHistory(
    kind,
    ctx,
    id,
    result.ok ? { notice: `production now names version ${String(version)}: executions without a version run it.` } : { error: result.error },
  );
}

export async function removeLabel(kind: CatalogKind, ctx: PageContext, id: string, label: string): Promise<void> {
  const result = await ctx.api.call(kind.lifecycle.removeLabel, { id, label });
  await renderHistory(kind, ctx, id, result.ok ? { notice: `Removed the label ${label}.` } : { error: result.error });
}

export async function renderDeleteConfirmation(kind: CatalogKind, ctx: PageContext, id: string): Promise<void> {
  const item = await fetchItem(kind, ctx, id);
  ctx.render({
    title: `Delete ${item.name}`,
    active: kind.section,
    body: (
      <section>
        <p class="breadcrumb">
          <a href={kind.path}>{kind.title}</a>
        </p>
        <h1>Delete {item.name}?</h1>
        <Notice kind="info">
          The {kind.noun} leaves lists and executions at once, and workflows that use it fail at that node. Its versions stay for the audit trail until
          retention removes them.
        </Notice>
        <PostForm action={`${kind.path}/${id}/delete`} csrfToken={ctx.signedIn.csrfToken} class="actions">
          <button type="submit" class="danger">
            Delete {item.name}
          </button>
          <a href={`${kind.path}/${id}/versions`}>Cancel</a>
        </PostForm>
      </section>
    ),
  });
}

export async function deleteItem(kind: CatalogKind, ctx: PageContext, id: string): Promise<void> {
  await fetchItem(kind, ctx, id);
  const result = await ctx.api.call(kind.lifecycle.delete, { id });
  if (!result.ok) throw result.error;
  ctx.redirect(`${kind.path}?deleted=1`);
}

export async function renderVersion(kind: CatalogKind, ctx: PageContext, id: string, versionText: string): Promise<void> {
  const item = await fetchItem(kind, ctx, id);
  // Sent as typed: the operation's own message names a version that is not a number.
  const got = await ctx.api.call(kind.lifecycle.getVersion, { id, version: queryNumber(versionText) ?? versionText });
  if (!got.ok) throw got.error;
  const { version, labels, created_at: createdAt, definition } = got.data;
  ctx.render({
    title: `Version ${version} of ${item.name}`,
    active: kind.section,
    body: (
      <section>
        <p class="breadcrumb">
          <a href={kind.path}>{kind.title}</a> / <a href={`${kind.path}/${id}/versions`}>{item.name}</a>
        </p>
        <h1>
          {item.name}, version {version}
        </h1>
        <ItemTabs kind={kind} id={id} current="history" />
        <p class="muted">
          Written {dateTime(createdAt)}.{' '}
          {labels.map((label) => (
            <span key={label} class={`badge ${label === PRODUCTION_LABEL ? 'badge-success' : 'badge-warn'}`}>
              {label}
            </span>
          ))}
        </p>
        <h2>Definition</h2>
        <pre class="definition">{stringify(definition, { lineWidth: 0 })}</pre>
      </section>
    ),
  });
}
