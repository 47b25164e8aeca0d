/**
 * Where everything lives on the site: the spec's discovery table (§1), the doors and the human
 * pages. Every door and generator reads its paths from here.
 */
const API_BASE = '/api/public/v1';

export const SITE_PATHS = {
  apiBase: API_BASE,
  health: `${API_BASE}/health`,
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
  favicon: '/favicon.svg',
} as const;

/** The web console's pages (src/console), under one prefix but the refine page, which needs no sign-in. */
const CONSOLE = '/console';
export const CONSOLE_PATHS = {
  root: CONSOLE,
  signIn: `${CONSOLE}/sign-in`,
  signOut: `${CONSOLE}/sign-out`,
  setPassword: `${CONSOLE}/set-password`,
  assets: `${CONSOLE}/assets`,
  refine: '/refine',
} as const;

/** Joins the public origin (no trailing slash) and a site path. */
export function siteLink(siteUrl: string, path: string): string {
  return `${siteUrl.replace(/\/+$/, '')}${path}`;
}
