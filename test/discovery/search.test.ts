/**
 * The docs search box, as a reader uses it: the index the server builds, searched with the
 * MiniSearch options site/site.mjs gives the box.
 */
import MiniSearch, { type Options } from 'minisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchSection } from '../../src/rest/discovery/site-pages.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** What the site script exports for its search box (a browser module, imported here by path). */
interface SiteScript {
  SEARCH_OPTIONS: Options<SearchSection>;
}

/** How many results the box lists (MAX_RESULTS in site.mjs). */
const RESULTS_SHOWN = 12;

let harness: Harness;
let search: MiniSearch<SearchSection>;

beforeAll(async () => {
  harness = await createHarness();
  const page = await (await fetch(`${harness.url}/docs`, { headers: { accept: 'text/html' } })).text();
  const indexUrl = /data-index="([^"]+)"/.exec(page)?.[1];
  expect(indexUrl, 'the docs page names its search index').toBeDefined();
  const sections = (await (await fetch(`${harness.url}${indexUrl}`)).json()) as SearchSection[];
  const scriptPath = '../../site/site.mjs';
  const site = (await import(scriptPath)) as SiteScript;
  search = new MiniSearch(site.SEARCH_OPTIONS);
  search.addAll(sections);
});
afterAll(() => harness.close());

/** The URLs of the results the box shows for `query`, best first. */
function shown(query: string): string[] {
  return search
    .search(query)
    .slice(0, RESULTS_SHOWN)
    .map((result) => String(result.url));
}

describe('docs search', () => {
  it('finds Versions and labels for "rollback" and "roll back" (regression: the one-word form found no page of it)', () => {
    for (const query of ['rollback', 'Rollback']) expect(shown(query)[0], `${query}: ${shown(query).join(', ')}`).toBe('/docs/versions-and-labels');
    // Rolling back an upgrade (upgrade-and-backup) is a fair first answer to the two words.
    expect(shown('roll back').slice(0, 3), shown('roll back').join(', ')).toContain('/docs/versions-and-labels');
  });

  it('finds an identifier deep in a long section (regression: "porch_version" did not find mcp.md, whose mention lay past the indexed text)', () => {
    const results = shown('porch_version');
    expect(
      results.some((url) => url.startsWith('/docs/mcp#')),
      results.join(', '),
    ).toBe(true);
    // The identifier is one word: pages that only say "porch" and "version" apart are not results.
    expect(
      results.every((url) => !url.startsWith('/docs/api-reference')),
      results.join(', '),
    ).toBe(true);
  });

  it('still finds the parts of an identifier, and ordinary words', () => {
    expect(
      shown('expected_version').some((url) => url.startsWith('/docs/versions-and-labels')),
      shown('expected_version').join(', '),
    ).toBe(true);
    expect(shown('porch backup')).toContain('/docs/upgrade-and-backup#backups');
  });
});
