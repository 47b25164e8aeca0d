/**
 * Settings → API Access: the account's keys (scopes, limits, last use), creating one (its secret
 * shown once, with a copy button), rotating with a grace period, revoking; and the apps (MCP
 * hosts) connected with OAuth, each with a Revoke button. Expert accounts only, as the API
 * itself; other plans see why.
 */
import type { z } from 'zod';
import { Fragment } from 'preact';
import { MAX_ROTATION_GRACE_SECONDS } from '../../core/accounts/accounts.js';
import { ALL_SCOPES, DEFAULT_KEY_SCOPES, SCOPE_DESCRIPTIONS } from '../../core/access/scopes.js';
import type { PorchError } from '../../core/errors.js';
import { createKey } from '../../operations/create-key.js';
import { listConnectedApps } from '../../operations/list-connected-apps.js';
import { listKeys } from '../../operations/list-keys.js';
import { revokeConnectedApp } from '../../operations/revoke-connected-app.js';
import { revokeKey } from '../../operations/revoke-key.js';
import { rotateKey } from '../../operations/rotate-key.js';
import type { connectedAppSchema, ownKeySchema } from '../../operations/self-service-schemas.js';
import { CONSOLE_PATHS, SITE_PATHS, siteLink } from '../../operations/site-paths.js';
import { formBody, formValue, formValues, numberField, type PageContext, type PageRegistrar } from '../console-pages.js';
import { Field, FieldErrors, fieldId, issuesOf, messagesAt } from './catalog/form-parts.js';
import { dateTime } from './format.js';
import { Notice, PostForm, StackedCell, StackedRow, StackedTable } from './layout.js';

const PATH = `${CONSOLE_PATHS.root}/settings/api-access`;

type OwnKey = z.output<typeof ownKeySchema>;
type ConnectedApp = z.output<typeof connectedAppSchema>;

/** What a page shows once after an action: the new secret, or the error it met. */
interface Outcome {
  created?: { name: string; secret: string; replaced?: string };
  revoked?: string;
  disconnected?: string;
  error?: PorchError;
  /** The create form as it was sent, shown again when the operation refused it. */
  typed?: TypedKey;
}

interface TypedKey {
  name: string;
  scopes: readonly string[];
  requestsPerMinute: string;
  requestsPerDay: string;
  expiresAt: string;
}

/** Read under the select's label, "Old key after rotation": short enough to show whole in the table's last column. */
const ROTATION_GRACE_CHOICES = [
  { seconds: 0, label: 'revoked at once' },
  { seconds: 3_600, label: 'kept for 1 hour' },
  { seconds: MAX_ROTATION_GRACE_SECONDS, label: 'kept for 24 hours' },
] as const;

function KeyStatus({ item, successor }: { item: OwnKey; successor: OwnKey | undefined }) {
  const kind = item.status === 'active' ? (item.expires_at ? 'badge-warn' : 'badge-success') : 'badge-danger';
  return (
    <>
      <span class={`badge ${kind}`}>{item.status === 'active' && item.expires_at ? `active until ${dateTime(item.expires_at)}` : item.status}</span>
      {item.replaced_by ? <span class="hint"> rotated; replaced by {successor ? <code>{successor.prefix}…</code> : 'a newer key'}</span> : null}
    </>
  );
}

/**
 * Scopes, comma-separated, each free to break after its colon (`execute:` / `composition`): the
 * column's narrowest width is then its longest half, which keeps the keys table within 1280 px
 * (regression: 36 px too wide, clipping the rotation choice).
 */
function ScopeList({ scopes }: { scopes: readonly string[] }) {
  return (
    <>
      {scopes.map((scope, index) => {
        const colon = scope.indexOf(':');
        return (
          <Fragment key={scope}>
            {index > 0 ? ', ' : ''}
            {colon < 0 ? (
              scope
            ) : (
              <>
                {scope.slice(0, colon + 1)}
                <wbr />
                {scope.slice(colon + 1)}
              </>
            )}
          </Fragment>
        );
      })}
    </>
  );
}

/** How many scopes a row lists whole; more are counted, their list a click away (regression: 20 scopes made a row 500 px tall on a phone, 300 at 1280). */
const SCOPES_LISTED_WHOLE = 3;

/** A count that says what the set is when it is a well-known one: every scope, or a new key's default ones. */
function scopeCount(scopes: readonly string[]): string {
  const held = new Set(scopes);
  const sameAs = (others: readonly string[]) => others.length === held.size && others.every((scope) => held.has(scope));
  if (sameAs(ALL_SCOPES)) return `all ${held.size} scopes`;
  if (sameAs(DEFAULT_KEY_SCOPES)) return `the ${held.size} default scopes`;
  return `${held.size} scopes`;
}

/** A key's or an app's scopes: a few listed whole, more counted in a disclosure that lists them. */
function Scopes({ scopes }: { scopes: readonly string[] }) {
  if (scopes.length <= SCOPES_LISTED_WHOLE) return <ScopeList scopes={scopes} />;
  return (
    <details class="scopes">
      <summary>{scopeCount(scopes)}</summary>
      <ScopeList scopes={scopes} />
    </details>
  );
}

function KeysTable({ keys, csrfToken }: { keys: OwnKey[]; csrfToken: string }) {
  if (keys.length === 0) return <p class="empty">No keys yet. Create one below.</p>;
  const byId = new Map(keys.map((item) => [item.id, item]));
  return (
    <StackedTable label="API keys" caption="Your API keys" columns={['Name', 'Key', 'Status', 'Scopes', 'Limits', 'Last used', 'Created', 'Actions']}>
      {keys.map((item) => (
        <StackedRow key={item.id}>
          <StackedCell class="name key-name" label="Name">
            {item.name}
          </StackedCell>
          <StackedCell label="Key">
            <code>{item.prefix}…</code>
          </StackedCell>
          <StackedCell label="Status">
            <KeyStatus item={item} successor={item.replaced_by ? byId.get(item.replaced_by) : undefined} />
          </StackedCell>
          <StackedCell label="Scopes">
            <Scopes scopes={item.scopes} />
          </StackedCell>
          <StackedCell class="number" label="Limits">
            {item.limits.requests_per_minute}/min
            <br />
            {item.limits.requests_per_day.toLocaleString('en')}/day
          </StackedCell>
          <StackedCell label="Last used">{item.last_used_at ? dateTime(item.last_used_at) : 'never'}</StackedCell>
          <StackedCell label="Created">{dateTime(item.created_at)}</StackedCell>
          <StackedCell>
            {item.status === 'active' ? (
              <div class="actions">
                {/* A key is rotated once: the one in its grace period can only be revoked (ending the grace now). */}
                {item.replaced_by ? null : (
                  <PostForm action={`${PATH}/keys/${item.id}/rotate`} csrfToken={csrfToken} class="actions">
                    {/* Not "Rotate", the button's name, nor a choice reading "Revoke" beside the Revoke button (regression: cut to that at 1280 px). */}
                    <label class="hint" for={`grace-${item.id}`}>
                      Old key after rotation
                    </label>
                    <select id={`grace-${item.id}`} name="grace_seconds" class="grace">
                      {ROTATION_GRACE_CHOICES.map((choice) => (
                        <option value={String(choice.seconds)} key={choice.seconds}>
                          {choice.label}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="secondary">
                      Rotate
                    </button>
                  </PostForm>
                )}
                <PostForm action={`${PATH}/keys/${item.id}/revoke`} csrfToken={csrfToken}>
                  <button type="submit" class="danger" data-confirm={`Revoke ${item.name}? Clients using it stop working at once.`}>
                    Revoke
                  </button>
                </PostForm>
              </div>
            ) : null}
          </StackedCell>
        </StackedRow>
      ))}
    </StackedTable>
  );
}

function ConnectedAppsTable({ apps, csrfToken }: { apps: ConnectedApp[]; csrfToken: string }) {
  return (
    <section class="panel" aria-labelledby="connected-apps">
      <h2 id="connected-apps">Connected apps</h2>
      <p class="hint">
        MCP hosts you connected by signing in from the app (OAuth). Each acts like a key of this account with the scopes you granted; revoking one stops it at
        its next request.
      </p>
      {apps.length === 0 ? (
        <p class="empty">No connected apps.</p>
      ) : (
        <StackedTable label="Connected apps" caption="Apps connected with OAuth" columns={['App', 'Scopes', 'Connected', 'Last used', 'Actions']}>
          {apps.map((app) => (
            <StackedRow key={app.id}>
              <StackedCell class="name" label="App">
                {/* The app's own words, registered maybe before bidi characters were refused: isolated. */}
                <bdi>{app.name}</bdi>
              </StackedCell>
              <StackedCell label="Scopes">
                <Scopes scopes={app.scopes} />
              </StackedCell>
              <StackedCell label="Connected">{dateTime(app.connected_at)}</StackedCell>
              <StackedCell label="Last used">{app.last_used_at ? dateTime(app.last_used_at) : 'never'}</StackedCell>
              <StackedCell>
                <PostForm action={`${PATH}/connected-apps/${app.id}/revoke`} csrfToken={csrfToken}>
                  <button type="submit" class="danger" data-confirm={`Disconnect ${app.name}? It stops working at once.`}>
                    Revoke
                  </button>
                </PostForm>
              </StackedCell>
            </StackedRow>
          ))}
        </StackedTable>
      )}
    </section>
  );
}

function CreateKeyForm({ csrfToken, typed, error }: { csrfToken: string; typed: TypedKey | undefined; error: PorchError | undefined }) {
  // A refused form keeps what was typed (regression: it came back with the default scopes, which a
  // second submit would have given the key), with each message at its field.
  const issues = typed ? issuesOf(error) : [];
  const scopes: readonly string[] = typed?.scopes ?? DEFAULT_KEY_SCOPES;
  const scopeMessages = messagesAt(issues, 'scopes');
  return (
    <PostForm action={`${PATH}/keys`} csrfToken={csrfToken} class="stack panel">
      <h2>Create a key</h2>
      <Field path="name" label="Name" maxLength={100} placeholder="e.g. production backend" value={typed?.name ?? ''} issues={issues} />
      {/* The scopes' message describes the group and marks each box, as a text field's does (regression: neither). */}
      <fieldset aria-describedby={scopeMessages.length > 0 ? `${fieldId('scopes')}-errors` : undefined}>
        <legend>Scopes</legend>
        <div class="checkboxes">
          {ALL_SCOPES.map((scope) => (
            <label key={scope} title={SCOPE_DESCRIPTIONS[scope]}>
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                aria-invalid={scopeMessages.length > 0 ? 'true' : undefined}
              />{' '}
              {scope}
            </label>
          ))}
        </div>
        <FieldErrors id={`${fieldId('scopes')}-errors`} messages={scopeMessages} />
        <p class="hint">Write, key-management, usage and webhook scopes are never given by default: tick them only for keys that need them.</p>
      </fieldset>
      <div class="cards">
        <Field
          path="requests_per_minute"
          label="Requests per minute"
          type="number"
          min={1}
          placeholder="120"
          value={typed?.requestsPerMinute ?? ''}
          issues={issues}
        />
        <Field path="requests_per_day" label="Requests per day" type="number" min={1} placeholder="20000" value={typed?.requestsPerDay ?? ''} issues={issues} />
        <Field path="expires_at" label="Expires (UTC, optional)" type="datetime-local" value={typed?.expiresAt ?? ''} issues={issues} />
      </div>
      <div class="actions">
        <button type="submit">Create key</button>
      </div>
    </PostForm>
  );
}

function NewSecret({ created }: { created: NonNullable<Outcome['created']> }) {
  return (
    <Notice kind="success">
      <p>
        {created.replaced ? `Rotated ${created.replaced}. ` : ''}Your new key, “<strong>{created.name}</strong>”, is below. Copy it now: it is shown only this
        once, and Porch keeps only its hash.
      </p>
      <div class="secret">
        <code id="new-key">{created.secret}</code>
        <button type="button" class="secondary" data-copy="#new-key">
          Copy
        </button>
      </div>
    </Notice>
  );
}

async function renderPage({ api, render, signedIn, siteUrl }: PageContext, outcome: Outcome = {}): Promise<void> {
  const account = signedIn.caller.account;
  if (account.plan !== 'expert') {
    render({
      title: 'API access',
      active: 'api-access',
      address: PATH,
      status: outcome.error?.status ?? 200,
      body: (
        <section>
          <h1>API access</h1>
          {outcome.error ? <Notice kind="error">{outcome.error.message}</Notice> : null}
          <Notice kind="info">
            The REST API, MCP with a key and API keys are part of the Expert plan; this account is on the <strong>{account.plan}</strong> plan. Everything else
            in the console works on every plan. Ask your Porch operator to move the account to Expert (porch account set-plan).
          </Notice>
        </section>
      ),
    });
    return;
  }
  const keys = await api.call(listKeys);
  if (!keys.ok) throw keys.error;
  const apps = await api.call(listConnectedApps);
  if (!apps.ok) throw apps.error;
  render({
    title: 'API access',
    active: 'api-access',
    address: PATH,
    status: outcome.error?.status ?? 200,
    body: (
      <section>
        <h1>API access</h1>
        <p class="lead">
          Keys call the REST API at <code>{siteLink(siteUrl, SITE_PATHS.apiBase)}</code> (header <code>X-API-Key</code>) and the MCP server at{' '}
          <code>{siteLink(siteUrl, SITE_PATHS.mcp)}</code>. See the <a href={SITE_PATHS.docs}>docs</a>.
        </p>
        {outcome.error ? <Notice kind="error">{outcome.error.message}</Notice> : null}
        {outcome.created ? <NewSecret created={outcome.created} /> : null}
        {outcome.revoked ? <Notice kind="success">Revoked {outcome.revoked}. Requests with it are refused from now on.</Notice> : null}
        {outcome.disconnected ? <Notice kind="success">Disconnected {outcome.disconnected}. Its tokens are refused from now on.</Notice> : null}
        <KeysTable keys={keys.data.items} csrfToken={signedIn.csrfToken} />
        <CreateKeyForm csrfToken={signedIn.csrfToken} typed={outcome.typed} error={outcome.error} />
        <ConnectedAppsTable apps={apps.data.items} csrfToken={signedIn.csrfToken} />
      </section>
    ),
  });
}

/** `datetime-local` sends `2026-12-01T10:00` with no zone; the form says UTC. */
function utcTimestamp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

export function registerApiAccessPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, (ctx) => renderPage(ctx));

  pages.page('POST', `${PATH}/keys`, async (ctx) => {
    const body = formBody(ctx.req);
    const scopes = formValues(body, 'scopes');
    const typed: TypedKey = {
      name: formValue(body, 'name') ?? '',
      scopes,
      requestsPerMinute: formValue(body, 'requests_per_minute') ?? '',
      requestsPerDay: formValue(body, 'requests_per_day') ?? '',
      expiresAt: formValue(body, 'expires_at') ?? '',
    };
    const result = await ctx.api.call(createKey, {
      name: formValue(body, 'name'),
      // No box ticked is a key with no scope: sent as is, so the operation's message explains it.
      scopes,
      requests_per_minute: numberField(formValue(body, 'requests_per_minute')),
      requests_per_day: numberField(formValue(body, 'requests_per_day')),
      expires_at: utcTimestamp(formValue(body, 'expires_at')),
    });
    await renderPage(ctx, result.ok ? { created: { name: result.data.key.name, secret: result.data.api_key } } : { error: result.error, typed });
  });

  pages.page('POST', `${PATH}/keys/:id/rotate`, async (ctx) => {
    const body = formBody(ctx.req);
    const result = await ctx.api.call(rotateKey, { id: ctx.req.params.id, grace_seconds: numberField(formValue(body, 'grace_seconds')) ?? 0 });
    await renderPage(
      ctx,
      result.ok ? { created: { name: result.data.key.name, secret: result.data.api_key, replaced: result.data.previous.prefix } } : { error: result.error },
    );
  });

  pages.page('POST', `${PATH}/keys/:id/revoke`, async (ctx) => {
    const result = await ctx.api.call(revokeKey, { id: ctx.req.params.id });
    await renderPage(ctx, result.ok ? { revoked: result.data.name } : { error: result.error });
  });

  pages.page('POST', `${PATH}/connected-apps/:id/revoke`, async (ctx) => {
    const result = await ctx.api.call(revokeConnectedApp, { id: ctx.req.params.id });
    await renderPage(ctx, result.ok ? { disconnected: result.data.name } : { error: result.error });
  });
}
