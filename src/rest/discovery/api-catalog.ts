/**
 * The RFC 9727 API catalog at /.well-known/api-catalog: a linkset (RFC 9264) listing Porch's two
 * APIs, the REST API and the MCP server, and for each where its description, documentation and
 * status live (RFC 8631 relations).
 */
import { SITE_PATHS, siteLink } from '../../operations/site-paths.js';

export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const API_CATALOG_MEDIA_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}

export interface LinksetContext {
  anchor: string;
  [relation: string]: string | LinkTarget[];
}

export interface ApiCatalog {
  linkset: LinksetContext[];
}

export function buildApiCatalog(siteUrl: string): ApiCatalog {
  const at = (path: string) => siteLink(siteUrl, path);
  const health: LinkTarget = { href: at(SITE_PATHS.health), type: 'application/json', title: 'API health' };
  return {
    linkset: [
      {
        anchor: at(SITE_PATHS.apiCatalog),
        item: [
          { href: at(SITE_PATHS.apiBase), title: 'Porch REST API' },
          { href: at(SITE_PATHS.mcp), title: 'Porch MCP server (Streamable HTTP)' },
        ],
      },
      {
        anchor: at(SITE_PATHS.apiBase),
        'service-desc': [
          { href: at(SITE_PATHS.openApiJson), type: 'application/json', title: 'OpenAPI 3.1 (JSON)' },
          { href: at(SITE_PATHS.openApiYaml), type: 'application/yaml', title: 'OpenAPI 3.1 (YAML)' },
        ],
        'service-doc': [
          { href: at(SITE_PATHS.docs), type: 'text/html', title: 'Documentation' },
          { href: at(SITE_PATHS.apiReference), type: 'text/html', title: 'API reference' },
          { href: at(SITE_PATHS.agentSkillsIndex), type: 'application/json', title: 'Agent Skills for using the API without MCP' },
          { href: at(SITE_PATHS.llmsTxt), type: 'text/plain', title: 'Site summary for LLMs' },
        ],
        status: [health],
      },
      {
        anchor: at(SITE_PATHS.mcp),
        'service-doc': [{ href: at(`${SITE_PATHS.docs}/mcp`), type: 'text/html', title: 'MCP set-up' }],
        status: [health],
      },
    ],
  };
}

/** `Link: <…/.well-known/api-catalog>; rel="api-catalog"` (RFC 9727 §3), for the catalog, the home page and the API root. */
export function apiCatalogLinkHeader(siteUrl: string): string {
  return `<${siteLink(siteUrl, SITE_PATHS.apiCatalog)}>; rel="api-catalog"`;
}
