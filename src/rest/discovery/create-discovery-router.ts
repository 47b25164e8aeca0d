/**
 * Everything a client that knows only the host can find: the OpenAPI document (JSON and YAML),
 * the RFC 9727 API catalog, the API root, the Agent Skills index and files, llms.txt, the human
 * pages with Markdown negotiation, the Markdown gateway, the pages' assets and the HTML 404 page.
 * Documents are built on first use and kept: they depend only on the code, the repo's files and
 * the configured site URL, none of which change while the process runs. So is each one's
 * compressed form (brotli and gzip, negotiated on Accept-Encoding): made once, sent many times.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { stringifyYamlForAnyParser } from '../../core/yaml.js';
import type { Core } from '../../core/core.js';
import { PorchError } from '../../core/errors.js';
import { exposedOn, type Operation } from '../../operations/operation.js';
import { loadAgentSkills, type AgentSkillsCatalog, type ServedFile } from './agent-skills.js';
import { apiCatalogLinkHeader, API_CATALOG_MEDIA_TYPE, buildApiCatalog } from './api-catalog.js';
import { addVary, encodedOnce, ifNoneMatchHolds, sendEncoded, type EncodedBody } from './encoded-body.js';
import { buildLlmsTxt } from './llms-txt.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { PACKAGE_ROOT } from './package-root.js';
import { loadSiteAssets, SWAGGER_UI_FILES, type StaticAsset } from './site-assets.js';
import { basePathOf, buildSitePages, withoutTrailingSlashes, type SitePage, type SitePages } from './site-pages.js';
import { SITE_PATHS } from '../../operations/site-paths.js';

/** How long caches may keep discovery documents: they change only with a new release. */
const DOCUMENT_MAX_AGE_SECONDS = 300;
/**
 * Pages are revalidated on every use (a 304 costs a few bytes), so a browser never shows a page
 * that names assets of a release the server has left behind.
 */
const PAGE_CACHE_CONTROL = 'public, no-cache';
/** Fingerprinted and versioned assets never change behind their URL. */
const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The unversioned Swagger UI URLs of earlier releases: kept working, cached briefly. */
const LEGACY_ASSET_CACHE_CONTROL = `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`;
const DOCUMENT_CACHE_CONTROL = `public, max-age=${DOCUMENT_MAX_AGE_SECONDS}`;

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

/** A page's two representations, each compressed on first use. */
interface EncodedPage {
  html: () => Promise<EncodedBody>;
  markdown: () => Promise<EncodedBody>;
}

function encodedPage(page: SitePage): EncodedPage {
  return {
    html: encodedOnce(() => ({ body: page.html, contentType: 'text/html; charset=utf-8' })),
    markdown: encodedOnce(() => ({ body: page.markdown, contentType: 'text/markdown; charset=utf-8' })),
  };
}

const MARKDOWN_OFFER = 'text/markdown; charset=utf-8';
/** The Markdown twin of a page: `/index.md`, `/docs/quick-start.md`. */
const MARKDOWN_TWIN = /^\/(?:index|docs\/[a-z0-9-]+)\.md$/;

/** HTML or Markdown on the same URL, chosen by Accept (HTML when both are equally acceptable). */
async function sendPage(
  req: Request,
  res: Response,
  page: SitePage,
  encoded: EncodedPage,
  forceMarkdown: boolean,
  extraLinks: string[],
  basePath: string,
): Promise<void> {
  res.setHeader('Vary', 'Accept, Accept-Encoding');
  // Offered with its charset, so `Accept: text/markdown; charset=utf-8` matches it as plain
  // `text/markdown` does (regression: a parameter in Accept fell back to HTML).
  const markdown = forceMarkdown || req.accepts(['text/html', MARKDOWN_OFFER]) === MARKDOWN_OFFER;
  const links = [...extraLinks];
  if (markdown) {
    // The Markdown is for agents, which may run in a browser on another origin (as they read
    // llms.txt, which points here); the pages are public and credential-free.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('x-markdown-tokens', String(page.markdownTokens));
    links.push(`<${basePath}${page.path}>; rel="canonical"`);
  } else {
    links.push(`<${basePath}${page.markdownPath}>; rel="alternate"; type="text/markdown"`);
  }
  res.setHeader('Link', links.join(', '));
  sendEncoded(req, res, await (markdown ? encoded.markdown() : encoded.html()), { cacheControl: PAGE_CACHE_CONTROL });
}

/**
 * Agent Skills files are sent as they are, never compressed: their strong ETag is the digest the
 * index publishes for the served bytes, which a content coding would have to change.
 */
function sendServedFile(req: Request, res: Response, file: ServedFile, maxAgeSeconds: number): void {
  const etag = `"${file.digest}"`;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  res.setHeader('ETag', etag);
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (ifNoneMatchHolds(req.headers['if-none-match'], [etag])) {
    res.status(304).end();
    return;
  }
  res.send(Buffer.from(file.bytes));
}

/** What every document and page answers; anything else is 405 with these in Allow. */
const PUBLIC_DOCUMENT_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/**
 * The CORS preflight of a public, credential-free document: a browser-based tool on another origin
 * that sends a header of its own (`MCP-Protocol-Version`, as the MCP SDK does) asks first, and a
 * 404 there blocked the GET the document answers with `Access-Control-Allow-Origin: *`.
 */
function answerPreflight(req: Request, res: Response): void {
  res.setHeader('Allow', PUBLIC_DOCUMENT_METHODS.join(', '));
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  if (typeof asked === 'string') res.setHeader('Access-Control-Allow-Headers', asked);
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
}

/** A discovery document: public and credential-free, so browser-based tools on other origins may read it. */
async function sendDocument(req: Request, res: Response, body: () => Promise<EncodedBody>, extra: Record<string, string> = {}): Promise<void> {
  res.setHeader('Access-Control-Allow-Origin', '*');
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  sendEncoded(req, res, await body(), { cacheControl: DOCUMENT_CACHE_CONTROL });
}

/** Whether a 404 for this request depends on its Accept header: a site path read with GET or HEAD. */
function negotiatesNotFound(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = req.path;
  // The API, MCP and the machine-readable trees keep their JSON error envelope whatever the client accepts.
  return !(path.startsWith('/api/') || path === '/api' || path.startsWith('/.well-known/'));
}

/** Whether a request for a path the site does not have should get the HTML 404 page rather than the JSON error. */
function wantsHtmlNotFound(req: Request): boolean {
  // Browsers name text/html first; curl's */* and API clients' application/json get the envelope.
  return negotiatesNotFound(req) && req.accepts(['application/json', 'text/html']) === 'text/html';
}

export function createDiscoveryRouter({ core, operations, rootDir = PACKAGE_ROOT }: DiscoveryRouterOptions): Router {
  const siteUrl = core.settings.siteUrl;
  const basePath = basePathOf(siteUrl);
  const catalogLink = apiCatalogLinkHeader(siteUrl);

  const openApi = lazy(() => {
    const document = buildOpenApiDocument(exposedOn(operations, 'discovery'), { siteUrl });
    // Compact: indented, the document was twice the size, for tools that parse it anyway; people
    // read the API reference, rendered from the same document.
    return { document, json: `${JSON.stringify(document)}\n`, yaml: stringifyYamlForAnyParser(document) };
  });
  const skills = lazy(() => loadAgentSkills(rootDir));
  const assets = lazy(() => loadSiteAssets(rootDir, basePath));
  const pages = lazy(() => buildSitePages({ rootDir, basePath, document: openApi().document, skills: skills().index, assets: assets() }));
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
  const encodedDocuments = {
    openApiJson: encodedOnce(() => ({ body: site().openApiJson, contentType: 'application/json' })),
    openApiYaml: encodedOnce(() => ({ body: site().openApiYaml, contentType: 'application/yaml; charset=utf-8' })),
    catalog: encodedOnce(() => ({ body: site().catalogJson, contentType: API_CATALOG_MEDIA_TYPE })),
    llmsTxt: encodedOnce(() => ({ body: site().llmsTxt, contentType: 'text/plain; charset=utf-8' })),
    searchIndex: encodedOnce(() => ({ body: pages().searchIndex.json, contentType: 'application/json' })),
    notFound: encodedOnce(() => ({ body: pages().notFoundHtml, contentType: 'text/html; charset=utf-8' })),
  };
  const encodedPages = new Map<SitePage, EncodedPage>();
  const encodedPageOf = (page: SitePage): EncodedPage => {
    let encoded = encodedPages.get(page);
    if (!encoded) {
      encoded = encodedPage(page);
      encodedPages.set(page, encoded);
    }
    return encoded;
  };
  const encodedAssets = new Map<StaticAsset, () => Promise<EncodedBody>>();
  const encodedAssetOf = (asset: StaticAsset) => {
    let encoded = encodedAssets.get(asset);
    if (!encoded) {
      encoded = encodedOnce(() => asset);
      encodedAssets.set(asset, encoded);
    }
    return encoded;
  };
  const swaggerUiFiles = new Map(
    Object.entries(SWAGGER_UI_FILES).map(([file, contentType]) => [
      file,
      encodedOnce(() => ({ body: readFileSync(join(assets().swaggerUiDir, file)), contentType })),
    ]),
  );

  const router = Router();
  const get = (path: string, handler: RequestHandler) => router.get(path, handler);

  get(SITE_PATHS.openApiJson, (req, res) => sendDocument(req, res, encodedDocuments.openApiJson));
  get(SITE_PATHS.openApiYaml, (req, res) => sendDocument(req, res, encodedDocuments.openApiYaml));
  get(SITE_PATHS.apiCatalog, (req, res) => sendDocument(req, res, encodedDocuments.catalog, { Link: catalogLink }));
  get(SITE_PATHS.llmsTxt, (req, res) => sendDocument(req, res, encodedDocuments.llmsTxt));
  router.options([SITE_PATHS.openApiJson, SITE_PATHS.openApiYaml, SITE_PATHS.apiCatalog, SITE_PATHS.llmsTxt], answerPreflight);

  // Agent Skills: the index, each skill's files and the archives; anything else is a 404.
  router.use(SITE_PATHS.agentSkillsBase, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
    const path = SITE_PATHS.agentSkillsBase + req.path;
    const file = site().skills.files.get(path);
    if (!file) return next(new PorchError('NOT_FOUND', `No Agent Skills file at ${path}.`));
    if (req.method === 'OPTIONS') return answerPreflight(req, res);
    // Skill files sit at URLs that do not change between releases, while the index names their
    // digests: a file cached longer than the index would fail a client's digest check after an
    // upgrade (agent-skills discovery: clients must respect cache headers and verify digests).
    sendServedFile(req, res, file, DOCUMENT_MAX_AGE_SECONDS);
  });

  // Swagger UI under its package version (immutable), and under the unversioned URLs of earlier releases.
  get(`${SITE_PATHS.assets}/swagger-ui/:version/:file`, async (req, res, next) => {
    const file = swaggerUiFiles.get(String(req.params.file));
    // Unknown files fall through to the 404 (an HTML page for a browser, the envelope otherwise).
    if (!file || req.params.version !== assets().swaggerUiVersion) return next();
    sendEncoded(req, res, await file(), { cacheControl: IMMUTABLE_CACHE_CONTROL });
  });
  get(`${SITE_PATHS.assets}/swagger-ui/:file`, async (req, res, next) => {
    const file = swaggerUiFiles.get(String(req.params.file));
    if (!file) return next();
    sendEncoded(req, res, await file(), { cacheControl: LEGACY_ASSET_CACHE_CONTROL });
  });
  // The icon at the fixed addresses browsers and crawlers ask for (an SVG, which every current
  // browser takes at either; pages name /favicon.svg).
  for (const path of [SITE_PATHS.favicon, '/favicon.ico']) {
    get(path, async (req, res) => sendEncoded(req, res, await encodedAssetOf(assets().favicon)(), { cacheControl: DOCUMENT_CACHE_CONTROL }));
  }
  // The site's own fingerprinted files and the search index.
  get(`${SITE_PATHS.assets}/:file`, async (req, res, next) => {
    if (req.path === pages().searchIndex.url) {
      sendEncoded(req, res, await encodedDocuments.searchIndex(), { cacheControl: IMMUTABLE_CACHE_CONTROL });
      return;
    }
    const asset = assets().find(req.path);
    if (!asset) return next();
    sendEncoded(req, res, await encodedAssetOf(asset)(), { cacheControl: IMMUTABLE_CACHE_CONTROL });
  });

  router.options([SITE_PATHS.markdownGateway, MARKDOWN_TWIN], answerPreflight);

  // The Markdown gateway: the Markdown of an allowlisted page, looked up by path, never fetched.
  get(SITE_PATHS.markdownGateway, (req, res, next) => {
    const path = req.query.path;
    if (typeof path !== 'string' || path.length === 0) {
      return next(new PorchError('VALIDATION_ERROR', 'Invalid request: query.path: send the path of a page, e.g. ?path=/docs/quick-start.'));
    }
    const page = path.startsWith('/') ? site().pages.find(path) : undefined;
    if (!page) return next(new PorchError('NOT_FOUND', 'No Markdown page for that path; see /llms.txt for the pages there are.'));
    return sendPage(req, res, page, encodedPageOf(page), true, [], basePath);
  });

  // Human pages: every allowlisted path and its .md twin, negotiated on Accept.
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
    // Cheap check first, so unknown API paths never pay for building the pages.
    if (req.path !== SITE_PATHS.home && req.path !== '/index.md' && !req.path.startsWith(SITE_PATHS.docs)) return next();
    const page = pages().find(req.path);
    if (!page) return next();
    // As the .md twins answer it: the Markdown a page negotiates is for agents on any origin too
    // (regression: OPTIONS on /docs/errors was 404 while PUT there was 405).
    if (req.method === 'OPTIONS') return answerPreflight(req, res);
    // One address per page: relative links in it resolve against that one (regression: from
    // /docs/quick-start/, a link to configuration.md named /docs/quick-start/configuration.md).
    // The public URL's path goes first: behind a proxy that strips /porch, /porch/docs/ must
    // lead to /porch/docs (regression: it led to /docs, outside the proxy).
    if (req.path.length > 1 && req.path.endsWith('/')) {
      const query = req.originalUrl.indexOf('?');
      res.redirect(301, `${basePath}${withoutTrailingSlashes(req.path)}${query === -1 ? '' : req.originalUrl.slice(query)}`);
      return;
    }
    const forceMarkdown = req.path.endsWith('.md');
    return sendPage(req, res, page, encodedPageOf(page), forceMarkdown, page.path === SITE_PATHS.home ? [catalogLink] : [], basePath);
  });

  // A document or page called with a method it does not take is 405 with Allow, as the API's paths
  // are, not the 404 a path nobody serves gets.
  const documentPaths = new Set<string>([
    SITE_PATHS.openApiJson,
    SITE_PATHS.openApiYaml,
    SITE_PATHS.apiCatalog,
    SITE_PATHS.llmsTxt,
    SITE_PATHS.markdownGateway,
  ]);
  router.use((req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const crossOrigin =
      documentPaths.has(req.path) || MARKDOWN_TWIN.test(req.path) || (req.path.startsWith(SITE_PATHS.agentSkillsBase) && site().skills.files.has(req.path));
    const isPage = !crossOrigin && (req.path === SITE_PATHS.home || req.path.startsWith(SITE_PATHS.docs)) && pages().find(req.path) !== undefined;
    if (!crossOrigin && !isPage) return next();
    next(new PorchError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}.`, { allow: PUBLIC_DOCUMENT_METHODS }));
  });

  // The HTML 404 page, for a browser asking for a site path nobody answered: this router is the
  // last door before the JSON 404, so everything mounted before it (MCP, the console) has had its turn.
  router.use(async (req, res, next) => {
    // Either answer depends on Accept, the JSON one too: a shared cache must not hand it to a browser.
    if (negotiatesNotFound(req)) addVary(res, 'Accept');
    if (!wantsHtmlNotFound(req)) return next();
    sendEncoded(req, res, await encodedDocuments.notFound(), { cacheControl: 'no-store', status: 404 });
  });

  return router;
}
