/** The HTML shell of the human pages: one small stylesheet inline, no external requests. */
import { createRequire } from 'node:module';
import type { Marked } from 'marked';
import { SITE_PATHS } from '../../operations/site-paths.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const STYLE = `
:root { color-scheme: light dark; --accent: light-dark(#2f6f4f, #8fd4ad); --code-background: light-dark(#f1f1f1, #262626); }
body { font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: Canvas; color: CanvasText; }
/* Swagger UI (the wide API reference page) has no dark theme: its dark text needs a light page. */
:root:has(main.wide) { color-scheme: light; }
header { border-bottom: 1px solid #8884; padding: .75rem 1.5rem; display: flex; gap: 1.25rem; align-items: baseline; flex-wrap: wrap; }
header a { text-decoration: none; } header .brand { font-weight: 700; font-size: 1.15rem; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
main.wide { max-width: none; padding: 0; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; }
p code, li code { overflow-wrap: anywhere; }
pre { background: var(--code-background); padding: .75rem 1rem; overflow-x: auto; border-radius: 6px; }
table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
th, td { border: 1px solid #8884; padding: .3rem .55rem; text-align: left; vertical-align: top; }
blockquote { margin-left: 0; padding-left: 1rem; border-left: 4px solid var(--accent); }
footer { border-top: 1px solid #8884; padding: 1rem 1.5rem; font-size: .9rem; }
`;

export interface LayoutOptions {
  title: string;
  /** The page's Markdown twin, announced with rel="alternate". */
  markdownPath: string;
  body: string;
  /** Extra tags for <head> (the API reference's stylesheet). */
  head?: string;
  wide?: boolean;
}

export function renderLayout({ title, markdownPath, body, head = '', wide = false }: LayoutOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Porch</title>
<link rel="alternate" type="text/markdown" href="${escapeHtml(markdownPath)}">
<link rel="api-catalog" href="${SITE_PATHS.apiCatalog}">
<style>${STYLE}</style>
${head}
</head>
<body>
<header>
<a class="brand" href="${SITE_PATHS.home}">Porch</a>
<a href="${SITE_PATHS.docs}">Docs</a>
<a href="${SITE_PATHS.apiReference}">API reference</a>
<a href="${SITE_PATHS.openApiJson}">OpenAPI</a>
<a href="${SITE_PATHS.llmsTxt}">llms.txt</a>
</header>
<main${wide ? ' class="wide"' : ''}>
${body}
</main>
<footer>This page is also available as <a href="${escapeHtml(markdownPath)}">Markdown</a> (or send <code>Accept: text/markdown</code>).</footer>
</body>
</html>
`;
}

/**
 * Markdown → HTML for pages written in the repo. Links between docs are written as relative
 * `.md` files (so they work on a code host too) and become the site's page URLs here.
 */
export function createMarkdownRenderer(pageForFile: (file: string) => string | undefined): (markdown: string) => string {
  // marked loads (from its CommonJS build) when the first page renders, not at start-up.
  let marked: Marked | undefined;
  const load = (): Marked => {
    const { Marked: MarkedClass } = createRequire(import.meta.url)('marked') as typeof import('marked');
    return new MarkedClass({
      gfm: true,
      walkTokens(token) {
        if (token.type !== 'link') return;
        const match = /^(?:\.\/)?([a-z0-9-]+\.md)(#.*)?$/.exec(token.href);
        const page = match?.[1] ? pageForFile(match[1]) : undefined;
        if (page) token.href = `${page}${match?.[2] ?? ''}`;
      },
      hooks: {
        // Code blocks and tables scroll sideways on narrow screens; tabindex lets a keyboard user
        // reach and scroll them too (WCAG 2.1.1, axe's scrollable-region-focusable). Their text is
        // escaped, so the tags matched here are only the ones marked wrote.
        postprocess: (html) => html.replaceAll('<pre>', '<pre tabindex="0">').replaceAll('<table>', '<table tabindex="0">'),
      },
    });
  };
  return (markdown) => (marked ??= load()).parse(markdown, { async: false });
}
