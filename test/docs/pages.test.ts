/**
 * The served docs agree with the repository and the code: every page in docs/ is served and in
 * the sidebar, every link between docs (and from the README) lands on a page and a heading that
 * exist, no page speaks of a specification file users do not have, and the configuration, CLI
 * and sanitiser pages name what the code has.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { BUILT_IN_RULES } from '../../src/core/sanitiser/rule-catalog.js';
import { headingSlug } from '../../src/rest/discovery/html-layout.js';
import { DOC_SOURCES } from '../../src/rest/discovery/site-pages.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOC_FILES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

/** GitHub's anchors of a Markdown file's headings (code blocks skipped; repeats get -1, -2). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  for (const match of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const text = (match[1] ?? '').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = headingSlug(text);
    const count = seen.get(slug);
    seen.set(slug, (count ?? -1) + 1);
    anchors.add(count === undefined ? slug : `${slug}-${count + 1}`);
  }
  return anchors;
}

/** Relative links to Markdown files: [text](file.md#anchor), outside code blocks. */
function markdownLinks(markdown: string): Array<{ file: string; anchor: string | undefined }> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return [...withoutCode.matchAll(/\]\(((?:\.\.?\/)?[A-Za-z0-9_/.-]+\.md)(?:#([^)\s]+))?\)/g)].map((match) => ({
    file: match[1] ?? '',
    anchor: match[2],
  }));
}

describe('the docs pages', () => {
  it('serves every Markdown file of docs/ as a page, and lists no page without its file', () => {
    expect(DOC_SOURCES.map((source) => source.file).sort()).toEqual([...DOC_FILES].sort());
  });

  it('gives every page a unique slug and title', () => {
    expect(new Set(DOC_SOURCES.map((source) => source.slug)).size).toBe(DOC_SOURCES.length);
    expect(new Set(DOC_SOURCES.map((source) => source.title)).size).toBe(DOC_SOURCES.length);
  });

  it.each([...DOC_FILES, 'README.md'])('%s: every link to a Markdown file lands on a file and heading that exist', (file) => {
    const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
    for (const link of markdownLinks(read(file))) {
      const target = join(folder, link.file);
      let text: string;
      try {
        text = read(target);
      } catch {
        throw new Error(`${file} links to ${link.file}, which does not exist`);
      }
      if (link.anchor) expect([...anchorsOf(text)], `${file} links to ${link.file}#${link.anchor}`).toContain(link.anchor);
    }
  });

  it.each([...DOC_FILES, 'README.md'])('%s speaks of no specification file users do not have', (file) => {
    const text = read(file);
    expect(text).not.toMatch(/seeds\//);
    expect(text).not.toMatch(/\bthe spec\b|\bspec's\b|\bspec §|API specification|the specification/i);
  });

  it('keeps the README a short entry: the quick start there, every page linked', () => {
    const readme = read('README.md');
    expect(readme).toContain('## Quick start');
    for (const source of DOC_SOURCES.filter((doc) => !doc.optional)) expect(readme, source.file).toContain(`](${source.file})`);
  });
});

describe('the configuration page', () => {
  it('lists every environment variable the config parses', () => {
    const config = read('src/config.ts');
    const schema = config.slice(config.indexOf('const envSchema'), config.indexOf('});', config.indexOf('const envSchema')));
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1] ?? '');
    expect(variables.length).toBeGreaterThan(15);
    const page = read('docs/configuration.md');
    // PORCH_WORKER_INDEX is set by porch serve --workers for its children, never by hand.
    for (const variable of variables.filter((name) => name !== 'PORCH_WORKER_INDEX')) expect(page, variable).toContain(`\`${variable}\``);
  });

  it('lists every section of porch.config.yaml', () => {
    const page = read('docs/configuration.md');
    for (const match of read('porch.config.example.yaml').matchAll(/^([a-z_]+):/gm)) expect(page, match[1]).toContain(`| \`${match[1]}\` |`);
  });
});

describe('the CLI page', () => {
  /** Every command path of the porch program: `account create`, `db copy`, ... */
  function commandPaths(): string[][] {
    const sink = new PassThrough();
    const program = createProgram({
      env: {},
      cwd: ROOT,
      stdin: new PassThrough(),
      stdout: sink,
      stderr: sink,
      logDestination: sink,
      waitForStop: () => new Promise(() => {}),
    });
    const walk = (command: Command, prefix: string[]): string[][] =>
      command.commands.filter((child) => child.name() !== 'help').flatMap((child) => [[...prefix, child.name()], ...walk(child, [...prefix, child.name()])]);
    return walk(program, []);
  }

  it('names every porch command and subcommand', () => {
    const page = read('docs/cli.md');
    const paths = commandPaths();
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const [group, ...rest] = path;
      expect(page, `porch ${group}`).toContain(`porch ${group}`);
      if (rest.length === 0) continue;
      // A subcommand is named on a line of its group, as `porch key rotate` or `/ rotate`.
      const lines = page.split('\n').filter((line) => line.includes(`porch ${group}`));
      const last = rest.at(-1) ?? '';
      expect(
        lines.some((line) => new RegExp(`\\b${last}\\b`).test(line)),
        `porch ${path.join(' ')}`,
      ).toBe(true);
    }
  });
});

describe('the sanitiser page', () => {
  it('states the number of built-in rules truthfully', () => {
    const claim = /Over (\d+) rules/.exec(read('docs/sanitiser-rules.md'));
    expect(claim).not.toBeNull();
    expect(BUILT_IN_RULES.length).toBeGreaterThan(Number(claim?.[1]));
  });
});
