/**
 * `GET /api/public/v1`: the API root, so a client that knows only the base URL can find the
 * OpenAPI document, the catalog, the docs and health from there. It belongs to the site rather
 * than to the API's resources, so it is a REST route and documented, but no MCP tool.
 */
import { z } from 'zod';
import { API_VERSION } from '../core/health.js';
import { definePublicOperation } from './operation.js';
import { SITE_PATHS, siteLink } from './site-paths.js';

const link = (what: string) => z.url().describe(what);

export const getApiRoot = definePublicOperation({
  name: 'get_api_root',
  title: 'API root',
  description:
    'Where to find everything else: the OpenAPI document, the RFC 9727 API catalog, the documentation, health, the MCP endpoint and the Agent Skills index. Needs no API key.',
  method: 'GET',
  path: '/',
  tag: 'Discovery',
  effect: 'read',
  successStatus: 200,
  exposure: ['rest', 'discovery'],
  output: z.object({
    name: z.literal('Porch API').describe('The API name.'),
    version: z.literal(API_VERSION).describe('API version (also in the X-API-Version header).'),
    links: z
      .object({
        openapi: link('OpenAPI 3.1 document (JSON).'),
        openapi_yaml: link('The same document as YAML.'),
        api_catalog: link('RFC 9727 API catalog (application/linkset+json).'),
        docs: link('Human documentation.'),
        health: link('API health (no key needed).'),
        mcp: link('MCP server endpoint (Streamable HTTP).'),
        agent_skills: link('Agent Skills discovery index.'),
        llms_txt: link('Site summary for LLMs (llms.txt).'),
      })
      .describe('Absolute links to the discovery resources.'),
  }),
  run: async (_input, { core }) => {
    const at = (path: string) => siteLink(core.settings.siteUrl, path);
    return {
      name: 'Porch API' as const,
      version: API_VERSION as typeof API_VERSION,
      links: {
        openapi: at(SITE_PATHS.openApiJson),
        openapi_yaml: at(SITE_PATHS.openApiYaml),
        api_catalog: at(SITE_PATHS.apiCatalog),
        docs: at(SITE_PATHS.docs),
        health: at(SITE_PATHS.health),
        mcp: at(SITE_PATHS.mcp),
        agent_skills: at(SITE_PATHS.agentSkillsIndex),
        llms_txt: at(SITE_PATHS.llmsTxt),
      },
    };
  },
});
