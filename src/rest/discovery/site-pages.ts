/**
 * The allowlisted human pages: the home page, the docs written in docs/*.md, the docs index and
 * the API reference. Each exists as Markdown (what an LLM asks for) and HTML (what a browser
 * gets); nothing outside this list is ever served as a page or through the Markdown gateway.
 * Built with them: the search index the pages' search box loads, and the HTML 404 page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { countTextTokens } from '../../core/ai/index.js';
import type { AgentSkillsIndex } from './agent-skills.js';
import { renderApiReferenceMarkdown, type ReferenceHeading } from './api-reference-markdown.js';
import { createMarkdownRenderer, escapeHtml, renderLayout, textOfHtml, type NavGroup, type NavLink, type SiteChrome } from './html-layout.js';
import type { OpenApiDocument } from './openapi.js';
import { fingerprintedUrl, swaggerUiUrl, type SiteAssets } from './site-assets.js';
import { CONSOLE_PATHS, SITE_PATHS } from '../../operations/site-paths.js';

export type DocGroup = 'Start' | 'Use the API' | 'Author' | 'Operate' | 'Reference';

/** The sidebar's groups, in order; the API reference joins "Reference". */
export const DOC_GROUPS: readonly DocGroup[] = ['Start', 'Use the API', 'Author', 'Operate', 'Reference'];

export interface DocSource {
  slug: string;
  file: string;
  title: string;
  /** One line for the docs index and llms.txt. */
  summary: string;
  /** The sidebar group it is listed under. */
  group: DocGroup;
  /** Background reading: listed under llms.txt's "Optional" section. */
  optional?: boolean;
  /**
   * Words a reader may search for that the page itself does not use (its text says "roll back",
   * a reader types "rollback"): the search index holds them with the page's introduction.
   */
  searchKeywords?: readonly string[];
}

/** The docs pages, in reading order (group by group). A file that does not exist (yet) is simply not served. */
export const DOC_SOURCES: readonly DocSource[] = [
  {
    slug: 'quick-start',
    file: 'docs/quick-start.md',
    title: 'Quick start',
    summary: 'Start the server, get a key and make the first calls with curl.',
    group: 'Start',
  },
  {
    slug: 'configuration',
    file: 'docs/configuration.md',
    title: 'Configuration and providers',
    summary: 'Environment variables, porch.config.yaml, model providers (OpenAI-compatible endpoints, the echo model) and model access.',
    group: 'Start',
  },
  {
    slug: 'authentication',
    file: 'docs/authentication.md',
    title: 'Authentication',
    summary: 'API keys, the Expert plan, scopes, partner keys and key rotation.',
    group: 'Start',
  },
  {
    slug: 'console',
    file: 'docs/console.md',
    title: 'Web console',
    summary: 'Signing in (invite links, passwords, sessions), API access, and what each console page does.',
    group: 'Start',
  },
  {
    slug: 'self-service',
    file: 'docs/self-service.md',
    title: 'Self-service',
    summary: 'The account, your own keys (rotation with a grace period), usage, the credits ledger, runs and their retention.',
    group: 'Use the API',
  },
  {
    slug: 'rate-limits-and-credits',
    file: 'docs/rate-limits-and-credits.md',
    title: 'Rate limits and credits',
    summary: 'Per-minute and daily limits, the headers, the retry rules, credits and idempotent retries.',
    group: 'Use the API',
  },
  {
    slug: 'streaming',
    file: 'docs/streaming.md',
    title: 'Streaming',
    summary: 'Server-Sent Events from the executes: the events, errors, guardrails, disconnects and billing, MCP progress.',
    group: 'Use the API',
  },
  {
    slug: 'runs',
    file: 'docs/runs.md',
    title: 'Runs',
    summary: 'Asynchronous executions: queue with Prefer: respond-async, poll, cancel, limits, and what happens when a process stops.',
    group: 'Use the API',
  },
  {
    slug: 'webhooks',
    file: 'docs/webhooks.md',
    title: 'Webhooks',
    summary: 'Signed callbacks for run.completed, run.failed and credits.low: verification, retries, the delivery log and the SSRF rules.',
    group: 'Use the API',
  },
  { slug: 'mcp', file: 'docs/mcp.md', title: 'MCP set-up', summary: 'Connect an MCP client over Streamable HTTP or stdio.', group: 'Use the API' },
  {
    slug: 'skills',
    file: 'docs/skills.md',
    title: 'Agent Skills',
    summary: "Porch's Agent Skills for agents without MCP, and moving skills between Porch and agent tools.",
    group: 'Use the API',
  },
  {
    slug: 'authoring',
    file: 'docs/authoring.md',
    title: 'Authoring',
    summary: 'The definitions of compositions, skills, personas and workflows, and how they are checked.',
    group: 'Author',
  },
  {
    slug: 'bundles-and-workflows',
    file: 'docs/bundles-and-workflows.md',
    title: 'Bundles and workflows',
    summary: 'Workflow nodes and how a run executes them; bundles for porch import and porch export.',
    group: 'Author',
  },
  {
    slug: 'versions-and-labels',
    file: 'docs/versions-and-labels.md',
    title: 'Versions and labels',
    summary: 'Every change is a numbered version; labels such as production publish one and roll back.',
    group: 'Author',
    searchKeywords: ['rollback', 'revert', 'undo', 'promote', 'release', 'publish', 'deploy'],
  },
  {
    slug: 'sanitiser-rules',
    file: 'docs/sanitiser-rules.md',
    title: 'Sanitiser and guardrails',
    summary: 'The built-in rules, custom rules and overrides per organisation, redaction and guardrails on model calls.',
    group: 'Author',
  },
  {
    slug: 'byok',
    file: 'docs/byok.md',
    title: 'Bring your own key (BYOK)',
    summary: "Store an organisation's or account's own provider key: encryption, precedence, metering and strict BYOK.",
    group: 'Author',
  },
  {
    slug: 'organisation',
    file: 'docs/organisation.md',
    title: 'Organisation administration',
    summary: "The organisation's admin: policies, sanitiser rules and overrides, write-only BYOK keys, members, and who may change them.",
    group: 'Operate',
  },
  {
    slug: 'cli',
    file: 'docs/cli.md',
    title: 'The porch CLI',
    summary: 'Every porch command: the server, the database, accounts, keys, credits, imports, BYOK, webhooks and sanitiser rules.',
    group: 'Operate',
  },
  {
    slug: 'deployment',
    file: 'docs/deployment.md',
    title: 'Deployment',
    summary: 'One host on SQLite or many on PostgreSQL: what is shared and how, sizing, and running behind nginx.',
    group: 'Operate',
  },
  {
    slug: 'upgrade-and-backup',
    file: 'docs/upgrade-and-backup.md',
    title: 'Upgrade and backup',
    summary: 'Backups and restores on both engines, upgrading (migrations), and moving from SQLite to PostgreSQL.',
    group: 'Operate',
  },
  {
    slug: 'operations',
    file: 'docs/operations.md',
    title: 'Operations',
    summary: 'Prometheus metrics, OpenTelemetry traces, logs that name the request, and the readiness and liveness probes.',
    group: 'Operate',
  },
  {
    slug: 'errors',
    file: 'docs/errors.md',
    title: 'Errors',
    summary: 'The error envelope, every error code with its status, and what a client should do.',
    group: 'Reference',
  },
  {
    slug: 'decisions',
    file: 'docs/decisions.md',
    title: 'Product decisions',
    summary: 'The choices Porch makes where an API like this one could go more than one way.',
    group: 'Reference',
    optional: true,
  },
];

export type PageSection = 'home' | 'docs' | 'api' | 'optional';

export interface SitePage {
  path: string;
  /** The Markdown twin's URL (`/docs/quick-start.md`, `/index.md` for the home page). */
  markdownPath: string;
  title: string;
  summary: string;
  section: PageSection;
  markdown: string;
  html: string;
  /** Tokens of the Markdown (o200k_base), sent as x-markdown-tokens. */
  markdownTokens: number;
}

/** One entry of the search index: a page's introduction, or one of its sections (h2 or h3). */
export interface SearchSection {
  id: number;
  /** The page path with the heading's anchor. */
  url: string;
  page: string;
  heading: string;
  /** The section's text, cut to SEARCH_TEXT_MAX_CHARACTERS: what a result's snippet shows. */
  text: string;
  /** Every distinct word of the section after the cut, so a word deep in a long section is found too. */
  terms: string;
  /** The page's searchKeywords, on its introduction; empty on its other sections. */
  keywords: string;
}

export interface SitePages {
  list: readonly SitePage[];
  /** The page for a canonical path or its `.md` twin, trailing slash ignored; undefined otherwise. */
  find(path: string): SitePage | undefined;
  /** The search index (JSON of SearchSection[]) at its fingerprinted URL. */
  searchIndex: { url: string; json: string };
  /** The HTML page for a path the site does not have. */
  notFoundHtml: string;
}

/**
 * A link's text: anything but `]`, over several lines if need be (a long text wraps, as
 * `[Configuration and\n  providers](configuration.md)` in byok.md does: regression, that link
 * stayed dead in the Markdown twin), but never across a blank line, which ends a paragraph and
 * so any link in it.
 */
const LINK_TEXT = String.raw`((?:[^\]\n]|\n(?![ \t]*\n))+)`;

/**
 * A relative link that names no doc page (`../examples/bundle.yaml`) points at a file of the
 * repository, which the site does not serve: in the Markdown twin it would be a dead link, so its
 * text stays without it, as the HTML page renders it. Links to pages (`runs.md#cancel-it`),
 * anchors, absolute paths and URLs are kept.
 */
const REPOSITORY_LINK = new RegExp(String.raw`(?<!!)\[${LINK_TEXT}\]\((?![a-z][a-z0-9+.-]*:|[/#?])(?!(?:\.\/)?[a-z0-9-]+\.md(?:#[^)\s]*)?\))[^)\s]+\)`, 'gi');

/** A link to another doc page by its file (`[Runs](runs.md#cancel-it)`, `./runs.md`). */
const PAGE_LINK = new RegExp(String.raw`(?<!!)\[${LINK_TEXT}\]\((?:\.\/)?([a-z0-9-]+\.md)(#[^)\s]*)?\)`, 'gi');

/** A link written from the site's root (`[Runs](/docs/runs#cancel-it)`, `[Docs](/docs)`), with its path and fragment. */
const ROOT_LINK = new RegExp(String.raw`(?<!!)\[${LINK_TEXT}\]\((\/(?!\/)[^)\s#?]*)(#[^)\s]*)?\)`, 'gi');

/** The target of a Markdown link or image written from the site's root (`](/openapi.json)`), not a network-path one (`](//host)`). */
const PATH_ABSOLUTE_TARGET = /\]\((?=\/(?!\/))/g;

/**
 * The path of the public URL, without a trailing slash: '' when Porch is served at the root,
 * `/porch` when a proxy forwards `https://example.com/porch/...` to it with the prefix stripped.
 * Every link the site writes from its root starts with it.
 */
export function basePathOf(siteUrl: string): string {
  return withoutTrailingSlashes(new URL(siteUrl).pathname).replace(/^\/$/, '');
}

export function withoutRepositoryLinks(markdown: string): string {
  return markdown.replace(REPOSITORY_LINK, '$1');
}

export function markdownPathOf(path: string): string {
  return path === SITE_PATHS.home ? '/index.md' : `${path}.md`;
}

export interface SitePagesInput {
  rootDir: string;
  /** The public URL's path (see basePathOf): '' at the root. */
  basePath?: string;
  document: OpenApiDocument;
  skills: AgentSkillsIndex;
  assets: SiteAssets;
}

/** `at` puts the public URL's path before the site paths the text names as code (links get it later, all at once). */
function homeMarkdown(document: OpenApiDocument, docs: readonly DocSource[], at: (path: string) => string): string {
  const rows: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation) continue;
      const scopes = operation['x-porch-scopes']?.map((scope) => `\`${scope}\``).join(', ') ?? 'none';
      rows.push(`| ${method.toUpperCase()} | \`${path}\` | ${operation.summary} | ${scopes} |`);
    }
  }
  return `# Porch

> Porch is a self-hosted prompt-orchestration server. One process runs your workflows, prompt
> compositions, custom skills and personas, keeps your context cards, judges prompts and
> sanitises text, behind a REST API, an MCP server and Agent Skills.

## Start here

${docs.map((doc) => `- [${doc.title}](${SITE_PATHS.docs}/${doc.slug}): ${doc.summary}`).join('\n')}
- [API reference](${SITE_PATHS.apiReference}): every operation, its fields and its errors.

## For agents and tools

- OpenAPI 3.1: [${SITE_PATHS.openApiJson}](${SITE_PATHS.openApiJson}) (JSON) and [${SITE_PATHS.openApiYaml}](${SITE_PATHS.openApiYaml}) (YAML)
- API catalog (RFC 9727): [${SITE_PATHS.apiCatalog}](${SITE_PATHS.apiCatalog})
- REST API base: \`${at(SITE_PATHS.apiBase)}\`, health at [${at(SITE_PATHS.health)}](${SITE_PATHS.health})
- MCP server (Streamable HTTP): \`${at(SITE_PATHS.mcp)}\`
- Agent Skills index: [${SITE_PATHS.agentSkillsIndex}](${SITE_PATHS.agentSkillsIndex})
- Site summary for LLMs: [${SITE_PATHS.llmsTxt}](${SITE_PATHS.llmsTxt})
- This page, the docs and the API reference as Markdown: add \`.md\` to the page's path (\`${at('/index.md')}\` for this one),
  send \`Accept: text/markdown\`, or use \`${at(SITE_PATHS.markdownGateway)}?path=/docs/quick-start\`; the web console
  (\`${at(CONSOLE_PATHS.root)}\`) and \`${at(CONSOLE_PATHS.refine)}\` are HTML only

## Operations

Every keyed call sends \`X-API-Key: mdi_...\`; any one of the listed scopes grants it.

| Method | Path under \`${at(SITE_PATHS.apiBase)}\` | What it does | Scopes |
|---|---|---|---|
${rows.join('\n')}
`;
}

function docsIndexMarkdown(docs: readonly DocSource[], skills: AgentSkillsIndex): string {
  return `# Documentation

${docs.map((doc) => `- [${doc.title}](${SITE_PATHS.docs}/${doc.slug}): ${doc.summary}`).join('\n')}
- [API reference](${SITE_PATHS.apiReference}): rendered from the [OpenAPI document](${SITE_PATHS.openApiJson}).

## Agent Skills

Download these into a skills-capable agent to use Porch without MCP (index: [${SITE_PATHS.agentSkillsIndex}](${SITE_PATHS.agentSkillsIndex})).

${skills.skills.map((skill) => `- [${skill.name}](${SITE_PATHS.agentSkillsBase}/${skill.name}/SKILL.md): ${skill.description}`).join('\n')}
`;
}

/** The h2 and h3 headings of a page marked rendered, in order: where each starts and ends, its anchor and its text. */
function headingsOf(html: string): Array<{ start: number; end: number; id: string; text: string }> {
  return [...html.matchAll(/<h([23]) id="([^"]*)">([\s\S]*?)<\/h\1>/g)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
    id: match[2] ?? '',
    text: textOfHtml(match[3] ?? ''),
  }));
}

/**
 * Each anchor of the reference's no-script version (`talk-to-a-persona`), which the search index
 * and the docs link to, with where Swagger UI shows the same tag or operation: with script on,
 * the page is Swagger UI, which draws none of those anchors, and its script translates them
 * (regression: a search result for an operation landed at the top of the page, nothing opened).
 */
function swaggerUiDeepLinks(html: string, headings: readonly ReferenceHeading[]): Record<string, ReferenceHeading['deepLink']> {
  const deepLinks: Record<string, ReferenceHeading['deepLink']> = {};
  let next = 0;
  // In order, so a description's own heading that happens to read like a summary is passed over.
  for (const { id, text } of headingsOf(html)) {
    const heading = headings[next];
    if (heading === undefined || heading.text !== text) continue;
    deepLinks[id] = heading.deepLink;
    next += 1;
  }
  const missing = headings[next];
  if (missing !== undefined) throw new Error(`The API reference's HTML has no heading "${missing.text}".`);
  return deepLinks;
}

function apiReferenceHtml(
  markdownHtml: string,
  deepLinks: Record<string, ReferenceHeading['deepLink']>,
  assets: SiteAssets,
  at: (path: string) => string,
): { head: string; body: string } {
  return {
    head: `<link rel="stylesheet" href="${escapeHtml(at(swaggerUiUrl(assets.swaggerUiVersion, 'swagger-ui.css')))}">`,
    body: `<h1 class="visually-hidden">API reference</h1>
<div id="swagger-ui" data-deep-links="${escapeHtml(JSON.stringify(deepLinks))}"></div>
<noscript>${markdownHtml}</noscript>
<script src="${escapeHtml(at(swaggerUiUrl(assets.swaggerUiVersion, 'swagger-ui-bundle.js')))}"></script>
<script src="${escapeHtml(at(assets.apiReferenceScript.url))}"></script>`,
  };
}

/**
 * The path without trailing slashes ("/" stays "/"). Trimmed by hand: /\/+$/ restarts at every
 * slash of a run, so a request path of 16 KB of slashes (the header limit) held the event loop
 * for 0.3 s, on routes that need no key.
 */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  return path.slice(0, end);
}

/** Characters of section text kept in the search index: enough to match on and to show a snippet. */
const SEARCH_TEXT_MAX_CHARACTERS = 4_000;

/**
 * A word as the search box tokenizes it: letters, digits and underscores, so an identifier such
 * as `porch_version` is a word (site.mjs indexes it whole and by its parts).
 */
const SEARCH_WORD = /[\p{L}\p{N}_]+/gu;

/** The distinct words of `text`, lower-cased, in order of first appearance. */
function distinctWords(text: string): string {
  return [...new Set(Array.from(text.toLowerCase().matchAll(SEARCH_WORD), (match) => match[0]))].join(' ');
}

/** A page's rendered HTML cut into its introduction and its h2/h3 sections, as plain text. */
function searchSections(path: string, title: string, html: string, keywords: readonly string[]): Array<Omit<SearchSection, 'id'>> {
  const sections: Array<Omit<SearchSection, 'id'>> = [];
  const headings = headingsOf(html);
  // The snippet text is cut to keep the index small; the words after the cut are indexed once each.
  const section = (url: string, heading: string, from: number, to: number, sectionKeywords: string): Omit<SearchSection, 'id'> => {
    const whole = textOfHtml(html.slice(from, to)).replace(/\s+/g, ' ').trim();
    const text = whole.slice(0, SEARCH_TEXT_MAX_CHARACTERS);
    return { url, page: title, heading, text, terms: distinctWords(whole.slice(text.length)), keywords: sectionKeywords };
  };
  const firstHeading = headings[0]?.start ?? html.length;
  sections.push(section(path, title, html.indexOf('</h1>') + 5, firstHeading, keywords.join(' ')));
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.start ?? html.length;
    sections.push(section(`${path}#${heading.id}`, heading.text, heading.end, end, ''));
  });
  return sections;
}

/** The 404 page's content; it is served at any address, so its links start from the site's root. */
function notFoundBody(at: (path: string) => string): string {
  const href = (path: string) => escapeHtml(at(path));
  return `<h1>Page not found</h1>
<p>There is no page at this address. It may have moved when the documentation was reorganised.</p>
<ul>
<li>Search the docs with the box at the top of the page, or</li>
<li>start from the <a href="${href(SITE_PATHS.docs)}">documentation index</a>, the <a href="${href(SITE_PATHS.home)}">home page</a> or the <a href="${href(SITE_PATHS.apiReference)}">API reference</a>.</li>
</ul>
<p>Looking for the API? It lives under <code>${escapeHtml(at(SITE_PATHS.apiBase))}</code> and answers unknown paths with a JSON error.</p>`;
}

export function buildSitePages({ rootDir, basePath = '', document, skills, assets }: SitePagesInput): SitePages {
  /** A site path as a browser or agent must ask for it: behind a proxy that strips `/porch`, `/docs` is `/porch/docs`. */
  const at = (path: string) => `${basePath}${path}`;
  const docs = DOC_SOURCES.filter((doc) => existsSync(join(rootDir, doc.file)));
  const renderMarkdown = createMarkdownRenderer((file) => {
    const doc = docs.find((candidate) => candidate.file === `docs/${file}`);
    return doc ? at(`${SITE_PATHS.docs}/${doc.slug}`) : undefined;
  }, basePath);

  // The sidebar: the docs index first, then every doc in its group; the API reference under "Reference".
  const reference: NavLink = { title: 'API reference', path: SITE_PATHS.apiReference };
  const groups: NavGroup[] = DOC_GROUPS.map((group) => ({
    title: group,
    links: [
      ...(group === 'Start' ? [{ title: 'Overview', path: SITE_PATHS.docs }] : []),
      ...docs.filter((doc) => doc.group === group).map((doc) => ({ title: doc.title, path: `${SITE_PATHS.docs}/${doc.slug}` })),
      ...(group === 'Reference' ? [reference] : []),
    ],
  })).filter((group) => group.links.length > 0);
  const readingOrder = groups.flatMap((group) => group.links);

  interface Draft {
    path: string;
    title: string;
    summary: string;
    section: PageSection;
    markdown: string;
    body: string;
    head?: string;
  }
  // A Markdown twin is read from several addresses (/docs/x.md, /docs/x with Accept, the Markdown
  // gateway's query URL), against which a relative link resolves differently; its links to other
  // pages are therefore absolute, to their twins (regression: through the gateway, 8 of quick
  // start's 10 links were dead). The HTML page is rendered from the text as written.
  const twinOfFile = new Map(docs.map((doc) => [basename(doc.file), `${SITE_PATHS.docs}/${doc.slug}.md`]));
  // So are links written from the site's root to a page (`/docs/runs`, as the home page and the
  // docs index write every link): in the twin they lead to the page's twin too (regression: the
  // twins of / and /docs led to HTML pages while every docs page's led to twins).
  const pagePaths = new Set<string>([SITE_PATHS.home, SITE_PATHS.docs, SITE_PATHS.apiReference, ...docs.map((doc) => `${SITE_PATHS.docs}/${doc.slug}`)]);
  // Links from the site's root, these and those written so, then get the public URL's path in front.
  const absoluteLinks = (markdown: string) => {
    const toTwins = markdown
      .replace(PAGE_LINK, (whole, text: string, file: string, fragment: string | undefined) => {
        const twin = twinOfFile.get(file);
        return twin === undefined ? whole : `[${text}](${twin}${fragment ?? ''})`;
      })
      .replace(ROOT_LINK, (whole, text: string, path: string, fragment: string | undefined) =>
        pagePaths.has(path) ? `[${text}](${markdownPathOf(path)}${fragment ?? ''})` : whole,
      );
    return basePath === '' ? toTwins : toTwins.replace(PATH_ABSOLUTE_TARGET, `](${basePath}`);
  };
  const draft = (path: string, title: string, summary: string, section: PageSection, markdown: string, html?: { head: string; body: string }): Draft => ({
    path,
    title,
    summary,
    section,
    markdown: absoluteLinks(markdown),
    body: html?.body ?? renderMarkdown(markdown),
    ...(html ? { head: html.head } : {}),
  });

  const referenceMarkdown = renderApiReferenceMarkdown(document);
  const referenceHtml = renderMarkdown(referenceMarkdown.markdown);
  const drafts: Draft[] = [
    draft(
      SITE_PATHS.home,
      'Porch',
      'Self-hosted prompt orchestration: REST API, MCP server and Agent Skills.',
      'home',
      homeMarkdown(
        document,
        docs.filter((doc) => !doc.optional),
        at,
      ),
    ),
    draft(SITE_PATHS.docs, 'Documentation', 'Every documentation page and the Agent Skills.', 'docs', docsIndexMarkdown(docs, skills)),
    ...docs.map((doc) =>
      draft(
        `${SITE_PATHS.docs}/${doc.slug}`,
        doc.title,
        doc.summary,
        doc.optional ? 'optional' : 'docs',
        withoutRepositoryLinks(readFileSync(join(rootDir, doc.file), 'utf8')),
      ),
    ),
    draft(
      SITE_PATHS.apiReference,
      'API reference',
      'Every operation with its parameters, bodies, responses and errors.',
      'api',
      referenceMarkdown.markdown,
      apiReferenceHtml(referenceHtml, swaggerUiDeepLinks(referenceHtml, referenceMarkdown.headings), assets, at),
    ),
  ];

  // The index covers every page; the API reference by its Markdown rendering, as Swagger UI draws in the browser.
  const keywordsOfPath = new Map(docs.map((doc) => [`${SITE_PATHS.docs}/${doc.slug}`, doc.searchKeywords ?? []]));
  const sections = drafts.flatMap((entry) =>
    searchSections(at(entry.path), entry.title, entry.path === SITE_PATHS.apiReference ? referenceHtml : entry.body, keywordsOfPath.get(entry.path) ?? []),
  );
  const searchJson = JSON.stringify(sections.map((section, id) => ({ id, ...section })));
  const searchIndex = { url: fingerprintedUrl('search-index', 'json', searchJson), json: searchJson };
  const chrome: SiteChrome = {
    basePath,
    stylesheetUrl: assets.stylesheet.url,
    scriptUrl: assets.script.url,
    searchEngineUrl: assets.searchEngine.url,
    searchIndexUrl: searchIndex.url,
    groups,
  };

  const list: SitePage[] = drafts.map((entry) => {
    const markdownPath = markdownPathOf(entry.path);
    const position = readingOrder.findIndex((link) => link.path === entry.path);
    const previous = position > 0 ? readingOrder[position - 1] : undefined;
    // The home page leads into the docs; the last page leads nowhere.
    const next = entry.path === SITE_PATHS.home ? readingOrder[0] : position >= 0 ? readingOrder[position + 1] : undefined;
    return {
      path: entry.path,
      markdownPath,
      title: entry.title,
      summary: entry.summary,
      section: entry.section,
      markdown: entry.markdown,
      markdownTokens: countTextTokens(entry.markdown),
      html: renderLayout({
        title: entry.title,
        path: entry.path,
        markdownPath,
        body: entry.body,
        chrome,
        ...(previous ? { previous } : {}),
        ...(next ? { next } : {}),
        ...(entry.head ? { head: entry.head, wide: true } : {}),
      }),
    };
  });
  const byPath = new Map<string, SitePage>();
  for (const entry of list) {
    byPath.set(entry.path, entry);
    byPath.set(entry.markdownPath, entry);
  }
  return {
    list,
    find(path: string) {
      return byPath.get(withoutTrailingSlashes(path));
    },
    searchIndex,
    notFoundHtml: renderLayout({ title: 'Page not found', path: '', body: notFoundBody(at), chrome }),
  };
}
