/**
 * The allowlisted human pages: the home page, the docs written in docs/*.md, the docs index and
 * the API reference. Each exists as Markdown (what an LLM asks for) and HTML (what a browser
 * gets); nothing outside this list is ever served as a page or through the Markdown gateway.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTextTokens } from '../../core/ai/index.js';
import type { AgentSkillsIndex } from './agent-skills.js';
import { renderApiReferenceMarkdown } from './api-reference-markdown.js';
import { createMarkdownRenderer, renderLayout } from './html-layout.js';
import type { OpenApiDocument } from './openapi.js';
import { SITE_PATHS } from '../../operations/site-paths.js';

export interface DocSource {
  slug: string;
  file: string;
  title: string;
  /** One line for the docs index and llms.txt. */
  summary: string;
  /** Background reading: listed under llms.txt's "Optional" section. */
  optional?: boolean;
}

/** The docs pages, in reading order. A file that does not exist (yet) is simply not served. */
export const DOC_SOURCES: readonly DocSource[] = [
  { slug: 'quick-start', file: 'docs/quick-start.md', title: 'Quick start', summary: 'Start the server, get a key and make the first calls with curl.' },
  {
    slug: 'authentication',
    file: 'docs/authentication.md',
    title: 'Authentication',
    summary: 'API keys, the Expert plan, scopes, partner keys and key rotation.',
  },
  {
    slug: 'self-service',
    file: 'docs/self-service.md',
    title: 'Self-service',
    summary: 'The account, your own keys (rotation with a grace period), usage, the credits ledger, runs and their retention.',
  },
  {
    slug: 'webhooks',
    file: 'docs/webhooks.md',
    title: 'Webhooks',
    summary: 'Signed callbacks for run.completed, run.failed and credits.low: verification, retries, the delivery log and the SSRF rules.',
  },
  {
    slug: 'organisation',
    file: 'docs/organisation.md',
    title: 'Organisation administration',
    summary: "The organisation's admin: policies, sanitiser rules and overrides, write-only BYOK keys, members, and who may change them.",
  },
  { slug: 'errors', file: 'docs/errors.md', title: 'Errors', summary: 'The error envelope, every error code with its status, and what a client should do.' },
  {
    slug: 'rate-limits-and-credits',
    file: 'docs/rate-limits-and-credits.md',
    title: 'Rate limits and credits',
    summary: 'Per-minute and daily limits, the headers, the retry rules, credits and idempotent retries.',
  },
  {
    slug: 'streaming',
    file: 'docs/streaming.md',
    title: 'Streaming',
    summary: 'Server-Sent Events from the executes: the events, errors, guardrails, disconnects and billing, MCP progress.',
  },
  {
    slug: 'authoring',
    file: 'docs/authoring.md',
    title: 'Authoring',
    summary: 'Definitions, workflow node kinds, versions and labels (publish and roll back), and bundles for import and export.',
  },
  {
    slug: 'runs',
    file: 'docs/runs.md',
    title: 'Runs',
    summary: 'Asynchronous executions: queue with Prefer: respond-async, poll, cancel, limits, and what happens when a process stops.',
  },
  { slug: 'mcp', file: 'docs/mcp.md', title: 'MCP set-up', summary: 'Connect an MCP client over Streamable HTTP or stdio.' },
  {
    slug: 'skills',
    file: 'docs/skills.md',
    title: 'Agent Skills',
    summary: "Porch's Agent Skills for agents without MCP, and moving skills between Porch and agent tools.",
  },
  {
    slug: 'deployment',
    file: 'docs/deployment.md',
    title: 'Deployment',
    summary: 'One host on SQLite or many on PostgreSQL: what is shared and how, sizing, backups, upgrades and moving data.',
  },
  {
    slug: 'operations',
    file: 'docs/operations.md',
    title: 'Operations',
    summary: 'Prometheus metrics, OpenTelemetry traces, logs that name the request, and the readiness and liveness probes.',
  },
  {
    slug: 'decisions',
    file: 'docs/decisions.md',
    title: 'Product decisions',
    summary: 'How Porch resolves the gaps and contradictions of the API specification.',
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

export interface SitePages {
  list: readonly SitePage[];
  /** The page for a canonical path or its `.md` twin, trailing slash ignored; undefined otherwise. */
  find(path: string): SitePage | undefined;
}

export function markdownPathOf(path: string): string {
  return path === SITE_PATHS.home ? '/index.md' : `${path}.md`;
}

export interface SitePagesInput {
  rootDir: string;
  document: OpenApiDocument;
  skills: AgentSkillsIndex;
}

function homeMarkdown(document: OpenApiDocument, docs: readonly DocSource[]): string {
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
- REST API base: \`${SITE_PATHS.apiBase}\`, health at [${SITE_PATHS.health}](${SITE_PATHS.health})
- MCP server (Streamable HTTP): \`${SITE_PATHS.mcp}\`
- Agent Skills index: [${SITE_PATHS.agentSkillsIndex}](${SITE_PATHS.agentSkillsIndex})
- Site summary for LLMs: [${SITE_PATHS.llmsTxt}](${SITE_PATHS.llmsTxt})
- Any page as Markdown: send \`Accept: text/markdown\`, or use \`${SITE_PATHS.markdownGateway}?path=/docs/quick-start\`

## Operations

Every keyed call sends \`X-API-Key: mdi_...\`; any one of the listed scopes grants it.

| Method | Path under \`${SITE_PATHS.apiBase}\` | What it does | Scopes |
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

function apiReferenceHtml(markdownHtml: string): { head: string; body: string } {
  return {
    head: `<link rel="stylesheet" href="${SITE_PATHS.assets}/swagger-ui/swagger-ui.css">`,
    body: `<div id="swagger-ui"></div>
<noscript>${markdownHtml}</noscript>
<script src="${SITE_PATHS.assets}/swagger-ui/swagger-ui-bundle.js"></script>
<script src="${SITE_PATHS.assets}/api-reference.js"></script>`,
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

export function buildSitePages({ rootDir, document, skills }: SitePagesInput): SitePages {
  const docs = DOC_SOURCES.filter((doc) => existsSync(join(rootDir, doc.file)));
  const renderMarkdown = createMarkdownRenderer((file) => {
    const doc = docs.find((candidate) => candidate.file === `docs/${file}`);
    return doc ? `${SITE_PATHS.docs}/${doc.slug}` : undefined;
  });
  const page = (path: string, title: string, summary: string, section: PageSection, markdown: string, html?: { head: string; body: string }): SitePage => {
    const markdownPath = markdownPathOf(path);
    return {
      path,
      markdownPath,
      title,
      summary,
      section,
      markdown,
      markdownTokens: countTextTokens(markdown),
      html: renderLayout({ title, markdownPath, body: html?.body ?? renderMarkdown(markdown), ...(html ? { head: html.head, wide: true } : {}) }),
    };
  };

  const referenceMarkdown = renderApiReferenceMarkdown(document);
  const list: SitePage[] = [
    page(
      SITE_PATHS.home,
      'Porch',
      'Self-hosted prompt orchestration: REST API, MCP server and Agent Skills.',
      'home',
      homeMarkdown(
        document,
        docs.filter((doc) => !doc.optional),
      ),
    ),
    page(SITE_PATHS.docs, 'Documentation', 'Every documentation page and the Agent Skills.', 'docs', docsIndexMarkdown(docs, skills)),
    ...docs.map((doc) =>
      page(`${SITE_PATHS.docs}/${doc.slug}`, doc.title, doc.summary, doc.optional ? 'optional' : 'docs', readFileSync(join(rootDir, doc.file), 'utf8')),
    ),
    page(
      SITE_PATHS.apiReference,
      'API reference',
      'Every operation with its parameters, bodies, responses and errors.',
      'api',
      referenceMarkdown,
      apiReferenceHtml(renderMarkdown(referenceMarkdown)),
    ),
  ];
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
  };
}
