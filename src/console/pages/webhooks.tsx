/**
 * Settings → Webhooks: the account's endpoints (create, with the signing secret shown once; edit
 * URL, events and whether it is enabled; rotate the secret; delete), each endpoint's delivery log
 * with manual redelivery, and the credits.low threshold. Every action is a webhook operation,
 * called as the signed-in account, so refusals (an address the SSRF guard refuses, a plan
 * without webhooks) are the API's own messages. The settings form sends only what was changed
 * since it was opened (catalog/edit-base.ts), so it never undoes a change saved elsewhere.
 */
import type { z } from 'zod';
import { PorchError } from '../../core/errors.js';
import { DEFAULT_SECRET_GRACE_SECONDS, MAX_SECRET_GRACE_SECONDS } from '../../core/webhooks/webhooks.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryStatus } from '../../db/store.js';
import { createWebhook } from '../../operations/create-webhook.js';
import { deleteWebhook } from '../../operations/delete-webhook.js';
import { getCreditsLowThreshold } from '../../operations/get-credits-low-threshold.js';
import { getWebhook } from '../../operations/get-webhook.js';
import { listWebhookDeliveries } from '../../operations/list-webhook-deliveries.js';
import { listWebhooks } from '../../operations/list-webhooks.js';
import { redeliverWebhook } from '../../operations/redeliver-webhook.js';
import { rotateWebhookSecret } from '../../operations/rotate-webhook-secret.js';
import { setCreditsLowThreshold } from '../../operations/set-credits-low-threshold.js';
import { updateWebhook } from '../../operations/update-webhook.js';
import type { webhookDeliverySchema, webhookEndpointSchema } from '../../operations/webhook-schemas.js';
import { CONSOLE_PATHS, SITE_PATHS } from '../../operations/site-paths.js';
import { type FormBody, formBody, formValue, formValues, numberField, type PageContext, type PageRegistrar } from '../console-pages.js';
import { FieldErrors, type FieldIssue, issuesOf, messagesAt } from './catalog/form-parts.js';
import { actionFor, BASE_FIELD, type Digests, digestsOf, encodeBase, type FieldTexts, mergeEdit, parseBase, untouchedFields } from './catalog/edit-base.js';
import { credits, dateTime } from './format.js';
import { Notice, PostForm, StackedCell, StackedRow, StackedTable, TableWrap } from './layout.js';

const PATH = `${CONSOLE_PATHS.root}/settings/webhooks`;
/** A page of the delivery log: enough to see what went wrong lately; older ones are a page away. */
const DELIVERIES_PER_PAGE = 25;

type Endpoint = z.output<typeof webhookEndpointSchema>;
type Delivery = z.output<typeof webhookDeliverySchema>;

const EVENT_DESCRIPTIONS: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
  'run.completed': 'an execution finished',
  'run.failed': 'an execution failed',
  'credits.low': 'the balance fell below the threshold',
};

/** Short enough to be read whole in the select on a 390 px phone (regression: cut at "24 h"); the label says what they are about. */
const GRACE_CHOICES = [
  { seconds: 0, label: 'stops signing at once' },
  { seconds: 3_600, label: 'also signs for 1 hour' },
  { seconds: DEFAULT_SECRET_GRACE_SECONDS, label: 'also signs for 24 hours' },
  { seconds: MAX_SECRET_GRACE_SECONDS, label: 'also signs for 7 days' },
] as const;

/** What a page shows once after an action: a secret shown once, what happened, or the error met. */
interface Outcome {
  secret?: { url: string; secret: string; rotated: boolean };
  done?: string;
  error?: PorchError;
}

const endpointPath = (id: string) => `${PATH}/${encodeURIComponent(id)}`;

function EnabledBadge({ endpoint }: { endpoint: Endpoint }) {
  return endpoint.enabled ? <span class="badge badge-success">enabled</span> : <span class="badge badge-warn">disabled</span>;
}

function DeliveryStatus({ status }: { status: WebhookDeliveryStatus }) {
  const kind = status === 'succeeded' ? 'badge-success' : status === 'failed' ? 'badge-danger' : 'badge-warn';
  return <span class={`badge ${kind}`}>{status}</span>;
}

function Outcomes({ outcome }: { outcome: Outcome }) {
  return (
    <>
      {outcome.error ? <Notice kind="error">{outcome.error.message}</Notice> : null}
      {outcome.done ? <Notice kind="success">{outcome.done}</Notice> : null}
      {outcome.secret ? <NewSecret shown={outcome.secret} /> : null}
    </>
  );
}

function NewSecret({ shown }: { shown: NonNullable<Outcome['secret']> }) {
  return (
    <Notice kind="success">
      <p>
        {shown.rotated ? 'The endpoint has a new signing secret' : 'The endpoint is registered'} (<code>{shown.url}</code>). Its signing secret is below: copy
        it into your receiver now. It is shown only this once; verify each delivery's <code>webhook-signature</code> with it (Standard Webhooks).
      </p>
      <div class="secret">
        <code id="new-secret">{shown.secret}</code>
        <button type="button" class="secondary" data-copy="#new-secret">
          Copy
        </button>
      </div>
    </Notice>
  );
}

function EndpointsTable({ endpoints }: { endpoints: Endpoint[] }) {
  if (endpoints.length === 0) return <p class="empty">No endpoints yet. Register one below.</p>;
  return (
    <StackedTable label="Webhook endpoints" caption="Your webhook endpoints" columns={['URL', 'Events', 'Status', 'Created', 'Actions']}>
      {endpoints.map((endpoint) => (
        <StackedRow key={endpoint.id}>
          <StackedCell class="webhook-url" label="URL">
            <code>{endpoint.url}</code>
            {endpoint.description ? <span class="hint">{endpoint.description}</span> : null}
          </StackedCell>
          <StackedCell label="Events">{endpoint.events.join(', ')}</StackedCell>
          <StackedCell label="Status">
            <EnabledBadge endpoint={endpoint} />
            {endpoint.previous_secret_expires_at ? <span class="hint">old secret signs until {dateTime(endpoint.previous_secret_expires_at)}</span> : null}
          </StackedCell>
          <StackedCell label="Created">{dateTime(endpoint.created_at)}</StackedCell>
          <StackedCell>
            <a href={endpointPath(endpoint.id)} aria-label={`Deliveries and settings of ${endpoint.url}`}>
              Deliveries and settings
            </a>
          </StackedCell>
        </StackedRow>
      ))}
    </StackedTable>
  );
}

function EventBoxes({ idPrefix, checked }: { idPrefix: string; checked: readonly string[] }) {
  return (
    <fieldset>
      <legend>Events</legend>
      <div class="checkboxes event-boxes">
        {WEBHOOK_EVENT_TYPES.map((event) => (
          <label key={event} for={`${idPrefix}-${event}`}>
            <input id={`${idPrefix}-${event}`} type="checkbox" name="events" value={event} checked={checked.includes(event)} /> <code>{event}</code>{' '}
            <span class="hint">{EVENT_DESCRIPTIONS[event]}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The events a new endpoint's form offers ticked. */
const DEFAULT_NEW_EVENTS = ['run.completed', 'run.failed'];

/**
 * The URL input with its hint and the refusal's messages about it, marked invalid and described
 * by them as the other forms' fields are (regression: a refused URL was named only in the notice).
 */
function UrlField({ id, value, issues, hint }: { id: string; value: string; issues: readonly FieldIssue[]; hint?: string }) {
  const messages = messagesAt(issues, 'url');
  const describedBy = [hint ? `${id}-hint` : '', messages.length > 0 ? `${id}-errors` : ''].filter((part) => part !== '').join(' ') || undefined;
  return (
    <div class={messages.length > 0 ? 'field field-invalid' : 'field'}>
      <label for={id}>URL</label>
      <input
        id={id}
        name="url"
        type="text"
        inputMode="url"
        maxLength={2_048}
        value={value}
        placeholder="https://example.com/porch-events"
        aria-invalid={messages.length > 0 ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <FieldErrors id={`${id}-errors`} messages={messages} />
    </div>
  );
}

function CreateForm({ csrfToken, values, error }: { csrfToken: string; values: FormBody; error: PorchError | undefined }) {
  // A form sent back after a refusal shows the boxes as they were sent, none ticked included
  // (regression: unticking every box brought the defaults back with the refusal).
  const sent = Object.keys(values).length > 0;
  const events = sent ? formValues(values, 'events') : DEFAULT_NEW_EVENTS;
  return (
    <PostForm action={`${PATH}/endpoints`} csrfToken={csrfToken} class="stack panel">
      <h2>Register an endpoint</h2>
      <UrlField
        id="webhook-url"
        value={formValue(values, 'url') ?? ''}
        issues={sent ? issuesOf(error) : []}
        hint="https, on a public address. Loopback and private addresses are refused unless the operator allows the host (webhooks.allow_hosts)."
      />
      <div class="field">
        <label for="webhook-description">Description (optional)</label>
        <input id="webhook-description" name="description" type="text" maxLength={500} value={formValue(values, 'description') ?? ''} />
      </div>
      <EventBoxes idPrefix="new-event" checked={events} />
      <div class="actions">
        <button type="submit">Register endpoint</button>
      </div>
    </PostForm>
  );
}

function ThresholdForm({ csrfToken, thresholdCredits, typed }: { csrfToken: string; thresholdCredits: number | null; typed: string | undefined }) {
  return (
    <PostForm action={`${PATH}/credits-low`} csrfToken={csrfToken} class="stack panel">
      <h2>Low-balance alert</h2>
      <p class="hint">
        <code>credits.low</code> is sent to endpoints subscribed to it once, when a charge takes the balance below this many credits, and again only after it
        went back above and fell again. {thresholdCredits === null ? 'It is off now.' : `It is set to ${credits(thresholdCredits)} credits now.`}
      </p>
      <div class="field">
        <label for="threshold">Threshold, in credits (empty: off)</label>
        <input
          id="threshold"
          name="threshold_credits"
          type="text"
          inputMode="decimal"
          value={typed ?? (thresholdCredits === null ? '' : String(thresholdCredits))}
        />
      </div>
      <div class="actions">
        <button type="submit">Save threshold</button>
      </div>
    </PostForm>
  );
}

/**
 * The endpoints page. A refused form is shown again as it was sent (`createValues`, or the
 * threshold `typedThreshold`), so the author corrects rather than retypes.
 */
async function renderList(ctx: PageContext, outcome: Outcome = {}, createValues: FormBody = {}, typedThreshold?: string): Promise<void> {
  const [endpoints, threshold] = await Promise.all([ctx.api.call(listWebhooks), ctx.api.call(getCreditsLowThreshold)]);
  if (!endpoints.ok) throw endpoints.error;
  if (!threshold.ok) throw threshold.error;
  const plan = ctx.signedIn.caller.account.plan;
  ctx.render({
    title: 'Webhooks',
    active: 'webhooks',
    address: PATH,
    status: outcome.error?.status ?? 200,
    body: (
      <section>
        <h1>Webhooks</h1>
        <p class="lead">
          Porch POSTs <code>run.completed</code>, <code>run.failed</code> and <code>credits.low</code> events to your endpoints, signed with Standard Webhooks,
          and retries failed deliveries for about a day. See the <a href={`${SITE_PATHS.docs}/webhooks`}>webhooks docs</a>.
        </p>
        {plan === 'expert' ? null : (
          <Notice kind="info">
            Webhooks are part of the Expert plan; this account is on the <strong>{plan}</strong> plan. Ask your Porch operator to move the account to Expert.
          </Notice>
        )}
        <Outcomes outcome={outcome} />
        {/* Off Expert the forms could only be refused: endpoints kept from before are still listed. */}
        {plan === 'expert' || endpoints.data.items.length > 0 ? <EndpointsTable endpoints={endpoints.data.items} /> : null}
        {plan === 'expert' ? (
          <div class="webhook-panels">
            <CreateForm csrfToken={ctx.signedIn.csrfToken} values={createValues} error={outcome.error} />
            <ThresholdForm csrfToken={ctx.signedIn.csrfToken} thresholdCredits={threshold.data.threshold_credits} typed={typedThreshold} />
          </div>
        ) : null}
      </section>
    ),
  });
}

function AttemptLog({ delivery }: { delivery: Delivery }) {
  if (delivery.attempt_log.length === 0) return <span class="hint">no attempt yet</span>;
  return (
    <details>
      <summary>
        {delivery.attempt_log.length} attempt{delivery.attempt_log.length === 1 ? '' : 's'}
      </summary>
      <ol class="attempt-log">
        {delivery.attempt_log.map((attempt) => (
          <li key={attempt.attempted_at}>
            {dateTime(attempt.attempted_at)}: {attempt.status_code ?? 'no answer'}
            {attempt.error ? ` (${attempt.error})` : ''}, {attempt.duration_ms} ms
          </li>
        ))}
      </ol>
    </details>
  );
}

function DeliveriesTable({ endpoint, deliveries, csrfToken }: { endpoint: Endpoint; deliveries: Delivery[]; csrfToken: string }) {
  if (deliveries.length === 0) return <p class="empty">No deliveries here yet.</p>;
  return (
    <TableWrap label="Deliveries">
      <table>
        <caption class="muted">Deliveries to this endpoint, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Last answer</th>
            <th scope="col">Attempts</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} id={`delivery-${delivery.id}`}>
              <td>
                <code>{delivery.event_type}</code>
                <span class="hint webhook-id">{delivery.id}</span>
              </td>
              <td>
                <DeliveryStatus status={delivery.status} />
                {delivery.next_attempt_at ? <span class="hint">next try {dateTime(delivery.next_attempt_at)}</span> : null}
              </td>
              <td>
                {delivery.last_status_code ?? '—'}
                {delivery.last_error ? <span class="hint">{delivery.last_error}</span> : null}
              </td>
              <td>
                <AttemptLog delivery={delivery} />
              </td>
              <td>{dateTime(delivery.created_at)}</td>
              <td>
                {delivery.status === 'pending' ? (
                  <span class="hint">retried on its schedule</span>
                ) : delivery.payload_available ? (
                  <PostForm action={`${endpointPath(endpoint.id)}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`} csrfToken={csrfToken}>
                    <button type="submit" class="secondary" aria-label={`Redeliver ${delivery.event_type} ${delivery.id}`}>
                      Redeliver
                    </button>
                  </PostForm>
                ) : (
                  <span class="hint">payload past retention</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The settings form's fields as text, for the merge of a save with what changed since (catalog/edit-base.ts). */
interface SettingsFields {
  url: string;
  description: string;
  events: readonly string[];
  enabled: boolean;
}

const SETTINGS_LABELS: Readonly<Record<keyof SettingsFields, string>> = { url: 'URL', description: 'Description', events: 'Events', enabled: 'Enabled' };

function settingsOf(endpoint: Endpoint): SettingsFields {
  return { url: endpoint.url, description: endpoint.description ?? '', events: endpoint.events, enabled: endpoint.enabled };
}

function settingsFromForm(body: FormBody): SettingsFields {
  return {
    url: formValue(body, 'url') ?? '',
    description: formValue(body, 'description') ?? '',
    events: formValues(body, 'events'),
    enabled: formValue(body, 'enabled') === 'on',
  };
}

/** Events compare as a set: the order of the boxes is not a change. */
function settingsTexts(settings: SettingsFields): FieldTexts {
  return {
    url: settings.url,
    description: settings.description,
    events: [...settings.events].sort().join(','),
    enabled: settings.enabled ? 'on' : 'off',
  };
}

/**
 * The endpoint's settings as `shown` (the stored ones, or a refused save as it was sent), with
 * the digests of the fields as they were when the form was first opened (`base`): a save sends
 * only the fields that differ from it.
 */
function EditForm({
  endpoint,
  csrfToken,
  shown,
  base,
  issues,
}: {
  endpoint: Endpoint;
  csrfToken: string;
  shown: SettingsFields;
  base: Digests;
  issues: readonly FieldIssue[];
}) {
  // The base in the action too, so Back never sends typed values with a newer base (actionFor).
  return (
    <PostForm action={actionFor(endpointPath(endpoint.id), base)} csrfToken={csrfToken} class="stack panel">
      <h2>Settings</h2>
      <input type="hidden" name={BASE_FIELD} value={encodeBase(base)} />
      <UrlField id="edit-url" value={shown.url} issues={issues} />
      <div class="field">
        <label for="edit-description">Description (optional)</label>
        <input id="edit-description" name="description" type="text" maxLength={500} value={shown.description} />
      </div>
      <EventBoxes idPrefix="edit-event" checked={shown.events} />
      <label for="edit-enabled">
        <input id="edit-enabled" type="checkbox" name="enabled" value="on" checked={shown.enabled} /> Enabled: deliver new events to this endpoint
      </label>
      <div class="actions">
        <button type="submit">Save changes</button>
      </div>
    </PostForm>
  );
}

function SecretAndDelete({ endpoint, csrfToken }: { endpoint: Endpoint; csrfToken: string }) {
  return (
    <div class="panel">
      <h2>Signing secret</h2>
      {endpoint.previous_secret_expires_at ? (
        <p class="hint">The previous secret still signs beside the current one until {dateTime(endpoint.previous_secret_expires_at)}.</p>
      ) : null}
      <PostForm action={`${endpointPath(endpoint.id)}/rotate`} csrfToken={csrfToken} class="actions">
        <label class="hint" for="grace">
          After rotating, the old secret
        </label>
        <select id="grace" name="grace_seconds">
          {GRACE_CHOICES.map((choice) => (
            <option value={String(choice.seconds)} key={choice.seconds} selected={choice.seconds === DEFAULT_SECRET_GRACE_SECONDS}>
              {choice.label}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Rotate secret
        </button>
      </PostForm>
      <h2>Delete</h2>
      <PostForm action={`${endpointPath(endpoint.id)}/delete`} csrfToken={csrfToken} class="actions">
        <span class="hint">Deletes the endpoint with its pending deliveries and its delivery log.</span>
        <button type="submit" class="danger" data-confirm={`Delete the endpoint ${endpoint.url} and its delivery log?`}>
          Delete endpoint
        </button>
      </PostForm>
    </div>
  );
}

function statusFilter(value: unknown): WebhookDeliveryStatus | undefined {
  return WEBHOOK_DELIVERY_STATUSES.find((status) => status === value);
}

/** A settings form shown again instead of the stored settings: what to show, and the base it was opened with. */
interface SettingsDraft {
  shown: SettingsFields;
  base: Digests;
}

async function renderEndpoint(ctx: PageContext, id: string, outcome: Outcome = {}, draft?: SettingsDraft): Promise<void> {
  const status = statusFilter(ctx.req.query.status);
  const cursor = typeof ctx.req.query.cursor === 'string' && ctx.req.query.cursor !== '' ? ctx.req.query.cursor : undefined;
  const endpoint = await ctx.api.call(getWebhook, { id });
  if (!endpoint.ok) throw endpoint.error;
  const deliveries = await ctx.api.call(listWebhookDeliveries, { id, limit: DELIVERIES_PER_PAGE, status, cursor });
  if (!deliveries.ok) throw deliveries.error;
  const here = endpointPath(id);
  const filterLink = (filter: WebhookDeliveryStatus | undefined) => (filter ? `${here}?status=${filter}` : here);
  const next = deliveries.data.next_cursor;
  ctx.render({
    title: `Webhook ${endpoint.data.url}`,
    active: 'webhooks',
    address: `${PATH}/${id}`,
    status: outcome.error?.status ?? 200,
    body: (
      <section>
        <p>
          <a href={PATH}>← All endpoints</a>
        </p>
        <h1>Webhook endpoint</h1>
        <p class="webhook-title">
          <code>{endpoint.data.url}</code>
        </p>
        <p>
          <EnabledBadge endpoint={endpoint.data} /> <span class="muted">Events: {endpoint.data.events.join(', ')}</span>
          {endpoint.data.description ? <span class="muted"> · {endpoint.data.description}</span> : null}
        </p>
        <Outcomes outcome={outcome} />
        <h2>Deliveries</h2>
        <nav class="actions filter-links" aria-label="Filter deliveries by status">
          {[undefined, ...WEBHOOK_DELIVERY_STATUSES].map((filter) => (
            <a key={filter ?? 'all'} href={filterLink(filter)} aria-current={filter === status ? 'page' : undefined}>
              {filter ?? 'all'}
            </a>
          ))}
        </nav>
        <DeliveriesTable endpoint={endpoint.data} deliveries={deliveries.data.items} csrfToken={ctx.signedIn.csrfToken} />
        {next ? (
          <p>
            <a href={`${here}?${new URLSearchParams({ ...(status ? { status } : {}), cursor: next }).toString()}`}>Older deliveries →</a>
          </p>
        ) : null}
        <div class="webhook-panels">
          <EditForm
            endpoint={endpoint.data}
            csrfToken={ctx.signedIn.csrfToken}
            shown={draft?.shown ?? settingsOf(endpoint.data)}
            base={draft?.base ?? digestsOf(settingsTexts(settingsOf(endpoint.data)))}
            issues={draft ? issuesOf(outcome.error) : []}
          />
          <SecretAndDelete endpoint={endpoint.data} csrfToken={ctx.signedIn.csrfToken} />
        </div>
      </section>
    ),
  });
}

/** Credits; empty turns the alert off (null). */
function creditsField(value: string | undefined): number | string | null {
  return value === undefined || value.trim() === '' ? null : (numberField(value) ?? null);
}

/** A route parameter as one string (Express types a wildcard's as a list; these routes have none). */
function param(ctx: PageContext, name: string): string {
  const value: unknown = ctx.req.params[name];
  return typeof value === 'string' ? value : '';
}

export function registerWebhookPages(pages: PageRegistrar): void {
  pages.page('GET', PATH, (ctx) => renderList(ctx));

  pages.page('POST', `${PATH}/endpoints`, async (ctx) => {
    const body = formBody(ctx.req);
    const result = await ctx.api.call(createWebhook, {
      url: formValue(body, 'url') ?? '',
      // No box ticked is sent as is, so the operation's message explains it.
      events: formValues(body, 'events'),
      description: formValue(body, 'description'),
    });
    if (result.ok) await renderList(ctx, { secret: { url: result.data.endpoint.url, secret: result.data.secret, rotated: false } });
    // A refused form keeps what was typed, so the author corrects rather than retypes.
    else await renderList(ctx, { error: result.error }, body);
  });

  pages.page('POST', `${PATH}/credits-low`, async (ctx) => {
    const typed = formValue(formBody(ctx.req), 'threshold_credits');
    const result = await ctx.api.call(setCreditsLowThreshold, { threshold_credits: creditsField(typed) });
    if (!result.ok) return renderList(ctx, { error: result.error }, {}, typed ?? '');
    const value = result.data.threshold_credits;
    await renderList(ctx, { done: value === null ? 'The low-balance alert is off.' : `credits.low now fires below ${credits(value)} credits.` });
  });

  pages.page('GET', `${PATH}/:id`, (ctx) => renderEndpoint(ctx, param(ctx, 'id')));

  pages.page('POST', `${PATH}/:id`, async (ctx) => {
    const id = param(ctx, 'id');
    const body = formBody(ctx.req);
    // Only what the author changed since opening the form is sent, so a change saved meanwhile
    // elsewhere (another tab, the API) stays as it was saved (regression: the form sent every
    // field back, and re-enabled an endpoint another tab had just disabled).
    const mine = settingsFromForm(body);
    const current = await ctx.api.call(getWebhook, { id });
    if (!current.ok) throw current.error;
    const now = settingsOf(current.data);
    const base = parseBase(formValue(body, BASE_FIELD));
    const merge = mergeEdit(base, settingsTexts(mine), settingsTexts(now));
    if (merge.kind === 'unchanged') return renderEndpoint(ctx, id, { done: 'Nothing changed, so nothing was saved.' });
    if (merge.kind === 'conflict') {
      const names = merge.fields.map((name) => SETTINGS_LABELS[name as keyof SettingsFields] ?? name).join(', ');
      const error = new PorchError(
        'CONFLICT',
        `Since you opened this page, ${names} was changed elsewhere. The form shows your edits, over the endpoint as it is now: save again to keep them.`,
      );
      // The author's edits over the endpoint as it is now, with that as the base: saving again keeps them.
      const untouched = untouchedFields(base, settingsTexts(mine));
      const shown: SettingsFields = {
        url: untouched.has('url') ? now.url : mine.url,
        description: untouched.has('description') ? now.description : mine.description,
        events: untouched.has('events') ? now.events : mine.events,
        enabled: untouched.has('enabled') ? now.enabled : mine.enabled,
      };
      return renderEndpoint(ctx, id, { error }, { shown, base: digestsOf(settingsTexts(now)) });
    }
    const sends = (name: keyof SettingsFields) => merge.fields.includes(name);
    const result = await ctx.api.call(updateWebhook, {
      id,
      ...(sends('url') ? { url: mine.url } : {}),
      ...(sends('events') ? { events: mine.events } : {}),
      ...(sends('description') ? { description: mine.description === '' ? null : mine.description } : {}),
      ...(sends('enabled') ? { enabled: mine.enabled } : {}),
    });
    // A refused save keeps what was typed (regression: the stored values came back, the edits lost), and the base it was made against.
    if (!result.ok) return renderEndpoint(ctx, id, { error: result.error }, { shown: mine, base: base ?? digestsOf(settingsTexts(now)) });
    await renderEndpoint(ctx, id, { done: 'Saved.' });
  });

  pages.page('POST', `${PATH}/:id/rotate`, async (ctx) => {
    const id = param(ctx, 'id');
    const result = await ctx.api.call(rotateWebhookSecret, { id, grace_seconds: numberField(formValue(formBody(ctx.req), 'grace_seconds')) });
    await renderEndpoint(
      ctx,
      id,
      result.ok ? { secret: { url: result.data.endpoint.url, secret: result.data.secret, rotated: true } } : { error: result.error },
    );
  });

  pages.page('POST', `${PATH}/:id/delete`, async (ctx) => {
    const id = param(ctx, 'id');
    const endpoint = await ctx.api.call(getWebhook, { id });
    const result = await ctx.api.call(deleteWebhook, { id });
    if (!result.ok) return renderList(ctx, { error: result.error });
    await renderList(ctx, { done: `Deleted the endpoint ${endpoint.ok ? endpoint.data.url : id} and its delivery log.` });
  });

  pages.page('POST', `${PATH}/:id/deliveries/:deliveryId/redeliver`, async (ctx) => {
    const id = param(ctx, 'id');
    const result = await ctx.api.call(redeliverWebhook, { id, delivery_id: param(ctx, 'deliveryId') });
    await renderEndpoint(
      ctx,
      id,
      result.ok ? { done: `Delivery ${result.data.id} (${result.data.event_type}) is queued again; it goes out at once.` } : { error: result.error },
    );
  });
}
