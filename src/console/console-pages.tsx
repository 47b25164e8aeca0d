/**
 * What every console page handler gets, and how it is wired: the signed-in caller, the operation
 * caller, rendering into the frame, and the checks every route shares (session, CSRF).
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Core } from '../core/core.js';
import { ERROR_TABLE, PorchError, toPorchError } from '../core/errors.js';
import { logFieldsOf } from '../core/telemetry/telemetry.js';
import { MAX_JSON_DEPTH, requestPartProblem } from '../operations/invoke.js';
import type { Operation } from '../operations/operation.js';
import { CONSOLE_PATHS } from '../operations/site-paths.js';
import type { ConsoleAssets } from './assets.js';
import { type OperationCaller, operationCaller } from './call-operation.js';
import { Page, type SectionId } from './pages/layout.js';
import type { ConsoleCookies, SignedIn } from './session.js';

export interface ConsoleDependencies {
  core: Core;
  operations: readonly Operation[];
  assets: ConsoleAssets;
  cookies: ConsoleCookies;
}

export interface RenderedPage {
  title: string;
  active?: SectionId;
  body: VNode;
  status?: number;
  /**
   * Where the page is read with GET. A page answering a POST (an action) shows this address
   * instead of the action's (console.js), so reloading it reads the page again rather than
   * repeating the action: a second key, a second webhook, a second charged run.
   */
  address?: string;
}

/** One request of a signed-in page. */
export interface PageContext {
  req: Request;
  res: Response;
  signedIn: SignedIn;
  api: OperationCaller;
  /** The public origin (`site_url`), for absolute links shown to the user. */
  siteUrl: string;
  render(page: RenderedPage): void;
  /** Answers with part of a page, without the frame: what an htmx request swaps in. */
  fragment(body: VNode, status?: number): void;
  redirect(path: string): void;
}

/** One request of a page that needs no sign-in (sign-in itself, the refine page). */
export interface PublicPageContext {
  req: Request;
  res: Response;
  /** The session when there is one: a public page still shows who is signed in. */
  signedIn: SignedIn | null;
  api: OperationCaller;
  siteUrl: string;
  /** The CSRF token the page's forms carry: the session's, or the anonymous form token. */
  csrfToken: string;
  render(page: RenderedPage): void;
  /** Answers with part of a page, without the frame: what an htmx request swaps in. */
  fragment(body: VNode, status?: number): void;
}

export type PageHandler = (ctx: PageContext) => Promise<void>;
export type PublicPageHandler = (ctx: PublicPageContext) => Promise<void>;

/** A form body is a flat map of strings (and string lists, for repeated fields such as checkboxes). */
export type FormBody = Record<string, string | string[] | undefined>;

export function formBody(req: Request): FormBody {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null ? (body as FormBody) : {};
}

/** One value of a form field (the last, if repeated); empty strings read as absent. */
export function formValue(body: FormBody, name: string): string | undefined {
  const value = body[name];
  const single = Array.isArray(value) ? value[value.length - 1] : value;
  return single === undefined || single === '' ? undefined : single;
}

/** A number as people type one: `-5`, `2.5`, `1e3`, `1,000`. */
const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;

/**
 * A form field read as a number whenever its text is one, so the operation's own rule names
 * what is wrong with it (`must be at least 1`) rather than its type (`expected number, received
 * string`). Other text goes through as typed, for the operation to name the field; empty is absent.
 */
export function numberField(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().replaceAll(',', '');
  return NUMBER_TEXT.test(text) ? Number(text) : value;
}

/** Every value of a repeated field (checkboxes). */
export function formValues(body: FormBody, name: string): string[] {
  const value = body[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function sendHtml(res: Response, status: number, page: VNode, options: { fragment?: boolean } = {}): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // Pages show account data and sometimes a secret shown once: never stored by a browser or proxy.
  res.setHeader('Cache-Control', 'no-store');
  // A form answered with "your session has ended" links to the sign-in with the page it was sent
  // from (signInLink), read from the Referer; helmet's `no-referrer` kept browsers from sending it
  // (regression: the link had no ?next=). `same-origin` sends it to Porch only, never to another site.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.send(options.fragment ? renderToString(page) : `<!doctype html>${renderToString(page)}`);
}

/** A route the console serves, as registered: what the security suite walks. */
export interface ConsoleRoute {
  method: 'GET' | 'POST';
  /** Express syntax, full path (`/console/settings/api-access/keys/:id/revoke`). */
  path: string;
  access: 'signed-in' | 'public';
}

export interface PageRegistrar {
  /** Every route registered so far. */
  readonly routes: readonly ConsoleRoute[];
  /**
   * A signed-in page (GET) or action (POST, CSRF-checked). `signedOut` answers a request without
   * a session instead of the usual refusal (sign-out: its goal is already met).
   */
  page(method: 'GET' | 'POST', path: string, handler: PageHandler, options?: { signedOut?: (res: Response) => void }): void;
  /** A page open to everyone; its POSTs are CSRF-checked all the same. */
  publicPage(method: 'GET' | 'POST', path: string, handler: PublicPageHandler): void;
  /** Answers with an error page (the error's status and message, in the frame). */
  fail(req: Request, res: Response, signedIn: SignedIn | null, csrfToken: string, err: unknown): void;
}

/** Registers pages on a router mounted at `basePath`; pages name their full paths (CONSOLE_PATHS). */
export function createPageRegistrar(router: Router, basePath: string, deps: ConsoleDependencies): PageRegistrar {
  const { core, operations, assets, cookies } = deps;
  const frame = (signedIn: SignedIn | null, csrfToken: string, page: RenderedPage, method = 'GET') => (
    <Page
      title={page.title}
      assetUrl={assets.url}
      account={signedIn && { email: signedIn.caller.account.email, plan: signedIn.caller.account.plan }}
      csrfToken={csrfToken}
      active={page.active}
      address={method === 'POST' ? page.address : undefined}
    >
      {page.body}
    </Page>
  );

  const failed = (req: Request, res: Response, signedIn: SignedIn | null, csrfToken: string, err: unknown) => {
    const error = toPorchError(err);
    if (ERROR_TABLE[error.code].status >= 500) core.logger.error({ ...logFieldsOf(res.locals.scope), err }, 'console page failed');
    if (error.details.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
    const body = <ErrorBody message={error.message} back={req.get('referer')} signIn={error.code === 'MISSING_API_KEY' ? signInLink(req) : undefined} />;
    sendHtml(res, ERROR_TABLE[error.code].status, frame(signedIn, csrfToken, { title: 'Something went wrong', body }));
  };

  /** Checks a request's text (and a POST's CSRF token), then what every handler gets about it. */
  const opened = (req: Request, res: Response, signedIn: SignedIn | null, csrfToken: string, method: 'GET' | 'POST') => {
    if (method === 'POST') cookies.checkCsrf(req, signedIn);
    checkRequestText(req);
    return {
      req,
      res,
      api: operationCaller(core, operations, signedIn, req, res),
      siteUrl: core.settings.siteUrl,
      render: (page: RenderedPage) => sendHtml(res, page.status ?? 200, frame(signedIn, csrfToken, page, method)),
      fragment: (body: VNode, status = 200) => sendHtml(res, status, body, { fragment: true }),
    };
  };

  const routes: ConsoleRoute[] = [];
  const route = (method: 'GET' | 'POST', path: string, access: ConsoleRoute['access'], handler: (req: Request, res: Response) => Promise<void>) => {
    routes.push({ method, path, access });
    const run: RequestHandler = (req, res, next) => {
      handler(req, res).catch(next);
    };
    if (!path.startsWith(basePath)) throw new Error(`${path} is not under ${basePath}`);
    const relative = path.slice(basePath.length) || '/';
    if (method === 'GET') router.get(relative, run);
    else router.post(relative, run);
  };

  return {
    fail: failed,
    routes,
    page(method, path, handler, options = {}) {
      route(method, path, 'signed-in', async (req, res) => {
        const signedIn = await cookies.signedIn(req);
        // A form another site posted never carries the session cookie (SameSite=Lax), so it must
        // not reach `signedOut`: it would clear the cookie of a session it never ended
        // (regression: another site signed the user out of the browser, the session lived on).
        const crossSite = req.get('sec-fetch-site') === 'cross-site';
        if (!signedIn && options.signedOut && !crossSite) return options.signedOut(res);
        if (!signedIn) {
          // A page goes to sign-in; a part of a page updating itself (htmx) is told the session
          // ended, which console.js shows in its place (regression: a run's page followed the
          // redirect, found nothing to show, and went blank).
          if (method === 'GET' && req.get('HX-Request') !== 'true') {
            return res.redirect(303, `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(req.originalUrl)}`);
          }
          // A form another site posted arrives without the session cookie (SameSite): say so,
          // rather than tell a person who is still signed in that their session ended.
          const refusal = crossSite
            ? new PorchError('CSRF_TOKEN_INVALID', 'This form was sent from another site; the console accepts forms from its own pages only.')
            : new PorchError('MISSING_API_KEY', 'Your session has ended; sign in again.');
          return failed(req, res, null, cookies.formToken(req, res), refusal);
        }
        try {
          await handler({ ...opened(req, res, signedIn, signedIn.csrfToken, method), signedIn, redirect: (to) => res.redirect(303, to) });
        } catch (err) {
          failed(req, res, signedIn, signedIn.csrfToken, err);
        }
      });
    },
    publicPage(method, path, handler) {
      route(method, path, 'public', async (req, res) => {
        const signedIn = await cookies.signedIn(req);
        const csrfToken = signedIn ? signedIn.csrfToken : cookies.formToken(req, res);
        try {
          await handler({ ...opened(req, res, signedIn, csrfToken, method), signedIn, csrfToken });
        } catch (err) {
          failed(req, res, signedIn, csrfToken, err);
        }
      });
    },
  };
}

/**
 * A page's query parameters and form fields are checked as operation inputs are: none may hold
 * the NUL character, which PostgreSQL can neither store nor compare (a sign-in with one in the
 * email address was a 500 there).
 */
function checkRequestText(req: Request): void {
  for (const [location, value] of [
    ['query', req.query],
    ['form', req.body],
  ] as const) {
    const problem = requestPartProblem(value, location, 'plain', MAX_JSON_DEPTH);
    if (problem !== undefined) throw new PorchError('VALIDATION_ERROR', `Invalid request: ${problem}.`);
  }
}

/** The sign-in page, coming back to the page the refused form was on (a path of this site only). */
function signInLink(req: Request): string {
  const referer = URL.parse(req.get('referer') ?? '');
  const back =
    referer !== null && referer.host === req.get('host') && referer.pathname.startsWith(CONSOLE_PATHS.root) ? referer.pathname + referer.search : undefined;
  return back === undefined ? CONSOLE_PATHS.signIn : `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(back)}`;
}

function ErrorBody({ message, back, signIn }: { message: string; back: string | undefined; signIn?: string | undefined }): VNode {
  return (
    <section>
      <h1>Something went wrong</h1>
      <p class="notice notice-error" role="alert">
        {message}
      </p>
      {signIn ? (
        <>
          <p>
            Nothing was saved. To keep what you typed, sign in again in another tab, then come back here with the browser’s Back button and send the form again:
            the browser keeps what was in it.
          </p>
          <p>
            <a class="button" href={signIn} target="_blank" rel="noopener">
              Sign in again (new tab)
            </a>
          </p>
        </>
      ) : back ? (
        <a href={back}>Go back</a>
      ) : null}
    </section>
  );
}
