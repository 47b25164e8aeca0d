/** RFC 9727: /.well-known/api-catalog and the rel="api-catalog" links that point at it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../helpers/defined.js';
import { API_CATALOG_MEDIA_TYPE, type ApiCatalog, type LinkTarget } from '../../src/rest/discovery/api-catalog.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const SITE_URL = 'https://porch.example.test';
const CATALOG_LINK = `<${SITE_URL}/.well-known/api-catalog>; rel="api-catalog"`;

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ env: { PORCH_PUBLIC_URL: SITE_URL } });
});
afterAll(() => harness.close());

/** The site path of an absolute link of this site. */
function pathOf(href: string): string {
  expect(href.startsWith(SITE_URL), href).toBe(true);
  return href.slice(SITE_URL.length);
}

describe('the API catalog', () => {
  it('answers GET and HEAD with the RFC 9727 profiled media type and the api-catalog Link', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await harness.site(method, '/.well-known/api-catalog');
      expect(response.status, describeResponse(response)).toBe(200);
      expect(response.headers.get('content-type')).toBe(API_CATALOG_MEDIA_TYPE);
      expect(API_CATALOG_MEDIA_TYPE).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
      expect(response.headers.get('link')).toBe(CATALOG_LINK);
      if (method === 'HEAD') expect(response.text).toBe('');
    }
  });

  it('lists the REST API with service-desc, service-doc and status, and the MCP endpoint, all resolvable', async () => {
    const { body } = await harness.site<ApiCatalog>('GET', '/.well-known/api-catalog');
    const anchors = body.linkset.map((context) => context.anchor);
    expect(anchors).toEqual([`${SITE_URL}/.well-known/api-catalog`, `${SITE_URL}/api/public/v1`, `${SITE_URL}/api/public/mcp`]);
    const api = body.linkset[1];
    const links = (relation: string) => (api?.[relation] ?? []) as LinkTarget[];
    expect(links('service-desc').map((link) => pathOf(link.href))).toEqual(['/openapi.json', '/api/openapi.yaml']);
    expect(links('service-doc').map((link) => pathOf(link.href))).toContain('/docs');
    expect(links('status').map((link) => pathOf(link.href))).toEqual(['/api/public/v1/health']);
    expect((defined(body.linkset[0], 'the catalog entry').item as LinkTarget[]).map((link) => pathOf(link.href))).toEqual([
      '/api/public/v1',
      '/api/public/mcp',
    ]);

    // Every link the catalog gives for the REST API answers.
    for (const relation of ['service-desc', 'service-doc', 'status']) {
      for (const link of links(relation)) {
        const response = await harness.site('GET', pathOf(link.href));
        expect(response.status, `${relation} ${link.href}: ${describeResponse(response)}`).toBe(200);
        if (link.type) expect(response.headers.get('content-type') ?? '', link.href).toContain(link.type);
      }
    }
  });

  it('is linked with rel="api-catalog" from the home page (HTML and Markdown) and the API root', async () => {
    expect((await harness.site('GET', '/')).headers.get('link')).toContain(CATALOG_LINK);
    expect((await harness.site('GET', '/', { headers: { accept: 'text/markdown' } })).headers.get('link')).toContain(CATALOG_LINK);
    expect((await harness.site('HEAD', '/')).headers.get('link')).toContain(CATALOG_LINK);
    expect((await harness.api('GET', '')).headers.get('link')).toBe(CATALOG_LINK);
  });
});
