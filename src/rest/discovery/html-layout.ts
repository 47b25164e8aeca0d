/**
 * The HTML shell of the human pages: a header with search, a sidebar of every page (grouped, the
 * current one marked), the content, previous/next links and a footer. The stylesheet and script
 * are fingerprinted files (site/ in the package), so a page makes no request outside Porch and
 * runs no inline script (the CSP allows only the site's own scripts).
 */
import { createRequire } from 'node:module';
import type { Marked, Tokens } from 'marked';
import { SITE_PATHS } from '../../operations/site-paths.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The text of a fragment of HTML that marked wrote: tags dropped, its five escapes undone. */
export function textOfHtml(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * GitHub's heading anchors (lower case, punctuation dropped, spaces to hyphens), so a link written
 * for the code host (`upgrade-and-backup.md#what-to-keep`) lands on the same heading here.
 */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export interface NavLink {
  title: string;
  path: string;
}

export interface NavGroup {
  title: string;
  links: readonly NavLink[];
}

/** What every page shares: the asset URLs and the sidebar. */
export interface SiteChrome {
  /**
   * The public URL's path ('' at the root, `/porch` behind a proxy that strips `/porch`), put
   * before every site path a page links to: the server sees `/docs`, the browser must ask for
   * `/porch/docs`. Links are built from it rather than relative to the page, because the 404 page
   * is served at any depth and the home page may be read without its trailing slash (`/porch`),
   * against which a relative link resolves outside the prefix.
   */
  basePath: string;
  stylesheetUrl: string;
  scriptUrl: string;
  searchIndexUrl: string;
  searchEngineUrl: string;
  groups: readonly NavGroup[];
}

export interface LayoutOptions {
  /** The page's own title; the document title adds the site's name. */
  title: string;
  /** The page's path, marked as current in the sidebar. */
  path: string;
  /** The page's Markdown twin, announced with rel="alternate" (none for the 404 page). */
  markdownPath?: string;
  body: string;
  /** Extra tags for <head> (the API reference's stylesheet). */
  head?: string;
  wide?: boolean;
  previous?: NavLink;
  next?: NavLink;
  chrome: SiteChrome;
}

/** "Quick start — Porch"; the home page's title is the site's own. */
export function documentTitle(title: string): string {
  return title === 'Porch' ? 'Porch — self-hosted prompt orchestration' : `${title} — Porch`;
}

function sidebar(groups: readonly NavGroup[], currentPath: string, basePath: string): string {
  const sections = groups.map((group, index) => {
    const id = `nav-group-${index + 1}`;
    const links = group.links.map(
      (link) =>
        `<li><a href="${escapeHtml(basePath + link.path)}"${link.path === currentPath ? ' aria-current="page"' : ''}>${escapeHtml(link.title)}</a></li>`,
    );
    return `<p class="nav-group" id="${id}">${escapeHtml(group.title)}</p>\n<ul aria-labelledby="${id}">\n${links.join('\n')}\n</ul>`;
  });
  return `<details class="sidebar" open>
<summary>Pages</summary>
<nav aria-label="Documentation">
${sections.join('\n')}
</nav>
</details>`;
}

function pager(previous: NavLink | undefined, next: NavLink | undefined, basePath: string): string {
  if (!previous && !next) return '';
  const link = (target: NavLink, rel: 'prev' | 'next') =>
    `<a class="${rel === 'prev' ? 'previous' : 'next'}" rel="${rel}" href="${escapeHtml(basePath + target.path)}"><small>${rel === 'prev' ? '← Previous' : 'Next →'}</small>${escapeHtml(target.title)}</a>`;
  return `<nav class="pager" aria-label="Previous and next page">
${previous ? link(previous, 'prev') : ''}
${next ? link(next, 'next') : ''}
</nav>`;
}

export function renderLayout({ title, path, markdownPath, body, head = '', wide = false, previous, next, chrome }: LayoutOptions): string {
  /** A site path as the browser must ask for it, escaped for an attribute. */
  const at = (sitePath: string) => escapeHtml(`${chrome.basePath}${sitePath}`);
  const footer = markdownPath
    ? `This page is also available as <a href="${at(markdownPath)}">Markdown</a> (or send <code>Accept: text/markdown</code>).`
    : `Every page is listed in the <a href="${at(SITE_PATHS.docs)}">documentation index</a> and in <a href="${at(SITE_PATHS.llmsTxt)}">llms.txt</a>.`;
  return `<!doctype html>
<html lang="en"${wide ? ' data-theme="light"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(documentTitle(title))}</title>
${markdownPath ? `<link rel="alternate" type="text/markdown" href="${at(markdownPath)}">\n` : ''}<link rel="api-catalog" href="${at(SITE_PATHS.apiCatalog)}">
<link rel="icon" type="image/svg+xml" href="${at(SITE_PATHS.favicon)}">
<link rel="stylesheet" href="${at(chrome.stylesheetUrl)}">
<script type="module" src="${at(chrome.scriptUrl)}"></script>
${head}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="top">
<a class="brand" href="${at(SITE_PATHS.home)}">Porch</a>
<nav aria-label="Site">
<ul>
<li><a href="${at(SITE_PATHS.docs)}">Docs</a></li>
<li><a href="${at(SITE_PATHS.apiReference)}">API reference</a></li>
<li><a href="${at(SITE_PATHS.openApiJson)}">OpenAPI</a></li>
<li><a href="${at(SITE_PATHS.llmsTxt)}">llms.txt</a></li>
</ul>
</nav>
<form class="search" role="search" hidden data-index="${at(chrome.searchIndexUrl)}" data-engine="${at(chrome.searchEngineUrl)}">
<label class="visually-hidden" for="search-input">Search the docs</label>
<input id="search-input" type="search" placeholder="Search the docs (press /)" autocomplete="off" spellcheck="false" aria-controls="search-results">
<div id="search-results" class="search-results" hidden></div>
<p id="search-status" class="visually-hidden" role="status"></p>
</form>
</header>
<div class="shell">
${sidebar(chrome.groups, path, chrome.basePath)}
<main id="content" class="${wide ? 'wide' : 'prose'}">
${body}
${pager(previous, next, chrome.basePath)}
</main>
</div>
<footer>${footer}</footer>
</body>
</html>
`;
}

/** Code spans in tables at least this long get line-break opportunities. */
const LONG_CODE_CHARACTERS = 20;

/**
 * Long names in table cells (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, URLs) would set
 * their column's narrowest width and push a table far past a page; <wbr> after each separator
 * lets them wrap there (and only there: copying the text is unchanged).
 */
function breakLongCodeInTables(html: string): string {
  return html.replace(/<table>[\s\S]*?<\/table>/g, (table) =>
    table.replace(/<code>([^<]+)<\/code>/g, (code, text: string) =>
      text.length < LONG_CODE_CHARACTERS ? code : `<code>${text.replace(/([_/.:=@,|-])(?=[^\s])/g, '$1<wbr>')}</code>`,
    ),
  );
}

/** A path-absolute reference (`/docs/runs`), not a network-path one (`//host/x`). */
const PATH_ABSOLUTE = /^\/(?!\/)/;

/**
 * Markdown → HTML for pages written in the repo. Links between docs are written as relative
 * `.md` files (so they work on a code host too) and become the site's page URLs here
 * (`pageForFile` answers with the URL to link to); links written from the site's root
 * (`/openapi.json`) get `basePath` in front; headings get GitHub's anchors.
 */
export function createMarkdownRenderer(pageForFile: (file: string) => string | undefined, basePath = ''): (markdown: string) => string {
  // marked loads (from its CommonJS build) when the first page renders, not at start-up.
  let marked: Marked | undefined;
  // Anchors already used in the document being rendered (a repeated heading gets -1, -2, ...).
  let usedSlugs = new Map<string, number>();
  const uniqueSlug = (text: string): string => {
    const slug = headingSlug(text);
    const seen = usedSlugs.get(slug);
    usedSlugs.set(slug, (seen ?? -1) + 1);
    return seen === undefined ? slug : `${slug}-${seen + 1}`;
  };
  const load = (): Marked => {
    const { Marked: MarkedClass } = createRequire(import.meta.url)('marked') as typeof import('marked');
    return new MarkedClass({
      gfm: true,
      walkTokens(token) {
        if (token.type !== 'link' && token.type !== 'image') return;
        const match = /^(?:\.\/)?([a-z0-9-]+\.md)(#.*)?$/.exec(token.href);
        const page = match?.[1] ? pageForFile(match[1]) : undefined;
        if (page) token.href = `${page}${match?.[2] ?? ''}`;
        else if (PATH_ABSOLUTE.test(token.href)) token.href = `${basePath}${token.href}`;
      },
      renderer: {
        // A relative link still relative here names a file of the repository (`../examples/
        // bundle.yaml`), which the site does not serve: its text stays, without a dead link.
        link(this: { parser: { parseInline(tokens: Tokens.Link['tokens']): string } }, { href, tokens }: Tokens.Link) {
          return /^(?:[a-z][a-z0-9+.-]*:|[/#?])/i.test(href) ? false : this.parser.parseInline(tokens);
        },
        heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, { tokens, depth }: Tokens.Heading) {
          const inner = this.parser.parseInline(tokens);
          return `<h${depth} id="${escapeHtml(uniqueSlug(textOfHtml(inner)))}">${inner}</h${depth}>\n`;
        },
      },
      hooks: {
        // Code blocks and tables scroll sideways on narrow screens, tables inside a wrapper so the
        // page itself never does; tabindex lets a keyboard user reach and scroll them too (WCAG
        // 2.1.1, axe's scrollable-region-focusable). Their text is escaped, so the tags matched
        // here are only the ones marked wrote.
        postprocess: (html) =>
          breakLongCodeInTables(html)
            .replaceAll('<pre>', '<pre tabindex="0">')
            .replaceAll('<table>', '<div class="table-wrap" tabindex="0" role="region" aria-label="Table (scrolls sideways)">\n<table>')
            .replaceAll('</table>', '</table>\n</div>'),
      },
    });
  };
  return (markdown) => {
    usedSlugs = new Map();
    return (marked ??= load()).parse(markdown, { async: false });
  };
}
