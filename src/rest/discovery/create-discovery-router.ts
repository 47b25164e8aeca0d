/**
 * Everything a client that knows only the host can find: the OpenAPI document (JSON and YAML),
 * the RFC 9727 API catalog, the API root, the Agent Skills index and files, llms.txt, the human
 * pages with Markdown negotiation, the Markdown gateway and the assets of the API reference.
 * Documents are built on first use and kept: they depend only on the code, the repo's files and
 * the configured site URL, none of which change while the process runs.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { stringifyYamlForAnyParser } from '../../core/yaml.js';
import type { Core } from '../../core/core.js';
import { PorchError } from '../../core/errors.js';
import { exposedOn, type Operation } from '../../operations/operation.js';
import { loadAgentSkills, type AgentSkillsCatalog, type ServedFile } from './agent-skills.js';
import { apiCatalogLinkHeader, API_CATALOG_MEDIA_TYPE, buildApiCatalog } from './api-catalog.js';
import { buildLlmsTxt } from './llms-txt.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { PACKAGE_ROOT } from './package-root.js';
import { buildSitePages, type SitePage, type SitePages } from './site-pages.js';
import { SITE_PATHS } from '../../operations/site-paths.js';

/** How long caches may keep discovery documents: they change only with a new release. */
const DOCUMENT_MAX_AGE_SECONDS = 300;
/** Skill files and archives carry digests and ETags, so clients can keep them longer. */
const SKILL_FILE_MAX_AGE_SECONDS = 3600;
/** The API reference's script bundle is versioned with the package. */
const ASSET_MAX_AGE_SECONDS = 86_400;

/** The two files of the swagger-ui-dist package the API reference needs, served from node_modules. */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** Starts Swagger UI on the API reference page; a file rather than inline script so a strict CSP can allow it. */
const API_REFERENCE_SCRIPT = `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: '${SITE_PATHS.openApiJson}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

export interface DiscoveryRouterOptions {
  core: Core;
  operations: readonly Operation[];
  /** Where skills/, docs/ and .well-known/ are; the package root unless a test says otherwise. */
  rootDir?: string;
}

interface SiteDocuments {
  openApi: OpenApiDocument;
  openApiJson: string;
  openApiYaml: string;
  catalogJson: string;
  skills: AgentSkillsCatalog;
  pages: SitePages;
  llmsTxt: string;
}

function lazy<Value>(build: () => Value): () => Value {
  let value: Value | undefined;
  return () => (value ??= build());
}

/** HTML or Markdown on the same URL, chosen by Accept (HTML when both are equally acceptable). */
function sendPage(req: Request, res: Response, page: SitePage, forceMarkdown: boolean, extraLinks: string[]): void {
  res.setHeader('Vary', 'Accept, Accept-Encoding');
  res.setHeader('Cache-Control', `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`);
  const markdown = forceMarkdown || req.accepts(['text/html', 'text/markdown']) === 'text/markdown';
  const links = [...extraLinks];
  if (markdown) {
    res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
    res.setHeader('x-markdown-tokens', String(page.markdownTokens));
    links.push(`<${page.path}>; rel="canonical"`);
  } else {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    links.push(`<${page.markdownPath}>; rel="alternate"; type="text/markdown"`);
  }
  res.setHeader('Link', links.join(', '));
  res.send(markdown ? page.markdown : page.html);
}

function sendServedFile(req: Request, res: Response, file: ServedFile, maxAgeSeconds: number): void {
  const etag = `"${file.digest}"`;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  res.setHeader('ETag', etag);
  res.setHeader('Access-Control-Allow-Origin', '*');
  const ifNoneMatch = req.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) {
    res.status(304).end();
    return;
  }
  res.send(Buffer.from(file.bytes));
}

function sendDocument(res: Response, contentType: string, body: string, extra: Record<string, string> = {}): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`);
  // Public, credential-free documents: browser-based tools on other origins may read them.
  res.setHeader('Access-Control-Allow-Origin', '*');
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  // A Buffer, because Express appends "; charset=utf-8" to the type of a string body, which
  // would change the catalog's profiled media type.
  res.send(Buffer.from(body, 'utf8'));
}

export function createDiscoveryRouter({ core, operations, rootDir = PACKAGE_ROOT }: DiscoveryRouterOptions): Router {
  const siteUrl = core.settings.siteUrl;
  const catalogLink = apiCatalogLinkHeader(siteUrl);

  const openApi = lazy(() => {
    const document = buildOpenApiDocument(exposedOn(operations, 'discovery'), { siteUrl });
    return { document, json: `${JSON.stringify(document, null, 2)}\n`, yaml: stringifyYamlForAnyParser(document) };
  });
  const skills = lazy(() => loadAgentSkills(rootDir));
  const pages = lazy(() => buildSitePages({ rootDir, document: openApi().document, skills: skills().index }));
  const site = lazy(
    (): SiteDocuments => ({
      openApi: openApi().document,
      openApiJson: openApi().json,
      openApiYaml: openApi().yaml,
      catalogJson: `${JSON.stringify(buildApiCatalog(siteUrl), null, 2)}\n`,
      skills: skills(),
      pages: pages(),
      llmsTxt: buildLlmsTxt(siteUrl, pages(), skills().index),
    }),
  );
  const swaggerUiDir = lazy(() => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));

  const router = Router();
  const get = (path: string, handler: RequestHandler) => router.get(path, handler);

  get(SITE_PATHS.openApiJson, (_req, res) => sendDocument(res, 'application/json', site().openApiJson));
  get(SITE_PATHS.openApiYaml, (_req, res) => sendDocument(res, 'application/yaml; charset=utf-8', site().openApiYaml));
  get(SITE_PATHS.apiCatalog, (_req, res) => sendDocument(res, API_CATALOG_MEDIA_TYPE, site().catalogJson, { Link: catalogLink }));
  get(SITE_PATHS.llmsTxt, (_req, res) => sendDocument(res, 'text/plain; charset=utf-8', site().llmsTxt));

  // Agent Skills: the index, each skill's files and the archives; anything else is a 404.
  router.use(SITE_PATHS.agentSkillsBase, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = SITE_PATHS.agentSkillsBase + req.path;
    const file = site().skills.files.get(path);
    if (!file) return next(new PorchError('NOT_FOUND', `No Agent Skills file at ${path}.`));
    sendServedFile(req, res, file, path === SITE_PATHS.agentSkillsIndex ? DOCUMENT_MAX_AGE_SECONDS : SKILL_FILE_MAX_AGE_SECONDS);
  });

  get(`${SITE_PATHS.assets}/swagger-ui/:file`, (req, res, next) => {
    const file = String(req.params.file);
    const contentType = SWAGGER_UI_FILES[file];
    if (!contentType) return next(new PorchError('NOT_FOUND', `No asset ${req.path}.`));
    res.setHeader('Cache-Control', `public, max-age=${ASSET_MAX_AGE_SECONDS}`);
    res.sendFile(join(swaggerUiDir(), file), { headers: { 'Content-Type': contentType } }, (err) => {
      if (err) next(err);
    });
  });
  get(`${SITE_PATHS.assets}/api-reference.js`, (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`);
    res.type('text/javascript; charset=utf-8').send(API_REFERENCE_SCRIPT);
  });

  // The Markdown gateway: the Markdown of an allowlisted page, looked up by path, never fetched.
  get(SITE_PATHS.markdownGateway, (req, res, next) => {
    const path = req.query.path;
    if (typeof path !== 'string' || path.length === 0) {
      return next(new PorchError('VALIDATION_ERROR', 'Invalid request: query.path: send the path of a page, e.g. ?path=/docs/quick-start.'));
    }
    const page = path.startsWith('/') ? site().pages.find(path) : undefined;
    if (!page) return next(new PorchError('NOT_FOUND', 'No Markdown page for that path; see /llms.txt for the pages there are.'));
    sendPage(req, res, page, true, []);
  });

  // Human pages: every allowlisted path and its .md twin, negotiated on Accept.
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // Cheap check first, so unknown API paths never pay for building the pages.
    if (req.path !== SITE_PATHS.home && req.path !== '/index.md' && !req.path.startsWith(SITE_PATHS.docs)) return next();
    const page = pages().find(req.path);
    if (!page) return next();
    const forceMarkdown = req.path.endsWith('.md');
    sendPage(req, res, page, forceMarkdown, page.path === SITE_PATHS.home ? [catalogLink] : []);
  });

  return router;
}
