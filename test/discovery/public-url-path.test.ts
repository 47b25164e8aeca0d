/**
 * The docs site behind a reverse proxy that serves Porch under a path and strips it
 * (`PORCH_PUBLIC_URL=http://host/porch`, the proxy forwarding `/porch/docs` as `/docs`): every
 * link, asset, redirect and Agent Skills url a client follows must stay under `/porch`
 * (regression: they were written from the server's root, and led outside the proxy).
 */
import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSkillsIndex } from '../../src/rest/discovery/agent-skills.js';
import { DOC_SOURCES, type SearchSection } from '../../src/rest/discovery/site-pages.js';
import { freePort } from '../helpers/free-port.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const PREFIX = '/porch';
const PAGE_PATHS = ['/', '/docs', '/docs/api-reference', ...DOC_SOURCES.map((source) => `/docs/${source.slug}`)];

let harness: Harness;
let proxy: Server;
/** The public URL: the proxy's origin and the prefix, as PORCH_PUBLIC_URL names it. */
let publicUrl: string;

/** A proxy like nginx's `location /porch/ { proxy_pass http://porch/; }`: only /porch/..., forwarded without the prefix. */
function startProxy(port: number, upstream: URL): Promise<Server> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url !== PREFIX && !url.startsWith(`${PREFIX}/`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('outside the proxied path\n');
      return;
    }
    const upstreamRequest = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: url.slice(PREFIX.length) || '/',
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (upstreamResponse) => {
        res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(res);
      },
    );
    upstreamRequest.on('error', () => res.writeHead(502).end());
    req.pipe(upstreamRequest);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}${PREFIX}`;
  harness = await createHarness({ env: { PORCH_PUBLIC_URL: publicUrl } });
  proxy = await startProxy(port, new URL(harness.url));
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await harness.close();
});

/** A GET through the proxy; redirects are followed, so one that leaves the prefix ends in the proxy's 404. */
const viaProxy = (url: URL | string, headers: Record<string, string> = {}) => fetch(url, { headers });
const pageUrl = (path: string) => new URL(`${publicUrl}${path}`);

/** Every URL an HTML page makes the browser follow or load: links, scripts, stylesheets, the search box's files. */
function referencesOf(html: string): string[] {
  return [...html.matchAll(/\b(?:href|src|data-index|data-engine)="([^"]*)"/g)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'));
}

/** How many references are fetched at once: the pages hold hundreds, and one at a time took most of the test's time on a loaded machine. */
const PARALLEL_FETCHES = 8;

/** Fetches every reference once, resolved against the page it was found on, and returns the failures. */
async function deadReferences(references: Array<{ from: URL; reference: string }>): Promise<string[]> {
  const targets = new Map<string, { from: URL; reference: string; target: URL }>();
  for (const { from, reference } of references) {
    if (reference === '' || reference.startsWith('#') || /^(?:https?:\/\/(?!127\.0\.0\.1)|mailto:)/i.test(reference)) continue;
    const target = new URL(reference, from);
    target.hash = '';
    if (!targets.has(target.href)) targets.set(target.href, { from, reference, target });
  }
  expect(targets.size).toBeGreaterThan(20);
  const queue = [...targets.values()];
  const dead: string[] = [];
  const fetchNext = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { from, reference, target } = next;
      const response = await viaProxy(target);
      if (response.status !== 200) dead.push(`${from.pathname} → ${reference} (${target.pathname}${target.search}): ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_FETCHES }, fetchNext));
  return dead.sort();
}

describe('the docs site under a path prefix', () => {
  it('every link and asset of every HTML page, and of the 404 page, answers 200 through the proxy', async () => {
    const references: Array<{ from: URL; reference: string }> = [];
    for (const path of [...PAGE_PATHS, '/docs/no-such-page/deeper']) {
      const from = pageUrl(path);
      const response = await viaProxy(from, { accept: 'text/html' });
      expect(response.status, path).toBe(path.includes('no-such-page') ? 404 : 200);
      const html = await response.text();
      // The prefix once in every link (text may hold it twice: /var/lib/porch/porch.db).
      const linked = referencesOf(html);
      expect(
        linked.filter((reference) => reference.includes(`${PREFIX}${PREFIX}`)),
        path,
      ).toEqual([]);
      for (const reference of linked) references.push({ from, reference });
    }
    expect(await deadReferences(references)).toEqual([]);
    // Some thirty pages rendered and some hundreds of references fetched through the proxy:
    // seconds on a quiet machine, past the default timeout on a loaded one (CI: 20 s).
  }, 90_000);

  it('home page links work when it is read without its trailing slash (/porch)', async () => {
    const from = new URL(publicUrl);
    const response = await viaProxy(from, { accept: 'text/html' });
    expect(response.status).toBe(200);
    const references = referencesOf(await response.text()).map((reference) => ({ from, reference }));
    expect(await deadReferences(references)).toEqual([]);
  });

  it('points Swagger UI at the OpenAPI document under the prefix', async () => {
    const page = await (await viaProxy(pageUrl('/docs/api-reference'), { accept: 'text/html' })).text();
    const script = referencesOf(page).find((reference) => /\/api-reference\.[0-9a-f]+\.js$/.test(reference));
    expect(script).toBeDefined();
    const source = await (await viaProxy(new URL(script ?? '', pageUrl('/docs/api-reference')))).text();
    const openApiUrl = /url: "([^"]+)"/.exec(source)?.[1];
    expect(openApiUrl).toBe(`${PREFIX}/openapi.json`);
    const document = await viaProxy(new URL(openApiUrl ?? '', pageUrl('/docs/api-reference')));
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
  });

  it('gives the search index URLs under the prefix', async () => {
    const page = await (await viaProxy(pageUrl('/docs'), { accept: 'text/html' })).text();
    const indexUrl = /data-index="([^"]+)"/.exec(page)?.[1] ?? '';
    const sections = (await (await viaProxy(new URL(indexUrl, pageUrl('/docs')))).json()) as SearchSection[];
    expect(sections.length).toBeGreaterThan(20);
    for (const section of sections) expect(section.url.startsWith(`${PREFIX}/`), section.url).toBe(true);
    const quickStart = sections.find((section) => section.url === `${PREFIX}/docs/quick-start`);
    expect(quickStart).toBeDefined();
    expect((await viaProxy(pageUrl('/docs/quick-start'))).status).toBe(200);
  });

  it('every link of every Markdown twin, and of a page read through the gateway, answers 200 through the proxy', async () => {
    const references: Array<{ from: URL; reference: string }> = [];
    const readers = [
      ...DOC_SOURCES.map((source) => pageUrl(`/docs/${source.slug}.md`)),
      pageUrl('/index.md'),
      pageUrl('/api/public/markdown-gateway?path=/docs/byok'),
    ];
    for (const from of readers) {
      const response = await viaProxy(from);
      expect(response.status, from.href).toBe(200);
      const markdown = await response.text();
      for (const match of markdown.matchAll(/(?<!!)\[(?:[^\]\n]|\n(?![ \t]*\n))+\]\(([^)\s]+)\)/g)) {
        const reference = match[1] ?? '';
        expect(reference.includes(`${PREFIX}${PREFIX}`), `${from.href}: ${reference}`).toBe(false);
        references.push({ from, reference });
      }
    }
    expect(await deadReferences(references)).toEqual([]);
  });

  it('names the canonical page and its Markdown twin under the prefix in Link', async () => {
    const html = await viaProxy(pageUrl('/docs/errors'), { accept: 'text/html' });
    expect(html.headers.get('link')).toContain(`<${PREFIX}/docs/errors.md>; rel="alternate"`);
    const markdown = await viaProxy(pageUrl('/docs/errors'), { accept: 'text/markdown' });
    expect(markdown.headers.get('link')).toContain(`<${PREFIX}/docs/errors>; rel="canonical"`);
  });

  it('redirects a page address with a trailing slash to the page under the prefix (regression: /porch/docs/ led to /docs)', async () => {
    const direct = await fetch(`${harness.url}/docs/quick-start/?from=nav`, { redirect: 'manual' });
    expect(direct.status).toBe(301);
    expect(direct.headers.get('location')).toBe(`${PREFIX}/docs/quick-start?from=nav`);
    const slashed: Array<[string, string]> = [
      ['/docs/', '/docs'],
      ['/docs/quick-start/', '/docs/quick-start'],
      ['/docs/errors.md/', '/docs/errors.md'],
    ];
    for (const [path, landing] of slashed) {
      const response = await viaProxy(pageUrl(path), { accept: 'text/html' });
      expect(response.status, path).toBe(200);
      expect(new URL(response.url).pathname, path).toBe(`${PREFIX}${landing}`);
    }
  });

  it('gives Agent Skills urls that resolve, against the index, to the bytes of their digest through the proxy', async () => {
    const indexUrl = pageUrl('/.well-known/agent-skills/index.json');
    const index = (await (await viaProxy(indexUrl)).json()) as AgentSkillsIndex;
    expect(index.skills.length).toBeGreaterThan(0);
    for (const skill of index.skills) {
      const response = await viaProxy(new URL(skill.url, indexUrl));
      expect(response.status, skill.url).toBe(200);
      const digest = `sha256:${createHash('sha256')
        .update(new Uint8Array(await response.arrayBuffer()))
        .digest('hex')}`;
      expect(digest, skill.url).toBe(skill.digest);
    }
  });
});
