/**
 * Connecting an app with OAuth: the page the authorization server sends the browser to
 * (`/console/connect/<uid>`). Signed in (the console's sign-in, then back here), the account
 * holder sees which app asks, where the browser returns, and picks the scopes the app gets, within
 * what the account may give a key; approving connects the app (it then shows under Settings → API
 * Access), denying tells the app no. Plans that cannot hold keys see why and can only decline.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SCOPE_DESCRIPTIONS, type Scope } from '../../core/access/scopes.js';
import type { ConsentBounds, ConsentRequest, OAuthService } from '../../core/access/oauth.js';
import { PorchError } from '../../core/errors.js';
import { CONSOLE_PATHS } from '../../operations/site-paths.js';
import { formBody, formValue, formValues, type PageContext, type PageRegistrar } from '../console-pages.js';
import { Notice, PostForm } from './layout.js';

export const CONNECT_PATH = `${CONSOLE_PATHS.root}/connect`;

/**
 * What each scope lets a connected app do, which is less than it lets a key for two scopes: an
 * app's token works only on the MCP server, where `put_byok_key` is not a tool, and never mints a
 * key (`create_key` and `rotate_key` answer it ACCESS_DENIED, docs/mcp.md). The consent page
 * promises what approving grants, no more (regression: it offered to create and rotate keys).
 */
export const APP_SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  ...SCOPE_DESCRIPTIONS,
  'manage:keys': "List and revoke the account's API keys, and list and disconnect its connected apps (an app can never create or rotate a key)",
  'manage:organisation':
    'Organisation admins only: read the organisation and its members, set its policies, manage its sanitiser rules, list and revoke its BYOK provider keys (an app cannot add one)',
};

/**
 * The consent form's answer redirects, through the authorization endpoint, to the app's redirect
 * URI on another origin; browsers hold such a redirect to the page's CSP `form-action`, which
 * allows only this site. The consent page allows that one destination besides.
 */
function allowFormRedirectTo(res: ServerResponse, source: string): void {
  const policy = res.getHeader('Content-Security-Policy');
  if (typeof policy !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:(\/\/[^\s;,']+)?$/.test(source)) return;
  res.setHeader('Content-Security-Policy', policy.replace(/form-action 'self'/, `form-action 'self' ${source}`));
}

/** The authorization server's side of the interaction, handed in by the composition root. */
export interface OAuthConsent {
  details(req: IncomingMessage, res: ServerResponse, uid: string): Promise<ConsentRequest>;
  approve(req: IncomingMessage, res: ServerResponse, request: { uid: string; accountId: string; scopes: readonly string[] }): Promise<string>;
  deny(req: IncomingMessage, res: ServerResponse, uid: string): Promise<string>;
}

/**
 * Asked-for scopes the account may give are ticked; when the app asked for every scope (or named
 * none, which reads the same), or none of them, a new key's defaults: never more by default.
 */
function initiallyChecked(request: ConsentRequest, bounds: ConsentBounds): readonly string[] {
  const requested = request.requestedScopes.filter((scope) => (bounds.scopes as readonly string[]).includes(scope));
  const everything = bounds.scopes.every((scope) => requested.includes(scope));
  return requested.length > 0 && !everything ? requested : bounds.defaultScopes;
}

function ConsentForm({
  request,
  bounds,
  csrfToken,
  email,
  error,
}: {
  request: ConsentRequest;
  bounds: ConsentBounds;
  csrfToken: string;
  email: string;
  error?: string;
}) {
  const action = `${CONNECT_PATH}/${encodeURIComponent(request.uid)}`;
  const checked = initiallyChecked(request, bounds);
  // Only what the app asked for can be granted (its tokens carry no other scope), so only that is offered.
  const offered = bounds.scopes.filter((scope) => request.requestedScopes.includes(scope));
  return (
    <section class="auth-box consent">
      {/* The name is the app's own words: isolated (bdi), so no character in it can reorder the text around it. */}
      <h1>
        Connect <bdi>{request.clientName}</bdi> to Porch?
      </h1>
      <p class="lead">
        <strong>
          <bdi>{request.clientName}</bdi>
        </strong>{' '}
        asks to use Porch's MCP server as <strong>{email}</strong>. After you approve, your browser returns to <code>{request.redirectHost}</code>.
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {bounds.allowed ? (
        <PostForm action={action} csrfToken={csrfToken} class="stack">
          <fieldset>
            <legend>What the app may do</legend>
            <div class="checkboxes">
              {offered.map((scope: Scope) => (
                <label key={scope}>
                  <input type="checkbox" name="scope" value={scope} checked={checked.includes(scope)} /> {scope}
                  <span class="hint"> {APP_SCOPE_DESCRIPTIONS[scope]}</span>
                </label>
              ))}
            </div>
            <p class="hint">
              The app acts like an API key of your account with these scopes: same limits, same credits. You can disconnect it at any time under Settings → API
              access.
            </p>
          </fieldset>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              Approve
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </PostForm>
      ) : (
        <>
          <Notice kind="info">{bounds.reason}</Notice>
          <PostForm action={action} csrfToken={csrfToken} class="actions">
            <button type="submit" name="decision" value="deny" class="secondary">
              Decline and return to the app
            </button>
          </PostForm>
        </>
      )}
    </section>
  );
}

async function renderConsent(ctx: PageContext, consent: OAuthConsent, oauth: OAuthService, error?: PorchError): Promise<void> {
  const uid = String(ctx.req.params.uid);
  const request = await consent.details(ctx.req, ctx.res, uid);
  allowFormRedirectTo(ctx.res, request.redirectSource);
  const bounds = oauth.consentBounds(ctx.signedIn.caller.account);
  ctx.render({
    title: `Connect ${request.clientName}`,
    status: error?.status ?? 200,
    body: <ConsentForm request={request} bounds={bounds} csrfToken={ctx.signedIn.csrfToken} email={ctx.signedIn.caller.account.email} error={error?.message} />,
  });
}

export function registerConnectPages(pages: PageRegistrar, consent: OAuthConsent, oauth: OAuthService): void {
  pages.page('GET', `${CONNECT_PATH}/:uid`, (ctx) => renderConsent(ctx, consent, oauth));

  pages.page('POST', `${CONNECT_PATH}/:uid`, async (ctx) => {
    const uid = String(ctx.req.params.uid);
    const body = formBody(ctx.req);
    const decision = formValue(body, 'decision');
    if (decision === 'deny') return ctx.redirect(await consent.deny(ctx.req, ctx.res, uid));
    if (decision !== 'approve') throw new PorchError('VALIDATION_ERROR', 'Choose Approve or Deny.');
    const account = ctx.signedIn.caller.account;
    const bounds = oauth.consentBounds(account);
    if (!bounds.allowed) throw new PorchError('API_EXPERT_ONLY', bounds.reason ?? 'This account cannot connect apps.');
    const scopes = formValues(body, 'scope');
    if (scopes.length === 0) return renderConsent(ctx, consent, oauth, new PorchError('VALIDATION_ERROR', 'Choose at least one scope, or deny.'));
    const beyond = scopes.filter((scope) => !(bounds.scopes as readonly string[]).includes(scope));
    if (beyond.length > 0) return renderConsent(ctx, consent, oauth, new PorchError('VALIDATION_ERROR', `Unknown scopes: ${beyond.join(', ')}.`));
    ctx.redirect(await consent.approve(ctx.req, ctx.res, { uid, accountId: account.id, scopes }));
  });
}
