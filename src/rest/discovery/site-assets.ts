/**
 * The files the human pages load: the site's stylesheet and script (site/ in the package), the
 * MiniSearch module the search box imports, the script that starts Swagger UI, and Swagger UI
 * itself (swagger-ui-dist). Porch's own files are served under fingerprinted names
 * (`/assets/site.3f9c1a2b4d.css`) and Swagger UI under its package version, so browsers may keep
 * them for a year without asking again: a new release changes the URL, not the bytes behind it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SITE_PATHS } from '../../operations/site-paths.js';
import { contentDigest } from './encoded-body.js';

/** Characters of the content digest in a fingerprinted name: enough that two releases never collide. */
const FINGERPRINT_LENGTH = 10;

export const JAVASCRIPT = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';

/** The two files of the swagger-ui-dist package the API reference needs. */
export const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': JAVASCRIPT,
  'swagger-ui.css': CSS,
};

export interface StaticAsset {
  url: string;
  contentType: string;
  body: string | Buffer;
}

export interface SiteAssets {
  stylesheet: StaticAsset;
  script: StaticAsset;
  searchEngine: StaticAsset;
  apiReferenceScript: StaticAsset;
  /** The site's and the console's icon, served at /favicon.svg and /favicon.ico. */
  favicon: StaticAsset;
  /** The swagger-ui-dist version, which names the folder its files are served from. */
  swaggerUiVersion: string;
  swaggerUiDir: string;
  /** A fingerprinted asset by its path; undefined for anything else. */
  find(path: string): StaticAsset | undefined;
}

/** `/assets/<stem>.<fingerprint>.<extension>` for these bytes. */
export function fingerprintedUrl(stem: string, extension: string, body: string | Buffer): string {
  return `${SITE_PATHS.assets}/${stem}.${contentDigest(body).slice(0, FINGERPRINT_LENGTH)}.${extension}`;
}

function asset(stem: string, extension: string, contentType: string, body: string | Buffer): StaticAsset {
  return { url: fingerprintedUrl(stem, extension, body), contentType, body };
}

/**
 * Starts Swagger UI on the API reference page; a file rather than inline script so the CSP can
 * forbid inline scripts. The search index and the docs link to the anchors of the page's
 * no-script version (`#talk-to-a-persona`), which Swagger UI does not draw: the page lists each
 * with its tag and operationId (`data-deep-links`), and this script turns such an address into
 * Swagger UI's deep link (`#/Personas/talkToPersona`) before Swagger UI reads it, so it opens
 * that operation and scrolls to it; and again when a link on the page changes only the fragment,
 * which Swagger UI does not watch.
 */
function apiReferenceScript(openApiUrl: string): string {
  return `window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  var deepLinks = JSON.parse(root.getAttribute('data-deep-links') || '{}');
  // The tag and operationId a no-script anchor names, or undefined for any other fragment.
  function named() {
    var anchor;
    try {
      anchor = decodeURIComponent(window.location.hash.slice(1));
    } catch {
      // A fragment that is no valid percent-encoding (#50%) names no anchor; thrown on, it kept
      // Swagger UI from starting and left the page blank.
      return undefined;
    }
    return Object.prototype.hasOwnProperty.call(deepLinks, anchor) ? deepLinks[anchor] : undefined;
  }
  function useDeepLink(parts) {
    history.replaceState(history.state, '', '#/' + parts.map(encodeURIComponent).join('/'));
  }
  var initial = named();
  if (initial) useDeepLink(initial);
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(openApiUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
  window.addEventListener('hashchange', function () {
    var parts = named();
    if (!parts) return;
    useDeepLink(parts);
    window.ui.layoutActions.parseDeepLinkHash(decodeURIComponent(window.location.hash));
    // Swagger UI scrolls to an operation only as it first draws it; this one is drawn already.
    // Its element id is the one Swagger UI gives it: whitespace as "_", CSS-escaped.
    function escaped(text) {
      return CSS.escape(text.trim().replace(/\\s/g, '_'));
    }
    var id = parts.length === 1 ? 'operations-tag-' + escaped(parts[0]) : escaped('operations-' + parts.join('-'));
    var target = document.getElementById(id);
    if (target) target.scrollIntoView();
  });
});
`;
}

/**
 * Reads the assets from the package (rootDir holds site/) and node_modules. `basePath` is the
 * public URL's path, which the browser puts before the OpenAPI document's site path when Swagger
 * UI fetches it (behind a proxy that strips `/porch`, `/openapi.json` is `/porch/openapi.json`).
 */
export function loadSiteAssets(rootDir: string, basePath = ''): SiteAssets {
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(file, 'utf8');
  // The source map comment would make browsers with devtools open ask for a file Porch does not serve.
  // The package exports its CommonJS build to require(); its ES module (what a browser imports) sits beside it.
  const minisearchModule = join(dirname(require.resolve('minisearch')), '..', 'es', 'index.js');
  const minisearch = read(minisearchModule).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  const swaggerUiPackage = require.resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(read(swaggerUiPackage)) as { version: string };
  const assets = {
    stylesheet: asset('site', 'css', CSS, read(join(rootDir, 'site/site.css'))),
    script: asset('site', 'js', JAVASCRIPT, read(join(rootDir, 'site/site.mjs'))),
    searchEngine: asset('minisearch', 'js', JAVASCRIPT, minisearch),
    apiReferenceScript: asset('api-reference', 'js', JAVASCRIPT, apiReferenceScript(`${basePath}${SITE_PATHS.openApiJson}`)),
    favicon: asset('favicon', 'svg', 'image/svg+xml', read(join(rootDir, 'site/favicon.svg'))),
  };
  const byUrl = new Map<string, StaticAsset>(Object.values(assets).map((entry) => [entry.url, entry]));
  return {
    ...assets,
    swaggerUiVersion: version,
    swaggerUiDir: dirname(swaggerUiPackage),
    find: (path) => byUrl.get(path),
  };
}

/** Where a Swagger UI file is served: under the package version, so it can be cached as immutable. */
export function swaggerUiUrl(version: string, file: string): string {
  return `${SITE_PATHS.assets}/swagger-ui/${version}/${file}`;
}
