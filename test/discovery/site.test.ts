/**
 * What the docs site sends over the wire: every page, document and asset compressed with brotli
 * or gzip as the client accepts (compressed once, kept), with Vary and cache headers that fit
 * each (immutable for fingerprinted and versioned assets, revalidated for pages); the API's JSON
 * and its event streams never compressed; the sidebar, titles, previous/next and the search
 * index on every page; and the HTML 404 page for browsers, the JSON envelope for everyone else.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { encodedOnce, encodeBody, isCompressible } from '../../src/rest/discovery/encoded-body.js';
import { documentTitle } from '../../src/rest/discovery/html-layout.js';
import type { OpenApiDocument } from '../../src/rest/discovery/openapi.js';
import { DOC_SOURCES, type SearchSection } from '../../src/rest/discovery/site-pages.js';
import { collectEvents, postEventStream } from '../helpers/event-stream.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = join(require.resolve('swagger-ui-dist/package.json'), '..');
const SWAGGER_UI_VERSION = (JSON.parse(readFileSync(join(SWAGGER_UI_DIR, 'package.json'), 'utf8')) as { version: string }).version;
const BUNDLE_PATH = `/assets/swagger-ui/${SWAGGER_UI_VERSION}/swagger-ui-bundle.js`;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const DOC_PATHS = ['/', '/docs', '/docs/api-reference', ...DOC_SOURCES.map((source) => `/docs/${source.slug}`)];

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, still encoded. */
  body: Buffer;
}

/** A GET over plain node:http, which (unlike fetch) leaves the body as the server encoded it. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decoded(response: RawResponse): Buffer {
  const coding = response.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(response.body);
  if (coding === 'gzip') return gunzipSync(response.body);
  return response.body;
}

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.close());

const get = (path: string, headers: Record<string, string> = {}) => rawGet(`${harness.url}${path}`, headers);

/** The fingerprinted asset URLs a page names. */
async function assetUrlsOf(path: string): Promise<string[]> {
  const html = decoded(await get(path, { accept: BROWSER_ACCEPT })).toString('utf8');
  const urls = [...html.matchAll(/(?:href|src|data-index|data-engine)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
  return [...new Set(urls)];
}

describe('compression', () => {
  it('sends the Swagger UI bundle brotli to a client that accepts br, gzip to one that accepts only gzip, as it is to others; all decode to the package bytes', async () => {
    const original = readFileSync(join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'));
    const br = await get(BUNDLE_PATH, { 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await get(BUNDLE_PATH, { 'accept-encoding': 'gzip' });
    const identity = await get(BUNDLE_PATH);
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(identity.headers['content-encoding']).toBeUndefined();
    for (const response of [br, gzip, identity]) {
      expect(response.status).toBe(200);
      expect(decoded(response).equals(original)).toBe(true);
      expect(response.headers.vary).toContain('Accept-Encoding');
      expect(response.headers['cache-control']).toBe(IMMUTABLE);
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
    }
    // The measured sizes, for the record: about 1.7 MB as it is, 0.39 MB brotli, 0.46 MB gzip.
    expect(br.body.length).toBeLessThan(original.length / 4);
    expect(gzip.body.length).toBeLessThan(original.length / 3);
  });

  it('compresses every page, both representations, the OpenAPI documents, llms.txt and every asset a page names', async () => {
    const paths = [...DOC_PATHS, '/docs/quick-start.md', '/index.md', '/openapi.json', '/api/openapi.yaml', '/llms.txt', '/.well-known/api-catalog'];
    for (const path of [...paths, ...(await assetUrlsOf('/docs/api-reference')), ...(await assetUrlsOf('/docs/quick-start'))]) {
      const response = await get(path, { 'accept-encoding': 'gzip, deflate, br', accept: BROWSER_ACCEPT });
      expect(response.status, path).toBe(200);
      // Bodies under 512 bytes (the script that starts Swagger UI) are not worth compressing.
      if (decoded(response).length < 512) continue;
      expect(response.headers['content-encoding'], path).toBe('br');
      expect(response.headers.vary, path).toContain('Accept-Encoding');
    }
  });

  it('honours the client preference and q=0 among the codings', async () => {
    expect((await get('/openapi.json', { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get('/openapi.json', { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await get('/openapi.json', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect((await get('/openapi.json', { 'accept-encoding': '*' })).headers['content-encoding']).toBe('br');
    expect((await get('/openapi.json', { 'accept-encoding': 'deflate' })).headers['content-encoding']).toBeUndefined();
  });

  it('compresses a body once and gives every later request the same variants', async () => {
    let builds = 0;
    const body = encodedOnce(() => {
      builds += 1;
      return { body: 'x'.repeat(10_000), contentType: 'text/plain; charset=utf-8' };
    });
    const [first, second] = await Promise.all([body(), body()]);
    const third = await body();
    expect(builds).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first.br?.length).toBeLessThan(100);
  });

  it('leaves small bodies and binary types uncompressed', async () => {
    expect((await encodeBody('tiny', 'text/plain')).br).toBeUndefined();
    expect((await encodeBody(Buffer.alloc(4096), 'application/gzip')).gzip).toBeUndefined();
    expect(isCompressible('application/linkset+json; profile="x"')).toBe(true);
    expect(isCompressible('image/png')).toBe(false);
  });

  it('never compresses the API JSON, whatever the client accepts', async () => {
    const { key } = await harness.expertWithKey();
    for (const path of ['/api/public/v1/health', '/api/public/v1/context-cards', '/api/public/v1/nope']) {
      const response = await get(path, { 'accept-encoding': 'br, gzip', 'x-api-key': key });
      expect(response.headers['content-encoding'], path).toBeUndefined();
      expect(JSON.parse(response.body.toString('utf8')), path).toHaveProperty('success');
    }
  });

  it('never compresses Server-Sent Events', async () => {
    const { key, accountId } = await harness.expertWithKey();
    const ids = (await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE)).ids;
    const response = await postEventStream(harness.url, `/personas/${ids['persona:plain-editor']}/execute`, {
      key,
      body: { input: 'Make this shorter, please.' },
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('content-encoding')).toBeNull();
    const events = await collectEvents(response);
    expect(events.at(-1)?.event).toBe('done');
  });
});

describe('caching', () => {
  it('revalidates pages with an ETag per coding; a matching If-None-Match gets 304', async () => {
    const first = await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'br' });
    expect(first.headers['cache-control']).toBe('public, no-cache');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]+-br"$/);
    const again = await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const identity = await get('/docs/quick-start', { accept: BROWSER_ACCEPT });
    expect(identity.headers.etag).not.toBe(etag);
  });

  it('answers 304 only to the tag of the coding it sends, never another coding’s (regression: a gzip-only client with the brotli tag got 304)', async () => {
    const brotli = String((await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'br' })).headers.etag);
    const gzip = String((await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'gzip' })).headers.etag);
    const identity = String((await get('/docs/quick-start', { accept: BROWSER_ACCEPT })).headers.etag);
    expect(new Set([brotli, gzip, identity]).size).toBe(3);
    const crossed = await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'gzip', 'if-none-match': brotli });
    expect(crossed.status).toBe(200);
    expect(crossed.headers.etag).toBe(gzip);
    expect(crossed.headers['content-encoding']).toBe('gzip');
    expect(decoded(crossed).length).toBeGreaterThan(0);
    expect((await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'if-none-match': `${brotli}, ${gzip}` })).status).toBe(200);
    expect((await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'accept-encoding': 'gzip', 'if-none-match': `${brotli}, ${gzip}` })).status).toBe(304);
    expect((await get('/docs/quick-start', { accept: BROWSER_ACCEPT, 'if-none-match': identity })).status).toBe(304);
  });

  it('caches fingerprinted assets and the search index as immutable, and knows no other fingerprint', async () => {
    const urls = await assetUrlsOf('/docs/quick-start');
    expect(urls.some((url) => /\/assets\/site\.[0-9a-f]{10}\.css$/.test(url))).toBe(true);
    expect(urls.some((url) => /\/assets\/search-index\.[0-9a-f]{10}\.json$/.test(url))).toBe(true);
    for (const url of urls) expect((await get(url)).headers['cache-control'], url).toBe(IMMUTABLE);
    expect((await get('/assets/site.0000000000.css')).status).toBe(404);
  });

  it('keeps discovery documents at a short max-age', async () => {
    expect((await get('/openapi.json')).headers['cache-control']).toBe('public, max-age=300');
  });
});

describe('the page shell', () => {
  it('gives every page its own title, the sidebar with it marked as current, and previous/next links', async () => {
    const titles = new Map<string, string>();
    for (const path of DOC_PATHS) {
      const html = decoded(await get(path, { accept: BROWSER_ACCEPT })).toString('utf8');
      const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
      titles.set(path, title);
      expect(title, path).toMatch(/Porch/);
      if (path.startsWith('/docs/') && path !== '/docs/api-reference') {
        const source = DOC_SOURCES.find((doc) => `/docs/${doc.slug}` === path);
        expect(title, path).toBe(documentTitle(source?.title ?? '').replace(/&/g, '&amp;'));
      }
      for (const other of DOC_SOURCES) expect(html, `${path} links ${other.slug} in its sidebar`).toContain(`href="/docs/${other.slug}"`);
      const current = [...html.matchAll(/<a href="([^"]+)" aria-current="page">/g)].map((match) => match[1]);
      expect(current, path).toEqual(path === '/' ? [] : [path]);
      expect(html, path).toMatch(/rel="(prev|next)"/);
    }
    expect(new Set(titles.values()).size).toBe(titles.size);
  });

  it('names an icon the site serves at /favicon.svg and /favicon.ico, on the docs and the console alike (regression: /favicon.ico was 404)', async () => {
    for (const path of ['/', '/docs/quick-start', '/console/sign-in']) {
      const html = decoded(await get(path, { accept: BROWSER_ACCEPT })).toString('utf8');
      expect(html, path).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg"');
    }
    const icon = readFileSync(join(import.meta.dirname, '../../site/favicon.svg'));
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers['content-type'], path).toBe('image/svg+xml');
      expect(decoded(response).equals(icon), path).toBe(true);
    }
  });

  it('sets dark colours with a media query, not light-dark(), which a browser without it would drop (regression: light accent on a dark canvas, 3.1:1)', async () => {
    const url = (await assetUrlsOf('/docs')).find((candidate) => candidate.endsWith('.css'));
    const css = decoded(await get(url ?? '')).toString('utf8');
    expect(css).not.toMatch(/:\s*light-dark\(/);
    expect(css).toContain('@media (prefers-color-scheme: dark)');
    const reference = decoded(await get('/docs/api-reference', { accept: BROWSER_ACCEPT })).toString('utf8');
    expect(reference).toContain('<html lang="en" data-theme="light">');
  });

  it('wraps every table in a scrolling region, so a narrow screen scrolls the table, not the page', async () => {
    const html = decoded(await get('/docs/errors', { accept: BROWSER_ACCEPT })).toString('utf8');
    const tables = html.match(/<table>/g)?.length ?? 0;
    expect(tables).toBeGreaterThan(0);
    expect(html.match(/<div class="table-wrap" tabindex="0" role="region"[^>]*>\n<table>/g)?.length).toBe(tables);
  });

  it('indexes every page for search, each section with its anchor', async () => {
    const url = (await assetUrlsOf('/docs')).find((candidate) => candidate.includes('search-index'));
    const sections = JSON.parse(decoded(await get(url ?? '')).toString('utf8')) as SearchSection[];
    for (const path of DOC_PATHS)
      expect(
        sections.some((section) => section.url === path),
        path,
      ).toBe(true);
    const backups = sections.find((section) => section.url === '/docs/upgrade-and-backup#backups');
    expect(backups?.text).toContain('porch backup');
    const html = decoded(await get('/docs/upgrade-and-backup', { accept: BROWSER_ACCEPT })).toString('utf8');
    expect(html).toContain('<h2 id="backups">');
  });

  it('gives every search entry into the API reference the tag or operation Swagger UI shows for it (regression: 96 led to the top of the page)', async () => {
    const url = (await assetUrlsOf('/docs')).find((candidate) => candidate.includes('search-index'));
    const sections = JSON.parse(decoded(await get(url ?? '')).toString('utf8')) as SearchSection[];
    const html = decoded(await get('/docs/api-reference', { accept: BROWSER_ACCEPT })).toString('utf8');
    const attribute = /<div id="swagger-ui" data-deep-links="([^"]*)">/.exec(html)?.[1] ?? '{}';
    const deepLinks = JSON.parse(attribute.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as Record<string, string[]>;
    const document = JSON.parse(decoded(await get('/openapi.json')).toString('utf8')) as OpenApiDocument;
    const operationIds = new Map<string, Set<string>>();
    for (const item of Object.values(document.paths))
      for (const operation of Object.values(item))
        for (const tag of operation?.tags ?? []) operationIds.set(tag, (operationIds.get(tag) ?? new Set()).add(operation?.operationId ?? ''));
    const anchors = sections.filter((section) => section.url.startsWith('/docs/api-reference#')).map((section) => section.url.split('#')[1] ?? '');
    expect(anchors.length).toBeGreaterThan(document.tags.length);
    for (const anchor of anchors) {
      const [tag = '', operation] = deepLinks[anchor] ?? [];
      expect(operationIds.has(tag), `${anchor} names the tag "${tag}"`).toBe(true);
      if (operation !== undefined) expect(operationIds.get(tag)?.has(operation), `${anchor} names ${tag}/${operation}`).toBe(true);
    }
    expect(deepLinks['talk-to-a-persona']).toEqual(['Personas', 'executePersona']);
    // Without script the page is its no-script version, where each anchor is a heading.
    for (const anchor of anchors) expect(html, anchor).toContain(` id="${anchor}"`);
  });
});

describe('the 404 page', () => {
  it('answers a browser asking for an unknown site path with an HTML page, status 404', async () => {
    for (const path of ['/nope', '/docs/nope', '/docs/quick-start/extra', '/assets/nope.js']) {
      const response = await get(path, { accept: BROWSER_ACCEPT, 'accept-encoding': 'br' });
      expect(response.status, path).toBe(404);
      expect(response.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(response.headers.vary, path).toContain('Accept');
      const html = decoded(response).toString('utf8');
      expect(html, path).toContain('<title>Page not found — Porch</title>');
      expect(html, path).toContain('href="/docs"');
    }
  });

  it('answers a document or page called with a method it does not take 405 with Allow, and an unknown path 404 (regression: POST /openapi.json was 404)', async () => {
    const cases: Array<[string, string, number, string | undefined]> = [
      ['POST', '/openapi.json', 405, 'GET, HEAD, OPTIONS'],
      ['PUT', '/api/openapi.yaml', 405, 'GET, HEAD, OPTIONS'],
      ['DELETE', '/.well-known/api-catalog', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/llms.txt', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/.well-known/agent-skills/index.json', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/docs/quick-start.md', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/docs/quick-start', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/', 405, 'GET, HEAD, OPTIONS'],
      ['POST', '/docs/nope', 404, undefined],
      ['POST', '/.well-known/agent-skills/nope', 404, undefined],
    ];
    for (const [method, path, status, allow] of cases) {
      const response = await fetch(`${harness.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.headers.get('allow') ?? undefined, `${method} ${path}`).toBe(allow);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code, `${method} ${path}`).toBe(status === 405 ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND');
    }
  });

  it('answers OPTIONS on every HTML page as on its .md twin: 204 with Allow and CORS (regression: 404 "No route" while PUT there was 405)', async () => {
    for (const path of ['/docs/errors', '/', '/docs', '/docs/api-reference', '/docs/errors.md']) {
      const response = await fetch(`${harness.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      expect(response.status, path).toBe(204);
      expect(response.headers.get('allow'), path).toBe('GET, HEAD, OPTIONS');
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(response.headers.get('access-control-allow-headers'), path).toBe('mcp-protocol-version');
    }
    expect((await fetch(`${harness.url}/docs/nope`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('keeps the JSON envelope for the API, MCP, the well-known tree and clients that do not ask for HTML', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['/nope', {}],
      ['/nope', { accept: 'application/json' }],
      ['/nope', { accept: '*/*' }],
      ['/api/public/v1/nope', { accept: BROWSER_ACCEPT }],
      ['/api/public/markdown-gateway?path=/nope', { accept: BROWSER_ACCEPT }],
      ['/.well-known/agent-skills/nope', { accept: BROWSER_ACCEPT }],
    ];
    for (const [path, headers] of cases) {
      const response = await get(path, headers);
      expect(response.status, path).toBe(404);
      expect(response.headers['content-type'], path).toMatch(/^application\/json/);
      expect(JSON.parse(response.body.toString('utf8')).error.code, path).toBe('NOT_FOUND');
      // A site path's JSON 404 depends on Accept too: a shared cache must not give it to a browser (regression: no Vary).
      if (!path.startsWith('/api') && !path.startsWith('/.well-known')) expect(response.headers.vary, path).toContain('Accept');
    }
  });
});
