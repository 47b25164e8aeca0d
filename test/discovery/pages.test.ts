/** Human pages, Markdown negotiation, the Markdown gateway and llms.txt. */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoInstructions } from '../../src/cli/serve-commands.js';
import { countTextTokens } from '../../src/core/ai/index.js';
import { operations } from '../../src/operations/index.js';
import { exposedOn } from '../../src/operations/operation.js';
import { GENERATED_BLOCKS, withGeneratedBlock } from '../../src/rest/discovery/generated-docs.js';
import { PACKAGE_ROOT } from '../../src/rest/discovery/package-root.js';
import { DOC_SOURCES, withoutTrailingSlashes } from '../../src/rest/discovery/site-pages.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const SITE_URL = 'https://porch.example.test';
const SWAGGER_UI_VERSION = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), 'utf8')) as { version: string })
  .version;
const MARKDOWN = 'text/markdown; charset=utf-8';
const NEGOTIATED_VARY = 'Accept, Accept-Encoding';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ env: { PORCH_PUBLIC_URL: SITE_URL } });
});
afterAll(() => harness.close());

const markdown = (path: string, accept = 'text/markdown') => harness.site('GET', path, { headers: { accept } });

describe('links on the served documentation', () => {
  it('every link of every docs page answers 200 (regression: repository-relative links such as ../examples/bundle.yaml were dead)', async () => {
    const checked = new Set<string>();
    for (const source of DOC_SOURCES) {
      const page = await harness.site('GET', `/docs/${source.slug}`, { headers: { accept: 'text/html' } });
      expect(page.status, source.slug).toBe(200);
      for (const [, href = ''] of page.text.matchAll(/<a [^>]*href="([^"#]*)(?:#[^"]*)?"/g)) {
        if (href === '' || /^[a-z][a-z0-9+.-]*:/i.test(href) || checked.has(href)) continue;
        checked.add(href);
        const target = await harness.site('GET', href.replaceAll('&amp;', '&'));
        expect(target.status, `${source.slug} links to ${href}`).toBe(200);
      }
    }
    expect(checked.size).toBeGreaterThan(10);
  });

  it('every link of every Markdown twin answers 200, resolved against the twin (regression: ../porch.config.example.yaml was dead)', async () => {
    const checked = new Set<string>();
    for (const source of DOC_SOURCES) {
      const twin = `/docs/${source.slug}.md`;
      const page = await markdown(twin);
      expect(page.status, twin).toBe(200);
      // Link text may wrap onto the next line (not across a blank one).
      for (const [, href = ''] of page.text.matchAll(/(?<!!)\[(?:[^\]\n]|\n(?![ \t]*\n))+\]\(([^)#\s]*)(?:#[^)\s]*)?\)/g)) {
        if (href === '' || /^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        const target = new URL(href, `http://porch.test${twin}`).pathname;
        if (checked.has(target)) continue;
        checked.add(target);
        expect((await harness.site('GET', target)).status, `${twin} links to ${href}`).toBe(200);
      }
    }
    expect(checked.size).toBeGreaterThan(10);
  });
});

describe('Markdown negotiation', () => {
  it('answers Accept: text/markdown on /docs/quick-start with the Markdown of docs/quick-start.md, a token estimate and Vary', async () => {
    const response = await markdown('/docs/quick-start');
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.headers.get('content-type')).toBe(MARKDOWN);
    expect(response.headers.get('vary')).toBe(NEGOTIATED_VARY);
    // The file as written, but for links to other pages, which point at their twins from the site's root.
    const written = await readFile(join(PACKAGE_ROOT, 'docs/quick-start.md'), 'utf8');
    expect(response.text).toBe(
      written
        .replace(/\]\(([a-z0-9-]+\.md)(#[^)\s]*)?\)/g, '](/docs/$1$2)')
        .replace(/\]\((\/docs\/[a-z0-9-]+)(#[^)\s]*)?\)/g, (whole, path: string, fragment = '') =>
          DOC_SOURCES.some((doc) => `/docs/${doc.slug}` === path) || path === '/docs/api-reference' ? `](${path}.md${fragment})` : whole,
        ),
    );
    expect(Number(response.headers.get('x-markdown-tokens'))).toBe(countTextTokens(response.text));
  });

  it('links the twins of the home page and /docs to the pages’ twins, as every docs page’s twin does (regression: to the HTML pages)', async () => {
    for (const twin of ['/index.md', '/docs.md', '/docs/quick-start.md']) {
      const text = (await markdown(twin)).text;
      const pageLinks = [...text.matchAll(/(?<!!)\[[^\]]+\]\(((?:\/docs|\/)(?:\/[a-z0-9-]+)?(?:\.md)?)(?:#[^)\s]*)?\)/g)].map((match) => match[1] ?? '');
      expect(pageLinks.length, twin).toBeGreaterThan(5);
      expect(
        pageLinks.filter((link) => !link.endsWith('.md')),
        twin,
      ).toEqual([]);
    }
    // The HTML pages keep linking to the HTML pages.
    const home = await harness.site('GET', '/', { headers: { accept: 'text/html' } });
    expect(home.text).toContain('href="/docs/quick-start"');
  });

  it('says on the home page which pages answer Markdown, not "any page": the console and /refine answer HTML only', async () => {
    const home = (await markdown('/')).text;
    expect(home).not.toMatch(/any page as Markdown/i);
    expect(home).toMatch(/\(`\/console`\) and `\/refine` are HTML only/);
    for (const path of ['/console/sign-in', '/refine']) {
      const answer = await markdown(path);
      expect(answer.headers.get('content-type'), path).toMatch(/^text\/html/);
    }
  });

  it('redirects a page’s address with a trailing slash to the page, where its relative links resolve (regression: served there)', async () => {
    const get = (path: string) => fetch(`${harness.url}${path}`, { redirect: 'manual' });
    const slashed = await get('/docs/quick-start/?from=nav');
    expect(slashed.status).toBe(301);
    expect(slashed.headers.get('location')).toBe('/docs/quick-start?from=nav');
    expect((await get('/docs/')).headers.get('location')).toBe('/docs');
  });

  it('gives a page’s Markdown links that resolve from every address it is read at: the gateway’s too (regression: dead there)', async () => {
    const viaGateway = await harness.site('GET', '/api/public/markdown-gateway?path=/docs/quick-start');
    expect(viaGateway.status).toBe(200);
    const links = [...viaGateway.text.matchAll(/(?<!!)\[[^\]\n]+\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    expect(links.length).toBeGreaterThan(3);
    for (const link of links.filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))) {
      const resolved = new URL(link, `${harness.url}/api/public/markdown-gateway?path=/docs/quick-start`);
      const target = await harness.site('GET', `${resolved.pathname}${resolved.search}`);
      expect(target.status, link).toBe(200);
    }
  });

  it('rewrites a page link whose text wraps onto a second line (regression: byok.md’s “Configuration and providers” link was dead through the gateway)', async () => {
    const written = await readFile(join(PACKAGE_ROOT, 'docs/byok.md'), 'utf8');
    expect(written).toMatch(/\[Configuration and\n\s*providers\]\(configuration\.md#models-and-providers\)/);
    const viaGateway = await harness.site('GET', '/api/public/markdown-gateway?path=/docs/byok');
    expect(viaGateway.status).toBe(200);
    expect(viaGateway.text).toMatch(/\[Configuration and\n\s*providers\]\(\/docs\/configuration\.md#models-and-providers\)/);
    expect(viaGateway.text).not.toMatch(/\]\((?:\.\/)?[a-z0-9-]+\.md[#)]/);
  });

  it('answers Markdown to an Accept with parameters or in upper case (regression: a charset parameter got HTML)', async () => {
    for (const accept of ['text/markdown; charset=utf-8', 'TEXT/MARKDOWN', 'text/markdown;q=0.9, text/html;q=0.5']) {
      const response = await markdown('/docs/quick-start', accept);
      expect(response.headers.get('content-type'), accept).toBe(MARKDOWN);
    }
  });

  it('answers browsers with HTML on the same URL, also with Vary, and names the Markdown twin', async () => {
    const response = await harness.site('GET', '/docs/quick-start', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('vary')).toBe(NEGOTIATED_VARY);
    expect(response.headers.get('link')).toContain('</docs/quick-start.md>; rel="alternate"; type="text/markdown"');
    expect(response.text).toMatch(/<h1 id="quick-start">Quick start<\/h1>/);
    // Links between docs point at the site's pages, not at .md files.
    expect(response.text).toContain('href="/docs/authentication"');
    expect(response.headers.get('x-markdown-tokens')).toBeNull();
  });

  it('prefers Markdown only when the client ranks it higher', async () => {
    expect((await markdown('/docs/errors', 'text/markdown, text/html;q=0.5')).headers.get('content-type')).toBe(MARKDOWN);
    expect((await markdown('/docs/errors', 'text/html, text/markdown;q=0.5')).headers.get('content-type')).toMatch(/^text\/html/);
    expect((await markdown('/docs/errors', '*/*')).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves every allowlisted page both ways, and its .md twin as Markdown', async () => {
    const paths = ['/', '/docs', '/docs/api-reference', ...DOC_SOURCES.map((doc) => `/docs/${doc.slug}`)];
    for (const path of paths) {
      const exists =
        path !== '/docs/mcp' ||
        (await readFile(join(PACKAGE_ROOT, 'docs/mcp.md')).then(
          () => true,
          () => false,
        ));
      const html = await harness.site('GET', path);
      expect(html.status, path).toBe(exists ? 200 : 404);
      if (!exists) continue;
      expect(html.headers.get('vary'), path).toBe(NEGOTIATED_VARY);
      const md = await markdown(path);
      expect(md.headers.get('content-type'), path).toBe(MARKDOWN);
      expect(md.text, path).toMatch(/^# /);
      const twin = await harness.site('GET', path === '/' ? '/index.md' : `${path}.md`);
      expect(twin.text, path).toBe(md.text);
    }
  });

  it('renders the operations on the home page and in the API reference Markdown', async () => {
    const home = await markdown('/');
    const reference = await markdown('/docs/api-reference');
    for (const operation of exposedOn(operations, 'discovery')) {
      expect(home.text, operation.name).toContain(`| ${operation.method} | \`${operation.path}\` | ${operation.title} |`);
      expect(reference.text, operation.name).toContain(`\`${operation.method} ${operation.path}\``);
    }
    const html = await harness.site('GET', '/docs/api-reference');
    const bundlePath = `/assets/swagger-ui/${SWAGGER_UI_VERSION}/swagger-ui-bundle.js`;
    expect(html.text).toContain(bundlePath);
    expect(html.text).toContain('<noscript>');
    // The versioned URL the page names, and the unversioned one earlier releases named.
    for (const path of [bundlePath, '/assets/swagger-ui/swagger-ui-bundle.js']) {
      const script = await harness.site('GET', path);
      expect(script.status, path).toBe(200);
      expect(script.headers.get('content-type'), path).toBe('text/javascript; charset=utf-8');
    }
    expect((await harness.site('GET', '/assets/swagger-ui/package.json')).status).toBe(404);
    expect((await harness.site('GET', `/assets/swagger-ui/${SWAGGER_UI_VERSION}/package.json`)).status).toBe(404);
    expect((await harness.site('GET', '/assets/swagger-ui/0.0.1/swagger-ui-bundle.js')).status).toBe(404);
  });

  it.each(GENERATED_BLOCKS.map((block) => [block.file, block] as const))(
    'keeps the generated part of %s equal to the code (run npm run build:docs when this fails)',
    async (file, block) => {
      const text = await readFile(join(PACKAGE_ROOT, file), 'utf8');
      expect(text).toBe(withGeneratedBlock(text, block, operations));
    },
  );
});

describe('the Markdown gateway', () => {
  it('returns the Markdown of any allowlisted page', async () => {
    for (const path of ['/docs/quick-start', '/docs/quick-start.md', '/docs/errors/', '/', '/docs/api-reference']) {
      const response = await harness.site('GET', `/api/public/markdown-gateway?path=${encodeURIComponent(path)}`);
      expect(response.status, `${path}: ${describeResponse(response)}`).toBe(200);
      expect(response.headers.get('content-type')).toBe(MARKDOWN);
      expect(Number(response.headers.get('x-markdown-tokens'))).toBeGreaterThan(0);
      expect(response.text).toMatch(/^# /);
    }
  });

  it('ignores trailing slashes, in time linear in their number', async () => {
    const response = await harness.site('GET', `/api/public/markdown-gateway?path=${encodeURIComponent(`/docs/quick-start${'/'.repeat(4_000)}`)}`);
    expect(response.status, describeResponse(response)).toBe(200);
    expect(withoutTrailingSlashes('/docs/errors///')).toBe('/docs/errors');
    expect(withoutTrailingSlashes('///')).toBe('/');
    // A regex trim restarted at every slash: this took minutes, and 16 KB of them 0.3 s.
    expect(withoutTrailingSlashes(`/${'/'.repeat(1_000_000)}x/`)).toBe(`/${'/'.repeat(1_000_000)}x`);
  });

  it('answers 404 for anything not allowlisted: traversal, files, other routes, other hosts', async () => {
    for (const path of [
      '/docs/../package.json',
      '../package.json',
      '/etc/passwd',
      '/docs/%2e%2e/README',
      '/openapi.json',
      '/api/public/v1/health',
      'https://example.com/',
      '//example.com/docs/quick-start',
      '/docs/decisions/../../README.md',
      '/README.md',
      '/docs/nope',
    ]) {
      const response = await harness.site<{ error: { code: string } }>('GET', `/api/public/markdown-gateway?path=${encodeURIComponent(path)}`);
      expect(response.status, `${path}: ${describeResponse(response)}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('answers 400 without a path', async () => {
    expect((await harness.site('GET', '/api/public/markdown-gateway')).status).toBe(400);
    expect((await harness.site('GET', '/api/public/markdown-gateway?path=')).status).toBe(400);
  });
});

describe('llms.txt', () => {
  it('has the llmstxt.org structure: H1, summary blockquote, link sections, Optional last', async () => {
    const response = await harness.site('GET', '/llms.txt');
    expect(response.status).toBe(200);
    const lines = response.text.split('\n');
    expect(lines[0]).toBe('# Porch');
    expect(lines[2]).toMatch(/^> /);
    const sections = lines.filter((line) => line.startsWith('## ')).map((line) => line.slice(3));
    expect(sections).toEqual(['Docs', 'API', 'Agent Skills', 'Optional']);
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(1);
  });

  it('links only to pages that answer, docs as Markdown', async () => {
    const text = (await harness.site('GET', '/llms.txt')).text;
    const links = [...text.matchAll(/^- \[[^\]]+\]\(([^)]+)\)(: .+)?$/gm)].map((match) => match[1] ?? '');
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) {
      expect(link.startsWith(SITE_URL), link).toBe(true);
      const path = link.slice(SITE_URL.length);
      const response = await harness.site('GET', path);
      expect(response.status, link).toBe(200);
      if (path.startsWith('/docs/')) expect(response.headers.get('content-type'), link).toBe(MARKDOWN);
    }
  });

  it('calls only the pages Markdown, not the JSON, YAML and archives it also lists (regression: "Every page below is Markdown" over openapi.json and health)', async () => {
    const text = (await harness.site('GET', '/llms.txt')).text;
    expect(text).not.toMatch(/every page below is markdown/i);
    const docs = text.slice(text.indexOf('## Docs'), text.indexOf('## API'));
    for (const [, link = ''] of docs.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)) expect(link, link).toMatch(/\.md$/);
    expect(text).toContain('the other links are the machine-readable documents themselves');
  });
});

describe('the quick start', () => {
  it('shows the start-up output the server prints, the "Try it:" commands included (regression: they were missing)', async () => {
    const written = await readFile(join(PACKAGE_ROOT, 'docs/quick-start.md'), 'utf8');
    const demo = { account_id: 'a', organisation_id: 'o', email: 'demo@porch.local', credits: 1000, key_id: 'k', key: 'mdi_...' };
    expect(written).toContain(`${demoInstructions(demo, 'http://127.0.0.1:3000/api/public/v1')}\n\nPorch is listening on http://127.0.0.1:3000`);
  });
});
