/**
 * The web console door: people sign in and do, in pages, what API clients do with a key. It is
 * mounted by the composition root beside REST and MCP (`/console`, and `/refine` which needs no
 * sign-in) and reaches the domain only through operations, as the signed-in account.
 */
import express, { type ErrorRequestHandler, type RequestHandler, Router } from 'express';
import type { Core } from '../core/core.js';
import { PorchError } from '../core/errors.js';
import type { Operation } from '../operations/operation.js';
import { CONSOLE_PATHS } from '../operations/site-paths.js';
import { createConsoleAssets } from './assets.js';
import { type ConsoleDependencies, type ConsoleRoute, createPageRegistrar, type PageRegistrar } from './console-pages.js';
import { registerApiAccessPages } from './pages/api-access.js';
import { registerCatalogPages } from './pages/catalog/index.js';
import { type OAuthConsent, registerConnectPages } from './pages/connect.js';
import { registerJudgePages } from './pages/judge.js';
import { registerOrganisationPages } from './pages/organisation.js';
import { registerOverviewPage } from './pages/overview.js';
import { registerPlaygroundPages } from './pages/playground.js';
import { registerRefinePages } from './pages/refine.js';
import { registerRunsPages } from './pages/runs.js';
import { registerSanitiserPages } from './pages/sanitiser.js';
import { registerSessionPages } from './pages/sessions.js';
import { registerSignInPages } from './pages/sign-in.js';
import { registerWebhookPages } from './pages/webhooks.js';
import { cookieNamesFor, createConsoleCookies } from './session.js';

/** Forms are small; a playground input or a workflow's YAML is the largest thing a page sends. */
const FORM_BODY_LIMIT_MB = 1;
const FORM_BODY_LIMIT = `${FORM_BODY_LIMIT_MB}mb`;

export interface ConsoleDoor {
  /** Mounted at CONSOLE_PATHS.root. */
  handler: RequestHandler;
  /** Mounted at CONSOLE_PATHS.refine: the page `analyze_prompt` links to, open without sign-in. */
  refine: RequestHandler;
  /** Every page and action of both, for the security suite. */
  routes: readonly ConsoleRoute[];
}

/**
 * Form bodies (urlencoded, the only kind a console page sends). A body the parser refuses becomes
 * the error a person can act on; compressed bodies are refused, as on the API, since a few bytes
 * of brotli inflate to megabytes.
 */
function formParser(): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT, parameterLimit: 2_000, inflate: false });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err === undefined || err === null) return next();
      const type = typeof err === 'object' && 'type' in err ? err.type : undefined;
      if (type === 'entity.too.large') {
        // What to do next, as the page of an ended session says: the form's text is not lost.
        return next(
          new PorchError(
            'PAYLOAD_TOO_LARGE',
            `The form is larger than the console accepts (${FORM_BODY_LIMIT_MB} MB of text in all), so nothing was saved. Go back with the browser’s Back button: the form is still there with what you typed. Shorten the longest text, then send it again.`,
          ),
        );
      }
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new PorchError('UNSUPPORTED_MEDIA_TYPE', 'Send the form as UTF-8, without Content-Encoding.'));
      }
      next(new PorchError('VALIDATION_ERROR', 'The form could not be read.'));
    });
}

function consoleRouter(
  basePath: string,
  deps: ConsoleDependencies,
  register: (pages: PageRegistrar) => void,
): { router: Router; routes: readonly ConsoleRoute[] } {
  const router = Router();
  router.use(formParser());
  const pages = createPageRegistrar(router, basePath, deps);
  register(pages);
  const notFound: RequestHandler = (req, res, next) => {
    deps.cookies
      .signedIn(req)
      .then((signedIn) =>
        pages.fail(req, res, signedIn, signedIn?.csrfToken ?? '', new PorchError('NOT_FOUND', `There is no console page at ${req.originalUrl}.`)),
      )
      .catch(next);
  };
  // A body the parser refused (too large, malformed) or a fault in a page: an HTML answer, never
  // the API's JSON, in the frame of whoever is signed in (regression: a signed-in author sent too
  // large a form saw the signed-out frame, without navigation).
  const failed: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) return next(err);
    deps.cookies
      .signedIn(req)
      .catch(() => null)
      .then((signedIn) => pages.fail(req, res, signedIn, signedIn?.csrfToken ?? '', err))
      .catch(next);
  };
  router.use(notFound);
  router.use(failed);
  return { router, routes: pages.routes };
}

export interface ConsoleDoorOptions {
  core: Core;
  operations: readonly Operation[];
  /** The OAuth authorization server's interaction, when it is served: the consent page calls it. */
  oauthConsent?: OAuthConsent;
}

export function createConsoleDoor({ core, operations, oauthConsent }: ConsoleDoorOptions): ConsoleDoor {
  const assets = createConsoleAssets();
  const cookies = createConsoleCookies(core, cookieNamesFor(core.settings.siteUrl));
  const deps: ConsoleDependencies = { core, operations, assets, cookies };
  const sessions = core.consoleSessions;

  const pages = consoleRouter(CONSOLE_PATHS.root, deps, (registrar) => {
    registerSignInPages(registrar, cookies, sessions);
    registerOverviewPage(registrar, { assets, clock: core.clock });
    registerApiAccessPages(registrar);
    if (oauthConsent) registerConnectPages(registrar, oauthConsent, core.oauth);
    registerCatalogPages(registrar);
    registerPlaygroundPages(registrar);
    registerRunsPages(registrar);
    registerJudgePages(registrar, { thresholds: core.settings.judgeThresholds });
    registerSanitiserPages(registrar);
    registerSessionPages(registrar, sessions);
    registerWebhookPages(registrar);
    registerOrganisationPages(registrar);
  });
  const console = Router();
  console.use(assets.handler);
  console.use(pages.router);
  // The refine page lives outside /console (its link is public), with its own router; it shares
  // the console's sessions, assets and frame, so a signed-in author sees their account there.
  const refine = consoleRouter(CONSOLE_PATHS.refine, deps, (registrar) => {
    registerRefinePages(registrar);
  });
  return { handler: console, refine: refine.router, routes: [...pages.routes, ...refine.routes] };
}
