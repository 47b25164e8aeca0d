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
import { type ConsoleDependencies, createPageRegistrar, type PageRegistrar } from './console-pages.js';
import { registerApiAccessPages } from './pages/api-access.js';
import { registerOrganisationPages } from './pages/organisation.js';
import { registerOverviewPage } from './pages/overview.js';
import { registerSessionPages } from './pages/sessions.js';
import { registerSignInPages } from './pages/sign-in.js';
import { cookieNamesFor, createConsoleCookies } from './session.js';

/** Forms are small; a playground input or a workflow's YAML is the largest thing a page sends. */
const FORM_BODY_LIMIT = '1mb';

export interface ConsoleDoor {
  /** Mounted at CONSOLE_PATHS.root. */
  handler: RequestHandler;
}

function consoleRouter(basePath: string, deps: ConsoleDependencies, register: (pages: PageRegistrar) => void): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT, parameterLimit: 2_000 }));
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
  // A body the parser refused (too large, malformed) or a fault in a page: an HTML answer, never the API's JSON.
  const failed: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) return next(err);
    pages.fail(req, res, null, '', err);
  };
  router.use(notFound);
  router.use(failed);
  return router;
}

export function createConsoleDoor({ core, operations }: { core: Core; operations: readonly Operation[] }): ConsoleDoor {
  const assets = createConsoleAssets();
  const cookies = createConsoleCookies(core, cookieNamesFor(core.settings.siteUrl));
  const deps: ConsoleDependencies = { core, operations, assets, cookies };
  const sessions = core.consoleSessions;

  const console = Router();
  console.use(assets.handler);
  console.use(
    consoleRouter(CONSOLE_PATHS.root, deps, (pages) => {
      registerSignInPages(pages, cookies, sessions);
      registerOverviewPage(pages);
      registerApiAccessPages(pages);
      registerSessionPages(pages, sessions);
      registerOrganisationPages(pages);
    }),
  );
  return { handler: console };
}
