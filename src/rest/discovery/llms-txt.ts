/**
 * /llms.txt in the llmstxt.org structure: an H1 with the name, a blockquote summary, a short
 * paragraph, then H2 sections of links (to the Markdown versions of the pages) with one-line
 * notes, the last section being "Optional" (what can be skipped when context is short).
 */
import type { AgentSkillsIndex } from './agent-skills.js';
import type { SitePages } from './site-pages.js';
import { SITE_PATHS, siteLink } from '../../operations/site-paths.js';

export function buildLlmsTxt(siteUrl: string, pages: SitePages, skills: AgentSkillsIndex): string {
  const at = (path: string) => siteLink(siteUrl, path);
  const link = (title: string, path: string, note: string) => `- [${title}](${at(path)}): ${note}`;
  const docs = pages.list.filter((page) => page.section === 'docs' && page.path !== SITE_PATHS.docs);
  const optional = pages.list.filter((page) => page.section === 'optional');
  const reference = pages.find(SITE_PATHS.apiReference);
  return `# Porch

> Porch is a self-hosted prompt-orchestration server: a REST API at ${at(SITE_PATHS.apiBase)}, an MCP server at ${at(SITE_PATHS.mcp)} and Agent Skills, over one database. It lists and executes your workflows, prompt compositions, custom skills and personas, manages context cards, judges prompts and scans text for personal data and secrets.

Every API request sends an API key in \`X-API-Key\` (keys start with \`mdi_\`; only Expert accounts have them). Responses are \`{"success": true, "data": ...}\` or \`{"success": false, "error": {"code", "message", "request_id"}}\`. Executions cost credits (1 credit = 1,000 tokens). The docs and the API reference below link to their Markdown versions (\`.md\`); the other links are the machine-readable documents themselves (OpenAPI JSON and YAML, the API catalog, the health check, the Agent Skills index and files). Every page of the docs site also answers \`Accept: text/markdown\` on its own URL.

## Docs

${docs.map((page) => link(page.title, page.markdownPath, page.summary)).join('\n')}

## API

${reference ? `${link('API reference', reference.markdownPath, reference.summary)}\n` : ''}${link('OpenAPI 3.1 (JSON)', SITE_PATHS.openApiJson, "the complete machine-readable description, generated from the server's own operation definitions")}
${link('API catalog', SITE_PATHS.apiCatalog, 'RFC 9727 linkset pointing at the OpenAPI document, docs, health and the MCP endpoint')}
${link('Health', SITE_PATHS.health, 'no key needed')}

## Agent Skills

${link('Agent Skills index', SITE_PATHS.agentSkillsIndex, 'discovery index (v0.2.0) with sha256 digests of every download')}
${skills.skills.map((skill) => link(skill.name, `${SITE_PATHS.agentSkillsBase}/${skill.name}/SKILL.md`, skill.description)).join('\n')}

## Optional

${optional.map((page) => link(page.title, page.markdownPath, page.summary)).join('\n')}
${link('Home page', '/index.md', 'overview and the list of operations')}
${link('OpenAPI 3.1 (YAML)', SITE_PATHS.openApiYaml, 'the same document as YAML')}
`;
}
