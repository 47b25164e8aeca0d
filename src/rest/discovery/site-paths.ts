/**
 * Where everything lives on the site: the spec's discovery table (§1) and the human pages.
 * `API_BASE_PATH` repeats create-rest-app's constant so discovery never imports the app module
 * (which imports discovery); a test keeps the two equal.
 */
export const SITE_PATHS = {
  apiBase: '/api/public/v1',
  health: '/api/public/v1/health',
  mcp: '/api/public/mcp',
  openApiJson: '/openapi.json',
  openApiYaml: '/api/openapi.yaml',
  apiCatalog: '/.well-known/api-catalog',
  agentSkillsBase: '/.well-known/agent-skills',
  agentSkillsIndex: '/.well-known/agent-skills/index.json',
  markdownGateway: '/api/public/markdown-gateway',
  llmsTxt: '/llms.txt',
  home: '/',
  docs: '/docs',
  apiReference: '/docs/api-reference',
  assets: '/assets',
} as const;

/** Joins the public origin (no trailing slash) and a site path. */
export function siteLink(siteUrl: string, path: string): string {
  return `${siteUrl.replace(/\/+$/, '')}${path}`;
}
